/**
 * A lowdb adapter written by an author who remembered `fsync`: the same temp-file-and-rename as
 * lowdb's own `JSONFile` (through steno), plus an `fsync` of the temp file before the rename and of
 * the directory after it, so an acknowledged write survives a power cut. A failed sync leaves the
 * data unsynced (the simulated disk keeps it in its page cache), so it is retried.
 */
import { open, readFile, rename } from "node:fs/promises";
import path from "node:path";
import type { Adapter } from "lowdb";

type Syncable = { sync(): Promise<void> };

async function syncUntilDone(handle: Syncable): Promise<void> {
  for (;;) {
    try {
      return await handle.sync();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EIO") throw error;
    }
  }
}

export class DurableJSONFile<T> implements Adapter<T> {
  private readonly temp: string;

  constructor(private readonly file: string) {
    this.temp = path.join(path.dirname(file), `.${path.basename(file)}.tmp`);
  }

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await readFile(this.file, "utf8")) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async write(data: T): Promise<void> {
    const handle = await open(this.temp, "w");
    try {
      await handle.writeFile(JSON.stringify(data));
      await syncUntilDone(handle);
    } finally {
      await handle.close();
    }
    await rename(this.temp, this.file);
    const dir = await open(path.dirname(this.file), "r");
    try {
      await syncUntilDone(dir);
    } finally {
      await dir.close();
    }
  }
}
