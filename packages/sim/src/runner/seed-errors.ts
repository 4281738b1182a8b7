/**
 * How a seed learns of its own process errors from Node, without touching the host's listeners.
 *
 * - Node reports an uncaught exception and an unhandled rejection through `process.emit`. While a
 *   seed runs, those events go to the seed (runner/process-errors.ts) and nowhere else; between
 *   seeds they reach the host's listeners (a test runner's) as usual, which are never removed.
 * - Node checks for unhandled rejections only when its tick queue runs dry, which the engine's
 *   fast loop avoids between steps. Node reads `process.domain` at the moment a promise is
 *   rejected with no handler yet, so a getter there tells the engine that this step made one
 *   (`Engine.rejectionSeen`): the engine then gives the real loop one turn after the step, Node
 *   reports what is still unhandled, and the process ends at the step that made the rejection.
 *   Where the getter cannot be installed or is never read (a Node without that read, the `domain`
 *   module loaded first), the engine yields after every step instead: slower, same semantics.
 */
import type { SeedSession } from "./seed-runner.ts";

const noop = (): void => {};

export interface SeedErrorInterception {
  /** Whether a rejection with no handler is seen at once (else the engine must yield after every step). */
  readonly seesRejections: boolean;
  restore(): void;
}

export function interceptProcessErrors(
  session: () => SeedSession | null,
  onUncaught: () => void,
): SeedErrorInterception {
  const hadOwnEmit = Object.hasOwn(process, "emit");
  const realEmit = process.emit;
  const seedAwareEmit = function seedAwareEmit(
    this: NodeJS.Process,
    name: string | symbol,
    ...args: unknown[]
  ): boolean {
    const current = session();
    if (current !== null) {
      if (name === "unhandledRejection") {
        current.processErrors.rejection(args[0], args[1] as Promise<unknown>);
        return true;
      }
      if (name === "uncaughtException") {
        onUncaught();
        current.processErrors.onUncaught(null, args[0], null);
        return true;
      }
      // A handler attached after Node reported the rejection: the process has already ended.
      if (name === "rejectionHandled") return true;
    }
    return (realEmit as (...a: unknown[]) => boolean).call(this, name, ...args);
  } as NodeJS.Process["emit"];
  process.emit = seedAwareEmit;

  const domain = Object.getOwnPropertyDescriptor(process, "domain");
  let installed = false;
  let reads = 0;
  if (domain === undefined || (domain.configurable === true && "value" in domain)) {
    let value: unknown = domain?.value ?? null;
    Object.defineProperty(process, "domain", {
      configurable: true,
      enumerable: domain?.enumerable ?? true,
      get() {
        reads++;
        const current = session();
        if (current !== null) current.world.engine.rejectionSeen = true;
        return value;
      },
      set(next: unknown) {
        value = next;
      },
    });
    installed = true;
    // The probe: a rejection with no handler, handled at once (Node then forgets it).
    Promise.reject(new Error("moonpool rejection probe")).catch(noop);
  }
  const seesRejections = installed && reads > 0;
  return {
    seesRejections,
    restore() {
      process.emit = realEmit;
      if (!hadOwnEmit) delete (process as { emit?: unknown }).emit;
      if (!installed) return;
      const now = Object.getOwnPropertyDescriptor(process, "domain");
      // The `domain` module, loaded meanwhile, defines its own (fixed) property: it stays.
      if (now?.configurable === true && now.get !== undefined) {
        const value = (process as { domain?: unknown }).domain;
        Object.defineProperty(process, "domain", {
          configurable: true,
          enumerable: domain?.enumerable ?? true,
          writable: true,
          value: value ?? null,
        });
      }
    },
  };
}
