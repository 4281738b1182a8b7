/**
 * `fs.promises.FileHandle` on the simulated file system: what `fs.promises.open` resolves to. Each
 * method is the descriptor call of the same name (`fd-calls.ts`), completing on simulated time.
 */
import { EventEmitter } from "node:events";
import { dataBytes, dataOptions } from "./args.ts";
import { fsError } from "./errors.ts";
import { FD_CALLS, readAllFrom, readArgs } from "./fd-calls.ts";
import { type Prepared, prepared, promised } from "./schedule.ts";
import type { FsCaller } from "./state.ts";

export class SimFsFileHandle extends EventEmitter {
  private open = true;

  constructor(
    private readonly caller: FsCaller,
    private readonly descriptor: number,
  ) {
    super();
  }

  /** -1 once closed, as Node's. */
  get fd(): number {
    return this.open ? this.descriptor : -1;
  }

  private call<T>(name: string, args: unknown[]): Promise<T> {
    if (!this.open) return Promise.reject(fsError("EBADF", name));
    try {
      return promised(this.caller, FD_CALLS[name]!(this.caller, [this.descriptor, ...args])) as Promise<T>;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async read(...args: unknown[]): Promise<{ bytesRead: number; buffer: unknown }> {
    const r = readArgs(args.length === 0 ? [{}] : args);
    const bytesRead = await this.call<number>("read", [r.buffer, r.offset, r.length, r.position]);
    return { bytesRead, buffer: r.original };
  }

  async write(...args: unknown[]): Promise<{ bytesWritten: number; buffer: unknown }> {
    const bytesWritten = await this.call<number>("write", args);
    return { bytesWritten, buffer: args[0] };
  }

  readFile(options?: unknown): Promise<Buffer | string> {
    const { encoding } = dataOptions(options, null);
    const caller = this.caller;
    const fd = this.descriptor;
    return promised<Buffer | string>(
      caller,
      prepared("read", 0, () => {
        const bytes = readAllFrom(caller.fds.get(fd, "read"));
        const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        return encoding === null ? buffer : buffer.toString(encoding);
      }) as Prepared<Buffer | string>,
    );
  }

  /** Writes `data` from the current position (a handle opened with "w" starts empty, as in Node). */
  writeFile(data: unknown, options?: unknown): Promise<void> {
    const { encoding } = dataOptions(options, "utf8");
    return this.call<number>("write", [dataBytes(data, encoding)]).then(() => undefined);
  }

  appendFile(data: unknown, options?: unknown): Promise<void> {
    return this.writeFile(data, options);
  }

  sync(): Promise<void> {
    return this.call("fsync", []);
  }

  datasync(): Promise<void> {
    return this.call("fdatasync", []);
  }

  truncate(length = 0): Promise<void> {
    return this.call("ftruncate", [length]);
  }

  stat(options?: unknown): Promise<unknown> {
    return this.call("fstat", [options]);
  }

  chmod(_mode: unknown): Promise<void> {
    return this.call("fchmod", []);
  }

  chown(_uid: unknown, _gid: unknown): Promise<void> {
    return this.call("fchown", []);
  }

  utimes(atime: unknown, mtime: unknown): Promise<void> {
    return this.call("futimes", [atime, mtime]);
  }

  async close(): Promise<void> {
    if (!this.open) return;
    await this.call("close", []);
    this.open = false;
    this.emit("close");
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
