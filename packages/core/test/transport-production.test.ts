/** The transport contract (transport-contract.ts) over real sockets on 127.0.0.1. */
import { NullTracer, productionProviders } from "@moonpool/core";
import { transportContractSuite } from "./transport-contract.ts";

transportContractSuite("production (node:net)", {
  run: async (body) => {
    const server = productionProviders({ tracer: new NullTracer() });
    const client = productionProviders({ tracer: new NullTracer() });
    return body(server, client, "127.0.0.1:0");
  },
});
