/**
 * Virtual `node:dns` and `node:dns/promises` for simulated processes (with `nodeRuntime()`):
 * `lookup`, `resolve*` and `reverse` (module functions and `Resolver` methods) answer from the
 * seed's name table (`dns-table.ts`) as virtual events of the calling process, with Node's
 * result shapes and error codes. DNS faults (slow, failing, stale answers) come from the table.
 */
import { defineVirtualCalls, type VirtualImplementation } from "../node-runtime/registry.ts";
import type { VirtualProcess } from "../node-runtime/virtual-process.ts";
import { type DnsAnswer, isIpv4, type SimDns } from "./dns-table.ts";
import { lookupError } from "./errors.ts";

type Callback = (...args: any[]) => void;

function invalidArgType(name: string, value: unknown, expected = "string"): TypeError {
  const received =
    value === null || value === undefined
      ? ` Received ${String(value)}`
      : ` Received type ${typeof value} (${String(value)})`;
  return Object.assign(new TypeError(`The "${name}" argument must be of type ${expected}.${received}`), {
    code: "ERR_INVALID_ARG_TYPE",
  });
}

function queryError(code: string, syscall: string, hostname: string): Error {
  return Object.assign(new Error(`${syscall} ${code} ${hostname}`), { errno: undefined, code, syscall, hostname });
}

/** The seed's name table, from the process's world. */
function tableOf(process: VirtualProcess): SimDns {
  const dns = process.world.dns;
  if (dns === null) throw new Error("internal: a seed without a name table ran a dns call");
  return dns;
}

/** The answer for `process`'s lookup of `hostname`, delivered `answer.delayMs` later as its own event. */
function ask(process: VirtualProcess, hostname: string, deliver: (answer: DnsAnswer) => void): void {
  const answer = tableOf(process).answer(process.actor, hostname, process.world.nowMs);
  process.schedule(
    answer.delayMs,
    () => process.alive && process.call(() => deliver(answer), "a dns callback"),
    null,
    null,
  );
}

interface LookupOptions {
  readonly family: number;
  readonly all: boolean;
}

function lookupOptions(options: unknown): LookupOptions {
  if (typeof options === "number") return { family: options, all: false };
  if (options !== null && typeof options === "object") {
    const o = options as { family?: unknown; all?: unknown };
    const family = o.family === "IPv6" ? 6 : o.family === "IPv4" ? 4 : Number(o.family ?? 0);
    return { family, all: o.all === true };
  }
  return { family: 0, all: false };
}

type LookupResult = { address: string | null; family: number } | { address: string; family: number }[];

/** Resolves `hostname` as `dns.lookup` does; `done` gets Node's error or the result for the options. */
function lookup(
  process: VirtualProcess,
  hostname: unknown,
  options: LookupOptions,
  done: (error: Error | null, result: LookupResult) => void,
): void {
  if (typeof hostname !== "string") throw invalidArgType("hostname", hostname);
  const shape = (ips: readonly string[]): LookupResult =>
    options.all ? ips.map((address) => ({ address, family: 4 })) : { address: ips[0] ?? null, family: 4 };
  if (hostname === "" || isIpv4(hostname)) {
    const ips = hostname === "" ? [] : [hostname];
    globalThis.process.nextTick(() => done(null, shape(ips)));
    return;
  }
  const local = hostname === "localhost" ? [process.ip] : null;
  ask(process, local !== null ? process.ip : hostname, (answer) => {
    if (answer.error !== null && local === null) return done(lookupError(answer.error, hostname), shape([]));
    // The simulated network has IPv4 addresses only: an IPv6-only lookup finds nothing.
    if (options.family === 6) return done(lookupError("ENOTFOUND", hostname), shape([]));
    done(null, shape(local ?? answer.ips));
  });
}

const callbackLookup: VirtualImplementation = (process, _this, args) => {
  const [hostname, second, third] = args;
  const callback = (typeof second === "function" ? second : third) as Callback;
  if (typeof callback !== "function") throw invalidArgType("callback", callback, "function");
  const options = lookupOptions(typeof second === "function" ? undefined : second);
  lookup(process, hostname, options, (error, result) => {
    if (error !== null) return callback(error);
    if (Array.isArray(result)) callback(null, result);
    else callback(null, result.address, result.family);
  });
  return {};
};

const promiseLookup: VirtualImplementation = (process, _this, args) => {
  const [hostname, options] = args;
  if (typeof hostname !== "string") throw invalidArgType("hostname", hostname);
  return new Promise((resolve, reject) => {
    lookup(process, hostname, lookupOptions(options), (error, result) =>
      error !== null ? reject(error) : resolve(result),
    );
  });
};

