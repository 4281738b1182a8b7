/** The failure monitor on its own: address states, endpoint failures and their bounds, waiters. */
import { describe, expect, it } from "vitest";
import { BrokenPromise, FailureMonitor, PING_TOKEN, QueueFull, serviceToken } from "@moonpool/core";

const EP = { address: "10.0.0.1:7000", token: serviceToken("svc") };

describe("FailureMonitor", () => {
  it("an unknown address is failed; setStatus records since when", () => {
    const m = new FailureMonitor();
    expect(m.state(EP.address)).toBe("failed");
    m.setStatus(EP.address, "available", 5);
    expect([m.state(EP.address), m.stateSinceMs(EP.address)]).toEqual(["available", 5]);
    m.setStatus(EP.address, "available", 9); // no change, same since
    expect(m.stateSinceMs(EP.address)).toBe(5);
  });

  it("endpoint failure is permanent until the address is reached again; well-known endpoints are exempt", () => {
    const m = new FailureMonitor();
    m.setStatus(EP.address, "available", 0);
    const reason = new BrokenPromise();
    m.endpointFailed(EP, reason);
    m.endpointFailed({ address: EP.address, token: PING_TOKEN }, reason);
    expect(m.endpointFailure(EP)).toBe(reason);
    expect(m.endpointFailure({ address: EP.address, token: PING_TOKEN })).toBeUndefined();
    m.setStatus(EP.address, "failed", 1);
    expect(m.endpointFailure(EP)).toBe(reason);
    m.setStatus(EP.address, "available", 2);
    expect(m.endpointFailure(EP)).toBeUndefined();
  });

  it("remembers at most maxFailedEndpoints, forgetting the oldest", () => {
    const m = new FailureMonitor({ maxFailedEndpoints: 2 });
    const eps = ["a", "b", "c"].map((s) => ({ address: EP.address, token: serviceToken(s) }));
    for (const ep of eps) m.endpointFailed(ep, new BrokenPromise());
    expect(eps.map((ep) => m.endpointFailure(ep) !== undefined)).toEqual([false, true, true]);
  });

  it("wakes onDisconnectOrFailure only on failure, onStateChanged on any change; bounded with QueueFull", async () => {
    const m = new FailureMonitor({ maxWaiters: 2 });
    const log: string[] = [];
    await m.onDisconnectOrFailure(EP); // already failed: resolves at once
    m.setStatus(EP.address, "available", 0);
    void m.onDisconnectOrFailure(EP).then(() => log.push("failure"));
    void m.onStateChanged(EP).then(() => log.push("changed"));
    expect(() => m.onStateChanged(EP)).toThrow(QueueFull);
    m.setStatus("10.0.0.2:7000", "available", 0); // another address: nobody wakes
    await Promise.resolve();
    expect(log).toEqual([]);
    m.setStatus(EP.address, "failed", 1);
    await Promise.resolve();
    expect(log.sort()).toEqual(["changed", "failure"]);
    expect(m.pendingWaiters).toBe(0);
  });
});
