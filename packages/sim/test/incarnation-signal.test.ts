/** The shutdown signal of an incarnation is created on first use and still says what happened before. */
import { describe, expect, it } from "vitest";
import { Incarnation } from "../src/engine/incarnation.ts";

describe("Incarnation.shutdown", () => {
  it("read before shutdown: aborts with the reason, once", () => {
    const incarnation = new Incarnation("node-1");
    const signal = incarnation.shutdown;
    let aborts = 0;
    signal.addEventListener("abort", () => aborts++);
    expect(signal.aborted).toBe(false);
    const reason = new Error("first");
    incarnation.signalShutdown(reason);
    incarnation.beginShutdown(new Error("second"));
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(aborts).toBe(1);
    expect(incarnation.shutdown).toBe(signal);
  });

  it("first read after shutdown: already aborted with the first reason", () => {
    const incarnation = new Incarnation("node-1");
    const reason = new Error("first");
    incarnation.beginShutdown(reason);
    incarnation.signalShutdown(new Error("second"));
    expect(incarnation.shutdown.aborted).toBe(true);
    expect(incarnation.shutdown.reason).toBe(reason);
  });

  it("a lazy reason is made only when the signal is read, and is the same object for every reader", () => {
    let made = 0;
    let shared: Error | undefined;
    const makeReason = () => {
      made++;
      return (shared ??= new Error("lazy"));
    };
    const unread = new Incarnation("node-1");
    unread.signalShutdownLazily(makeReason);
    expect(made).toBe(0);
    const readLater = new Incarnation("node-2");
    readLater.signalShutdownLazily(makeReason);
    expect(readLater.shutdown.aborted).toBe(true);
    expect(readLater.shutdown.reason).toBe(shared);
    const readBefore = new Incarnation("node-3");
    const signal = readBefore.shutdown;
    readBefore.signalShutdownLazily(makeReason);
    expect(signal.reason).toBe(shared);
  });

  it("never shut down: never aborted", () => {
    expect(new Incarnation("node-1").shutdown.aborted).toBe(false);
  });
});
