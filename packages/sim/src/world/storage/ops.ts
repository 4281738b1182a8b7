/**
 * Plumbing shared by the storage provider and file handles: how an operation waits.
 *
 * Every operation that takes time is a `PendingOp` of the calling scope's incarnation and task,
 * completed by a `storage` event after its latency. Storage waits are not abortable: graceful
 * shutdown leaves them running, so a process can flush and sync in its grace period; a crash
 * drops them with the rest of the incarnation. An operation whose disk crashed or was wiped after
 * it was issued (its epoch is stale) never lands; if its caller still lives, it fails with EIO.
 */
import { IoError } from "@moonpool/core";
import { Incarnation, never, type PendingOp } from "../../engine/incarnation.ts";
import { EventTag } from "../event-tag.ts";
import type { ActorScope } from "../scope.ts";
import type { Disk, SimStorage } from "./storage.ts";

/** A storage operation in flight; `complete` applies it when its event fires. */
export interface StorageRequest<T> {
  readonly storage: SimStorage;
  readonly disk: Disk;
  readonly epoch: number;
  readonly op: PendingOp<T>;
  complete(request: this): void;
}

/** Whether code of `scope` may still observe results (a dead incarnation or task never resumes). */
function scopeAlive(scope: ActorScope): boolean {
  return scope.incarnation.alive && (scope.taskState === null || scope.taskState.alive);
}

/** An immediate result, seen only by a live scope. */
export function settled<T>(scope: ActorScope, value: T): Promise<T> {
  return scopeAlive(scope) ? Promise.resolve(value) : never<T>();
}

/** An immediate failure, seen only by a live scope. */
export function failed<T>(scope: ActorScope, error: unknown): Promise<T> {
  return scopeAlive(scope) ? Promise.reject(error) : never<T>();
}

function fire(request: StorageRequest<unknown>): void {
  if (request.epoch !== request.disk.epoch) {
    Incarnation.reject(
      request.op,
      new IoError("EIO", `the disk of ${request.disk.ip} crashed or was wiped while this operation was in flight`),
    );
    return;
  }
  request.complete(request);
}

/**
 * Starts an operation of `scope` that completes after `delayUs`: `build(op)` makes the request
 * (with its `complete`). Returns the caller's promise (never settling for a dead scope).
 */
export function issue<T, R extends StorageRequest<T>>(
  storage: SimStorage,
  scope: ActorScope,
  what: string,
  detail: string,
  delayUs: number,
  build: (op: PendingOp<T>) => R,
): Promise<T> {
  const op = scope.incarnation.begin<T>(scope.taskState, false, what, detail);
  if (op === null) return never<T>();
  const promise = op.promise;
  storage.world.engine.schedule(delayUs, fire, build(op), EventTag.storage, scope.incarnation);
  return promise;
}
