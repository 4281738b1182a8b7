/**
 * The clients: open-loop arrivals (they do not slow down when the service does), each request
 * sent at most once per attempt with a timeout, and retried by one of two policies:
 *
 * - `naive`: retry at once, up to `MAX_RETRIES` times. When the service slows down, timeouts
 *   turn every request into several, the queue only grows, and the server spends its capacity on
 *   requests nobody waits for any more: the overload outlives its trigger (a metastable failure).
 * - `budgeted`: a retry budget (retries may add at most 10 % to the load, a token bucket) and
 *   exponential backoff with full jitter. The load stays under capacity once the trigger ends,
 *   the queue drains and goodput recovers.
 */
import {
  ConnectionFailed,
  MaybeDelivered,
  type RandomProvider,
  type ServiceStub,
  type TimeProvider,
} from "@moonpool/core";
import type { MetricsProvider } from "@moonpool/core";
import type { Work } from "./service.ts";

export type RetryPolicy = "naive" | "budgeted";
export const REQUEST_TIMEOUT_MS = 100;
export const MAX_RETRIES = 3;
/** Tokens a first attempt earns, a retry spends one: retries add at most 10 % to the load. */
const BUDGET_PER_REQUEST = 0.1;
const BUDGET_CAP = 10;
const BACKOFF_BASE_MS = 20;
const BACKOFF_CAP_MS = 1_000;

export class RetryingClient {
  private budget = BUDGET_CAP;
  private nextId = 0;
  private readonly requests;
  private readonly successes;
  private readonly failures;
  private readonly latency;

  constructor(
    private readonly stub: ServiceStub<Work>,
    private readonly policy: RetryPolicy,
    private readonly io: { time: TimeProvider; random: RandomProvider; metrics: MetricsProvider },
  ) {
    this.requests = io.metrics.counter("requests_total", { help: "Attempts sent", labelNames: ["attempt"] });
    this.successes = io.metrics.counter("success_total", { help: "Requests answered in time" });
    this.failures = io.metrics.counter("failed_total", { help: "Requests given up" });
    this.latency = io.metrics.histogram("latency_ms", {
      help: "Time to a successful answer, retries included, ms",
      buckets: [10, 25, 50, 100, 250, 500, 1000],
    });
  }

  /** One logical request: attempts until an answer, or the policy gives up. */
  async request(): Promise<void> {
    const id = ++this.nextId;
    const started = this.io.time.now();
    this.budget = Math.min(BUDGET_CAP, this.budget + BUDGET_PER_REQUEST);
    for (let attempt = 0; ; attempt++) {
      this.requests.inc(1, { attempt: attempt === 0 ? "first" : "retry" });
      try {
        await this.stub.work.tryGetReply({ id, attempt }, { timeoutMs: REQUEST_TIMEOUT_MS });
        this.successes.inc();
        this.latency.observe(this.io.time.now() - started);
        return;
      } catch (error) {
        if (!(error instanceof MaybeDelivered || error instanceof ConnectionFailed)) throw error;
      }
      if (attempt >= MAX_RETRIES || !this.mayRetry()) {
        this.failures.inc();
        return;
      }
      if (this.policy === "budgeted") {
        const capMs = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
        await this.io.time.sleep(this.io.random.randomRange(0, capMs + 1));
      }
    }
  }

  private mayRetry(): boolean {
    if (this.policy === "naive") return true;
    if (this.budget < 1) return false;
    this.budget -= 1;
    return true;
  }
}
