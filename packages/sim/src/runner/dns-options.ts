/**
 * The builder's `dns({ aliases, faults })` setting, checked, and the seed's name table built from
 * the topology: each process answers to `<group>-<index>` and its actor name, a group name to its
 * live members, and the aliases to what their targets answer.
 */
import { InvalidConfiguration } from "@moonpool/core";
import { checkDnsFaultsSetting, type DnsFaultsSetting } from "../chaos/dns-chaos.ts";
import { type DnsFaultConfig, SimDns } from "../world/node-net/dns-table.ts";
import type { World } from "../world/world.ts";
import type { TopologyRegistry } from "./topology.ts";

export interface DnsOptions {
  /** Extra names: alias → a process name (`db-0`), a group name, another alias or an IPv4 address. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** DNS faults every seed runs with when there is no `Chaos.dns` entry ("none": the default). */
  readonly faults?: "none" | Partial<DnsFaultConfig>;
}

export interface DnsSetting {
  readonly aliases: Readonly<Record<string, string>>;
  readonly faults: DnsFaultsSetting;
}

export const NO_DNS_SETTING: DnsSetting = Object.freeze({ aliases: Object.freeze({}), faults: "none" });

const NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

/** Merges `options` into `previous` (aliases add up, faults replace); throws for bad input. */
export function checkDnsOptions(options: DnsOptions, previous: DnsSetting): DnsSetting {
  if (options === null || typeof options !== "object") {
    throw new InvalidConfiguration(
      `dns(options): options must be an object like { aliases: { db: "postgres-0" }, faults: "none" }, got ${String(options)}`,
    );
  }
  const aliases: Record<string, string> = { ...previous.aliases };
  for (const [alias, target] of Object.entries(options.aliases ?? {})) {
    if (!NAME.test(alias) || typeof target !== "string" || target === "") {
      throw new InvalidConfiguration(
        `dns({ aliases }): '${alias}' -> ${JSON.stringify(target)} is not a host name mapped to a name or IPv4 address; use letters, digits, '-' and '.' (e.g. { db: "postgres-0" })`,
      );
    }
    aliases[alias] = target;
  }
  const faults = options.faults === undefined ? previous.faults : checkDnsFaultsSetting(options.faults);
  return Object.freeze({ aliases: Object.freeze(aliases), faults });
}

/** The configuration fields of a setting (absent when it is the default, so fingerprints stay as they were). */
export function dnsConfigFields(setting: DnsSetting): {
  dnsFaults?: DnsFaultsSetting;
  hostAliases?: Record<string, string>;
} {
  return {
    ...(setting.faults !== "none" ? { dnsFaults: setting.faults } : {}),
    ...(Object.keys(setting.aliases).length > 0 ? { hostAliases: { ...setting.aliases } } : {}),
  };
}

/** The seed's name table: processes, groups and aliases; faults only inside the chaos window. */
export function buildNameTable(
  world: World,
  registry: TopologyRegistry,
  aliases: Readonly<Record<string, string>>,
  faults: DnsFaultConfig,
  isDown: (ip: string) => boolean,
): SimDns {
  const table = new SimDns(world.engine.seed, isDown, () => !world.inRecoveryMode, faults);
  for (const p of registry.processes) {
    table.addHost(p.actor.slice(0, p.actor.indexOf("@")), p.ip);
    table.addHost(`${p.group}-${p.index}`, p.ip);
    table.addGroupMember(p.group, p.ip);
  }
  for (const [alias, target] of Object.entries(aliases)) table.addAlias(alias, target);
  return table;
}
