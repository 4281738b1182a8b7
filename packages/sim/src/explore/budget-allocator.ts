/**
 * How the adaptive campaign splits one budget of timelines between its two arms, batch by batch:
 * fresh root seeds (exactly the seeds a plain campaign runs, in the same order) and continuations
 * of frontier entries (docs/decisions.md D27). Each arm's yield is its reward per timeline over
 * about its last `YIELD_MEMORY_TIMELINES` timelines, where a timeline earns one point per
 * discovery (first pass, watermark gain, new bucket, better quality, ...) that no earlier timeline
 * of its batch reported, and
 * `FAILURE_REWARD` when it fails. Continuations get the share of the batch their yield earns
 * against fresh seeds' (all but one timeline while they lead over the whole campaign), never the
 * whole batch; with no yield of their own they only get probes of
 * one timeline at doubling intervals, so a campaign where exploration does not pay degrades to the
 * plain seed campaign with a few timelines lost to probes. Only counts decide: the split is the
 * same on every thread and for any number of workers.
 */

/** Timelines per batch: every timeline of a batch starts from the table as it was before it. */
export const CAMPAIGN_BATCH_TIMELINES = 8;
/** Reward of a failing timeline, in discoveries: a failure is what a campaign is for. */
export const FAILURE_REWARD = 10;
/** Timelines of an arm its yield remembers (an exponential window). */
export const YIELD_MEMORY_TIMELINES = 256;
/** Longest wait, in batches, between two probes of an arm that has not paid. */
export const MAX_PROBE_INTERVAL_BATCHES = 4;

export type CampaignArm = "fresh" | "continuation";

/** What one arm did over the whole campaign (the report's per-arm yields). */
export interface ArmYield {
  readonly timelines: number;
  /** Discoveries of its timelines that no earlier timeline of the same batch reported. */
  readonly discoveries: number;
  /** Failing timelines. */
  readonly failures: number;
  /** Campaign timeline (1-based) of the arm's first failure, or null. */
  readonly firstFailureAtTimeline: number | null;
}

interface Window {
  reward: number;
  weight: number;
}

const DECAY = 1 - 1 / YIELD_MEMORY_TIMELINES;

export class BudgetAllocator {
  private readonly windows: Record<CampaignArm, Window> = {
    fresh: { reward: 0, weight: 0 },
    continuation: { reward: 0, weight: 0 },
  };
  private readonly totals: Record<
    CampaignArm,
    { timelines: number; discoveries: number; failures: number; first: number | null }
  > = {
    fresh: { timelines: 0, discoveries: 0, failures: 0, first: null },
    continuation: { timelines: 0, discoveries: 0, failures: 0, first: null },
  };
  private probeIntervalBatches = 1;
  private batchesSinceProbe = 0;
  private probing = false;
  /** Batches that had continuations because of their yield, and probes. */
  shareBatches = 0;
  probes = 0;

  /**
   * Continuations for the next batch of `batchSize` timelines; `canContinue` is false when no
   * frontier entry (live or retired) is left to continue.
   */
  continuationSlots(batchSize: number, canContinue: boolean): number {
    this.probing = false;
    if (!canContinue || batchSize < 2) return 0;
    const fresh = this.rate("fresh");
    // Continuations earn a share only from a record of their own (probes start it): a prior would
    // hand them budget before they showed anything, which is what loses to random on shallow bugs.
    const continuation = this.rate("continuation");
    // Squared rates: an arm that yields twice as much gets four fifths of the batch, so a search
    // that pays takes over quickly while a tie still splits evenly.
    const share = fresh + continuation > 0 ? continuation ** 2 / (fresh ** 2 + continuation ** 2) : 0;
    // At least one fresh seed per batch: the campaign always keeps part of what random does.
    // Continuations that have out-yielded fresh seeds over the whole campaign keep all but that
    // one: a deep search pays in bursts, and a dry stretch should not hand it back to fresh seeds.
    const slots = this.continuationsLead() ? batchSize - 1 : Math.min(batchSize - 1, Math.round(share * batchSize));
    if (slots > 0) {
      this.shareBatches++;
      return slots;
    }
    if (++this.batchesSinceProbe < this.probeIntervalBatches) return 0;
    this.batchesSinceProbe = 0;
    this.probing = true;
    this.probes++;
    return 1;
  }

  /** Records one timeline of `arm` (timeline: its 1-based position in the campaign). */
  record(arm: CampaignArm, discoveries: number, failed: boolean, timeline: number): void {
    const w = this.windows[arm];
    w.reward = w.reward * DECAY + discoveries + (failed ? FAILURE_REWARD : 0);
    w.weight = w.weight * DECAY + 1;
    const t = this.totals[arm];
    t.timelines++;
    t.discoveries += discoveries;
    if (failed) {
      t.failures++;
      t.first ??= timeline;
    }
  }

  /** After a batch: a probe that paid brings probes back to every batch, one that did not doubles the wait. */
  afterBatch(continuationReward: number): void {
    if (!this.probing) return;
    this.probeIntervalBatches =
      continuationReward > 0 ? 1 : Math.min(MAX_PROBE_INTERVAL_BATCHES, this.probeIntervalBatches * 2);
  }

  yields(): Record<CampaignArm, ArmYield> {
    const of = (arm: CampaignArm): ArmYield => {
      const t = this.totals[arm];
      return {
        timelines: t.timelines,
        discoveries: t.discoveries,
        failures: t.failures,
        firstFailureAtTimeline: t.first,
      };
    };
    return { fresh: of("fresh"), continuation: of("continuation") };
  }

  /** Whether continuations have yielded something, and at least as much per timeline as fresh seeds, over the whole campaign. */
  private continuationsLead(): boolean {
    const yieldOf = (arm: CampaignArm) => this.totals[arm].discoveries + FAILURE_REWARD * this.totals[arm].failures;
    const c = this.totals.continuation;
    const f = this.totals.fresh;
    return (
      c.timelines > 0 &&
      yieldOf("continuation") > 0 &&
      yieldOf("continuation") * f.timelines >= yieldOf("fresh") * c.timelines
    );
  }

  private rate(arm: CampaignArm): number {
    const w = this.windows[arm];
    return w.weight === 0 ? 0 : w.reward / w.weight;
  }
}
