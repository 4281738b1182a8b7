/**
 * Setup file of both test tiers (vitest.tiers.ts). A test stopped by its timeout leaves its
 * campaign running, and a running simulation owns the realm until it ends: the next test's `run()`
 * would then fail at once with "another simulation is already running in this realm" (on a busy
 * machine that turned one slow test into several fast failures). Before each test this waits for
 * such a leftover simulation to end, so only the slow test fails, whatever the machine's speed.
 */
import { activeSimulation } from "@moonpool/core";
import { beforeEach } from "vitest";

// Captured before any simulation installs the escape guard over the timer and clock globals.
const realSetTimeout = globalThis.setTimeout;
const wallNowMs = performance.now.bind(performance);
const POLL_MS = 20;
/** Generous: the leftover is a count-bounded campaign that ends on its own. */
const WAIT_LIMIT_MS = 1_800_000;

beforeEach(async () => {
  if (activeSimulation() === undefined) return;
  const startedMs = wallNowMs();
  while (activeSimulation() !== undefined) {
    if (wallNowMs() - startedMs > WAIT_LIMIT_MS) {
      throw new Error(
        `a simulation started by an earlier test was still running after ${WAIT_LIMIT_MS / 60_000} minutes; this test did not start`,
      );
    }
    await new Promise((resolve) => realSetTimeout(resolve, POLL_MS));
  }
  console.warn(
    `waited ${Math.round(wallNowMs() - startedMs)} ms for the simulation of an earlier (timed-out) test to end`,
  );
}, WAIT_LIMIT_MS + 60_000);
