import { describe, expect, it } from "vitest";
import { packageModuleUrl } from "../src/runner/module-url.ts";

describe("packageModuleUrl", () => {
  it("keeps the .ts source path when the caller runs from source (this repository)", () => {
    expect(packageModuleUrl("../../explore/index.ts", "file:///repo/packages/sim/src/cli/commands/run.ts"))
      .toBe("file:///repo/packages/sim/src/explore/index.ts");
  });

  it("names the compiled .js module when the caller is compiled (the published package)", () => {
    expect(packageModuleUrl("../../explore/index.ts", "file:///app/node_modules/@moonpool/sim/dist/cli/commands/run.js"))
      .toBe("file:///app/node_modules/@moonpool/sim/dist/explore/index.js");
  });
});