/** The query each `resolve*` method makes (c-ares' syscall name in errors). */
const QUERIES = {
  resolve4: "queryA",
  resolve6: "queryAaaa",
  resolveAny: "queryAny",
  resolveCaa: "queryCaa",
  resolveCname: "queryCname",
  resolveMx: "queryMx",
  resolveNaptr: "queryNaptr",
  resolveNs: "queryNs",
  resolvePtr: "queryPtr",
  resolveSoa: "querySoa",
  resolveSrv: "querySrv",
  resolveTxt: "queryTxt",
} as const;
type QueryMethod = keyof typeof QUERIES;

const RRTYPES: Readonly<Record<string, QueryMethod>> = {
  A: "resolve4",
  AAAA: "resolve6",
  ANY: "resolveAny",
  CAA: "resolveCaa",
  CNAME: "resolveCname",
  MX: "resolveMx",
  NAPTR: "resolveNaptr",
  NS: "resolveNs",
  PTR: "resolvePtr",
  SOA: "resolveSoa",
  SRV: "resolveSrv",
  TXT: "resolveTxt",
};

/**
 * One query: simulated names have A records only, so other types of an existing name answer
 * `ENODATA`; a temporary failure is c-ares' `ETIMEOUT`.
 */
function query(
  process: VirtualProcess,
  method: QueryMethod,
  hostname: unknown,
  withTtl: boolean,
  done: (error: Error | null, result?: unknown) => void,
): void {
  if (typeof hostname !== "string") throw invalidArgType("name", hostname);
  const syscall = QUERIES[method];
  ask(process, hostname, (answer) => {
    if (answer.error === "EAI_AGAIN") return done(queryError("ETIMEOUT", syscall, hostname));
    if (answer.error !== null) return done(queryError("ENOTFOUND", syscall, hostname));
    const ttl = Math.ceil(tableOf(process).faults.staleMs / 1000);
    if (method === "resolve4")
      return done(null, withTtl ? answer.ips.map((address) => ({ address, ttl })) : [...answer.ips]);
    if (method === "resolveAny")
      return done(
        null,
        answer.ips.map((address) => ({ address, ttl, type: "A" })),
      );
    done(queryError("ENODATA", syscall, hostname));
  });
}

function reverse(process: VirtualProcess, ip: unknown, done: (error: Error | null, result?: string[]) => void): void {
  if (typeof ip !== "string") throw invalidArgType("ip", ip);
  const name = tableOf(process).reverse(ip);
  process.schedule(
    0,
    () =>
      process.alive &&
      process.call(() =>
        name === undefined ? done(queryError("ENOTFOUND", "getHostByAddr", ip)) : done(null, [name]),
      ),
    null,
    null,
  );
}

/** `(hostname[, options], callback)` or a promise, for one query method. */
function queryCall(method: QueryMethod | "resolve" | "reverse", promises: boolean): VirtualImplementation {
  return (process, _this, args) => {
    const callback = promises
      ? undefined
      : ([...args].reverse().find((a) => typeof a === "function") as Callback | undefined);
    if (!promises && callback === undefined) throw invalidArgType("callback", undefined, "function");
    const run = (done: (error: Error | null, result?: unknown) => void): void => {
      if (method === "reverse") return reverse(process, args[0], done);
      let target: QueryMethod = method as QueryMethod;
      if (method === "resolve") {
        const rrtype = typeof args[1] === "string" ? args[1] : "A";
        const mapped = RRTYPES[rrtype];
        if (mapped === undefined) {
          throw Object.assign(new TypeError(`The argument 'rrtype' is invalid. Received '${rrtype}'`), {
            code: "ERR_INVALID_ARG_VALUE",
          });
        }
        target = mapped;
      }
      const options = args[1] as { ttl?: unknown } | undefined;
      query(process, target, args[0], options !== null && typeof options === "object" && options.ttl === true, done);
    };
    if (promises) return new Promise((resolve, reject) => run((e, r) => (e !== null ? reject(e) : resolve(r))));
    run((e, r) => (e !== null ? callback!(e) : callback!(null, r)));
    return {};
  };
}

const calls: Record<string, VirtualImplementation> = {
  "dns.lookup": callbackLookup,
  "dns.promises.lookup": promiseLookup,
};
for (const method of [...(Object.keys(QUERIES) as QueryMethod[]), "resolve", "reverse"] as const) {
  calls[`dns.${method}`] = queryCall(method, false);
  calls[`dns.Resolver.prototype.${method}`] = queryCall(method, false);
  calls[`dns.promises.${method}`] = queryCall(method, true);
  calls[`dns.promises.Resolver.prototype.${method}`] = queryCall(method, true);
}
defineVirtualCalls(calls);
