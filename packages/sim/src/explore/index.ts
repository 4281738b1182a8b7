/** The explore layer: registers the frontier explorer as the runner's root-seed strategy. */
import { registerExplorationStrategy } from "../runner/exploration.ts";
import { Explorer } from "./explorer.ts";

registerExplorationStrategy((config, table, runTimeline, runBatch) => new Explorer(config, table, runTimeline, runBatch));

export { Explorer, FRONTIER_SAMPLES_MAX } from "./explorer.ts";
export { Frontier, MAX_UNPRODUCTIVE_BATCHES, type FrontierEntry } from "./frontier.ts";
