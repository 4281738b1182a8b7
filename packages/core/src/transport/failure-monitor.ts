/**
 * What this process believes about the others: each address is "available" (a connection to it
 * is up) or "failed" (never reached, or its connection broke or stopped answering pings), and an
 * endpoint is failed for good once it answered `BrokenPromise` or `EndpointNotFound`. Peers feed
 * it; callers wait on it. An endpoint's permanent failure lasts until its address is reached
 * again over a new connection (which may be a restarted process serving it anew). Waiters are
 * bounded so that a caller leaking them gets `QueueFull` instead of unbounded memory.
 */
import { QueueFull } from "./errors.ts";
import { formatEndpoint, isWellKnown, type Endpoint } from "./token.ts";

export type AddressState = "available" | "failed";

export interface FailureMonitorOptions {
  /** Pending `onDisconnectOrFailure`/`onStateChanged` waiters at once. Default 10,000. */
  readonly maxWaiters?: number;
  /** Permanently failed endpoints remembered; past it the oldest is forgotten. Default 100,000. */
  readonly maxFailedEndpoints?: number;
}

interface Waiter {
  readonly address: string;
  readonly onlyFailure: boolean;
  readonly resolve: () => void;
}

export class FailureMonitor {
  private readonly states = new Map<string, { state: AddressState; sinceMs: number }>();
  private readonly failedEndpoints = new Map<string, Error>();
  private waiters: Waiter[] = [];
  readonly maxWaiters: number;
  readonly maxFailedEndpoints: number;

  constructor(options: FailureMonitorOptions = {}) {
    this.maxWaiters = options.maxWaiters ?? 10_000;
    this.maxFailedEndpoints = options.maxFailedEndpoints ?? 100_000;
  }

  /** An address never heard of is "failed": nothing is known to work. */
  state(address: string): AddressState {
    return this.states.get(address)?.state ?? "failed";
  }

  /** Since when (ms on the transport's clock) `address` has been in its current state, or `undefined` if never set. */
  stateSinceMs(address: string): number | undefined {
    return this.states.get(address)?.sinceMs;
  }

  setStatus(address: string, state: AddressState, nowMs: number): void {
    const previous = this.states.get(address);
    if (previous?.state === state) return;
    this.states.set(address, { state, sinceMs: nowMs });
    // A new connection may reach a new incarnation that serves those endpoints again.
    if (state === "available") this.forgetEndpointsOf(address);
    this.wake((w) => w.address === address && (!w.onlyFailure || state === "failed"));
  }

  /** The error that failed `endpoint` for good, if any. */
  endpointFailure(endpoint: Endpoint): Error | undefined {
    return this.failedEndpoints.get(formatEndpoint(endpoint));
  }

  /** Marks `endpoint` failed for good. Well-known endpoints are exempt: they exist on every process. */
  endpointFailed(endpoint: Endpoint, reason: Error): void {
    if (isWellKnown(endpoint.token)) return;
    const key = formatEndpoint(endpoint);
    if (this.failedEndpoints.has(key)) return;
    if (this.failedEndpoints.size >= this.maxFailedEndpoints) {
      this.failedEndpoints.delete(this.failedEndpoints.keys().next().value!);
    }
    this.failedEndpoints.set(key, reason);
    this.wake((w) => w.address === endpoint.address);
  }

  private forgetEndpointsOf(address: string): void {
    const prefix = `${address}/`;
    for (const key of [...this.failedEndpoints.keys()]) if (key.startsWith(prefix)) this.failedEndpoints.delete(key);
  }

  /** Resolves when `endpoint`'s address is failed or the endpoint failed for good (at once if it already is). */
  onDisconnectOrFailure(endpoint: Endpoint): Promise<void> {
    const failed = this.state(endpoint.address) === "failed" || this.endpointFailure(endpoint) !== undefined;
    if (failed) return Promise.resolve();
    return this.wait(endpoint.address, true);
  }

  /** Resolves at the next change of `endpoint`'s address state or endpoint failure. */
  onStateChanged(endpoint: Endpoint): Promise<void> {
    return this.wait(endpoint.address, false);
  }

  get pendingWaiters(): number {
    return this.waiters.length;
  }

  private wait(address: string, onlyFailure: boolean): Promise<void> {
    if (this.waiters.length >= this.maxWaiters) throw new QueueFull("failure monitor waiters", this.maxWaiters);
    return new Promise((resolve) => this.waiters.push({ address, onlyFailure, resolve }));
  }

  private wake(matches: (waiter: Waiter) => boolean): void {
    const woken = this.waiters.filter(matches);
    if (woken.length === 0) return;
    this.waiters = this.waiters.filter((w) => !matches(w));
    for (const w of woken) w.resolve();
  }
}
