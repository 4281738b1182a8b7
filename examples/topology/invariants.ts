/**
 * Failure domains as the trace shows them: attrition reports each correlated reboot
 * (`attrition_domain_reboot { scope, domain, ips }`) and every boot reports `process_started`.
 * A domain is lost from its reboot until every one of its processes has started again. This
 * invariant turns that into guidance signals: each kind of domain lost and recovered, and reads
 * answered while a domain was lost (the store served them from the other zones).
 */
import { assertSometimes, TraceCursor, type Invariant, type TraceQuery } from "@moonpool/sim";

export const DOMAIN_SCOPES = ["machine", "zone", "datacenter"] as const;

interface Lost {
  readonly scope: string;
  readonly waiting: Set<string>;
}

export class FailureDomainInvariant implements Invariant {
  readonly name = "failure-domains";
  private readonly reboots = new TraceCursor();
  private readonly starts = new TraceCursor();
  private readonly history = new TraceCursor();
  private readonly lost = new Map<string, Lost>();

  observe(query: TraceQuery): void {
    for (const e of query.since("attrition_domain_reboot", this.reboots)) {
      const scope = e.str("scope")!;
      const ips = (e.str("ips") ?? "").split(",").filter((ip) => ip.length > 0);
      this.lost.set(`${scope}:${e.str("domain")}`, { scope, waiting: new Set(ips) });
    }
    for (const e of query.since("process_started", this.starts)) {
      const ip = e.str("ip");
      for (const [key, domain] of this.lost) {
        if (ip !== undefined) domain.waiting.delete(ip);
        if (domain.waiting.size === 0) {
          this.lost.delete(key);
          for (const scope of DOMAIN_SCOPES)
            assertSometimes(domain.scope === scope, `a ${scope} was lost and recovered`);
        }
      }
    }
    for (const e of query.since("history", this.history)) {
      if (e.str("type") !== "ok" || e.str("f") !== "get") continue;
      const scopes = new Set([...this.lost.values()].map((d) => d.scope));
      assertSometimes(
        scopes.has("zone") || scopes.has("datacenter"),
        "a read was answered while a zone or datacenter was down",
      );
    }
  }

  reset(): void {
    this.reboots.reset();
    this.starts.reset();
    this.history.reset();
    this.lost.clear();
  }
}
