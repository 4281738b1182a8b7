/**
 * The storage contract against the node:fs provider, in a fresh temporary directory per test
 * (removed afterwards), plus what only the production provider has: its root, task scopes, and the
 * unconfigured default of `productionProviders()`.
 */
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  InvalidConfiguration,
  OpenOptions,
  productionProviders,
  ProductionStorage,
  UnconfiguredStorage,
} from "@moonpool/core";
import { storageContractSuite, type StorageHarness } from "./storage-contract.ts";

async function tempRoot(): Promise<string> {
  return mkdtemp(join(tmpdir(), "moonpool-storage-"));
}

storageContractSuite("node:fs (ProductionStorage)", async (): Promise<StorageHarness> => {
  const root = await tempRoot();
  const storage = new ProductionStorage({ root });
  return {
    run: (body) => body(storage),
    dispose: () => rm(root, { recursive: true, force: true }),
  };
});

describe("ProductionStorage specifics", () => {
  it("creates its root on first use and keeps files inside it, pruning emptied directories", async () => {
    const parent = await tempRoot();
    try {
      const root = join(parent, "nested", "root");
      const storage = new ProductionStorage({ root });
      const f = await storage.open("a/b/file", OpenOptions.createNewWrite);
      await f.write(0, new TextEncoder().encode("x"));
      await f.close();
      expect((await stat(join(root, "a", "b", "file"))).isFile()).toBe(true);
      await storage.delete("a/b/file");
      expect(await readdir(root)).toEqual([]);
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it("refuses to be built without a root", () => {
    expect(() => new ProductionStorage({ root: "" })).toThrow(InvalidConfiguration);
  });

  it("productionProviders gives storage with a storageRoot, and its tasks get a scoped one", async () => {
    const root = await tempRoot();
    try {
      const providers = productionProviders({ traceLevel: "error", storageRoot: root });
      expect(providers.storage).toBeInstanceOf(ProductionStorage);
      const handle = providers.task.spawn("writer", async (scope) => {
        const f = await scope.storage.open("from-task", OpenOptions.createWrite);
        await f.write(0, new TextEncoder().encode("hi"));
        await f.close();
        return scope.storage.list();
      });
      expect(await handle.join()).toEqual(["from-task"]);
      expect(await providers.storage.exists("from-task")).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("an aborted task's storage calls never settle", async () => {
    const root = await tempRoot();
    try {
      const providers = productionProviders({ traceLevel: "error", storageRoot: root });
      let reached = false;
      const handle = providers.task.spawn("stopped", async (scope) => {
        await new Promise<void>((resolve) => setImmediate(resolve));
        await scope.storage.list();
        reached = true;
      });
      handle.abort();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(reached).toBe(false);
      expect((await handle).status).toBe("cancelled");
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("without a storageRoot, every storage call says how to configure one", async () => {
    const providers = productionProviders({ traceLevel: "error" });
    expect(providers.storage).toBeInstanceOf(UnconfiguredStorage);
    await expect(providers.storage.open("f", OpenOptions.readOnly)).rejects.toThrow(/storageRoot/);
    await expect(providers.storage.list()).rejects.toBeInstanceOf(InvalidConfiguration);
  });
});
