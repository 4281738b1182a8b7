// Entry of a seed worker thread. Registers tsx in this thread (each worker has its own module
// loader state) so the simulation files it imports load without a build step, then starts the
// worker loop.
import { register } from "tsx/esm/api";

register();
await import("./seed-worker.ts");
