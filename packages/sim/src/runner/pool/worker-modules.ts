/**
 * The modules a pool worker runs seeds with: the API a simulation file imports and what
 * pool-worker.ts imports. In the published package worker-bootstrap.mjs imports this before it
 * registers tsx, so these some 200 compiled modules load as plain JavaScript: through tsx's hooks
 * each costs a round trip to the loader thread, which more than doubled a fresh realm's load.
 * A module missing here still loads, through the hooks, after the simulation's file.
 */
import "../../api.ts";
import "../../engine/recipe.ts";
import "../campaign.ts";
import "../config-fingerprint.ts";
import "../draw-trail.ts";
import "../shrink/overrides.ts";
import "../simulation-source.ts";
import "../timeline-replay.ts";
