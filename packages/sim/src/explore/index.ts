/** The explore layer: the frontier explorer the runner drives, its contract and its settings. */
export { Explorer, FRONTIER_SAMPLES_MAX } from "./explorer.ts";
export { Frontier, MAX_UNPRODUCTIVE_BATCHES, type FrontierEntry } from "./frontier.ts";
export {
  sequentialBatchRunner,
  type BatchRunner,
  type BugRecipe,
  type ExplorationReport,
  type RootExploration,
  type TimelineFailure,
  type TimelineJob,
  type TimelineOutcome,
  type TimelineResult,
  type TimelineRunner,
} from "./contract.ts";
export { mergeExplorationReports } from "./merge-reports.ts";
export {
  searchCampaign,
  type CampaignBatchRunner,
  type CampaignBudgetReport,
  type CampaignJob,
  type CampaignOutcome,
  type CampaignStop,
} from "./campaign-search.ts";
export { CAMPAIGN_BATCH_TIMELINES, type ArmYield, type CampaignArm } from "./budget-allocator.ts";
