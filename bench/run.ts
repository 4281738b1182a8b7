/**
 * `npm run bench -- <name>`: runs one benchmark; its last line of stdout is one JSON object of
 * figures and ratios against a baseline measured in the same process.
 */
const BENCHES: Record<string, () => Promise<Record<string, unknown>>> = {
  engine: async () => (await import("./engine.ts")).benchEngine(),
  explore: async () => (await import("./explore.ts")).benchExplore(),
  "explore-speed": async () => (await import("./explore-speed.ts")).benchExploreSpeed(),
  dungeon: async () => (await import("./dungeon.ts")).benchDungeon(),
  storage: async () => (await import("./storage.ts")).benchStorage(),
  network: async () => (await import("./network.ts")).benchNetwork(),
  workers: async () => (await import("./workers.ts")).benchWorkers(),
  isolation: async () => (await import("./isolation.ts")).benchIsolation(),
  checker: async () => (await import("./checker.ts")).benchChecker(),
  transport: async () => (await import("./transport.ts")).benchTransport(),
  faults: async () => (await import("./faults.ts")).benchFaults(),
  soak: async () => (await import("./soak.ts")).benchSoak(),
  "report-merge": async () => (await import("./report-merge.ts")).benchReportMerge(),
  shrink: async () => (await import("./shrink.ts")).benchShrink(),
  coverage: async () => (await import("./coverage.ts")).benchCoverage(),
  "node-io": async () => (await import("./node-io.ts")).benchNodeIo(),
  peers: async () => (await import("./peers.ts")).benchPeers(),
  scaling: async () => (await import("./scaling.ts")).benchScaling(),
  campaign: async () => (await import("./campaign.ts")).benchCampaign(),
  postgres: async () => (await import("./postgres.ts")).benchPostgres(),
  paxos: async () => ({ ...(await (await import("../examples/paxos/bench-paxos.ts")).benchPaxos()) }),
};

const name = process.argv[2];
const bench = name === undefined ? undefined : BENCHES[name];
if (bench === undefined) {
  console.error(`usage: npm run bench -- <name>; known benchmarks: ${Object.keys(BENCHES).join(", ")}`);
  process.exit(2);
}
const result = await bench();
process.stdout.write(JSON.stringify({ bench: name, ...result }) + "\n");
