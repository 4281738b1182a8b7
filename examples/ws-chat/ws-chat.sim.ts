/**
 * The ws-chat simulations for the `moonpool` command:
 *
 *   npx moonpool run ws-chat                  # members resume where they left off: no message missed
 *   npx moonpool run ws-chat-skip-on-resume   # the planted bug: a resuming member misses one (fails on purpose)
 */
import { defineSimulation } from "@moonpool/sim";
import { wsChatSimulation } from "./simulation.ts";

export const wsChat = defineSimulation({
  name: "ws-chat",
  description: "a chat room on the unmodified ws library over node:http, under network chaos and server crashes",
  build: () => wsChatSimulation().setIterations(100),
});

export const wsChatSkipOnResume = defineSimulation({
  name: "ws-chat-skip-on-resume",
  expectFailure: true,
  description:
    "the same with the planted bug: a resuming member is sent the history one message too late (fails on purpose)",
  build: () => wsChatSimulation({ skipOnResume: true }).setIterations(20),
});
