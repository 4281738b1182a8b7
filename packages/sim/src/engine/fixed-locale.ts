/**
 * A fixed time zone and locale for simulated code: while a seed runs (and while simulation modules
 * load), the local-time `Date` methods answer as in UTC and every locale-sensitive call defaults
 * to "en-US" (and `Intl.DateTimeFormat` to the "UTC" zone), so a seed hashes the same whatever
 * the machine's `TZ` and `LANG`. Outside simulated code each method is the native one.
 *
 * The target is what Node prints when started with `TZ=UTC LANG=en_US.UTF-8`; explicit locales
 * and time zones passed by the caller are kept (their output depends only on Node's ICU data).
 * See docs/node-runtime.md ("Time zone and locale").
 */

type AnyFunction = (...args: any[]) => any;

/** The locale simulated code gets when it names none. */
export const FIXED_LOCALE = "en-US";
/** The time zone simulated code lives in. */
export const FIXED_TIME_ZONE = "UTC";

const NativeDate = Date;
const proto = NativeDate.prototype as unknown as Record<string, AnyFunction>;
const native = {
  parse: NativeDate.parse,
  utc: NativeDate.UTC,
  getTime: proto.getTime!,
  getUTCFullYear: proto.getUTCFullYear!,
  getUTCMonth: proto.getUTCMonth!,
  getUTCDate: proto.getUTCDate!,
  getUTCDay: proto.getUTCDay!,
  getUTCHours: proto.getUTCHours!,
  getUTCMinutes: proto.getUTCMinutes!,
  getUTCSeconds: proto.getUTCSeconds!,
  getFullYear: proto.getFullYear!,
  getMonth: proto.getMonth!,
  getDate: proto.getDate!,
  getHours: proto.getHours!,
  getMinutes: proto.getMinutes!,
  getSeconds: proto.getSeconds!,
  getMilliseconds: proto.getMilliseconds!,
  getTimezoneOffset: proto.getTimezoneOffset!,
  setTime: proto.setTime!,
  setUTCFullYear: proto.setUTCFullYear!,
};

/** Local-time accessors and their UTC twins: in UTC they are the same method. */
const LOCAL_TO_UTC = ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"] as const;

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const ZONE_SUFFIX = "GMT+0000 (Coordinated Universal Time)";

const pad2 = (n: number): string => String(n).padStart(2, "0");

function yearText(year: number): string {
  return year < 0 ? `-${String(-year).padStart(4, "0")}` : String(year).padStart(4, "0");
}

function datePart(date: Date): string {
  const day = DAYS[native.getUTCDay.call(date)]!;
  const month = MONTHS[native.getUTCMonth.call(date)]!;
  return `${day} ${month} ${pad2(native.getUTCDate.call(date))} ${yearText(native.getUTCFullYear.call(date))}`;
}

function timePart(date: Date): string {
  const h = pad2(native.getUTCHours.call(date));
  const m = pad2(native.getUTCMinutes.call(date));
  const s = pad2(native.getUTCSeconds.call(date));
  return `${h}:${m}:${s} ${ZONE_SUFFIX}`;
}

function invalid(date: Date): boolean {
  return Number.isNaN(native.getTime.call(date));
}

/** `date.toString()` as in UTC. */
export function utcToString(date: Date): string {
  return invalid(date) ? "Invalid Date" : `${datePart(date)} ${timePart(date)}`;
}

/** Zone names V8's legacy date parser knows, and the ISO forms that are UTC by definition. */
const ZONE_WORDS = new Set(["z", "ut", "utc", "gmt", "est", "edt", "cst", "cdt", "mst", "mdt", "pst", "pdt"]);
const ISO_DATE_ONLY = /^\s*[+-]?\d{4,6}(?:-\d\d(?:-\d\d)?)?\s*$/;
const OFFSET_AFTER_TIME = /\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?\s*[+-]\d/;

/** True when the parsed string fixes its own zone (or is an ISO date, which is UTC). */
function namesZone(text: string): boolean {
  const bare = text.replace(/\([^)]*\)/g, " ");
  if (ISO_DATE_ONLY.test(bare) || OFFSET_AFTER_TIME.test(bare)) return true;
  for (const word of bare.match(/[a-z]+/gi) ?? []) if (ZONE_WORDS.has(word.toLowerCase())) return true;
  return false;
}

/** `Date.parse(text)` as in UTC: a string that names no zone is read as UTC instead of local time. */
export function utcParse(text: unknown): number {
  const s = String(text);
  const local = native.parse(s);
  if (Number.isNaN(local) || namesZone(s)) return local;
  const asUtc = native.parse(`${s}Z`);
  if (!Number.isNaN(asUtc)) return asUtc;
  const withGmt = native.parse(`${s} GMT`);
  if (!Number.isNaN(withGmt)) return withGmt;
  // The machine's local fields of the instant it parsed: the same wall time, read as UTC.
  const d = new NativeDate(local);
  return native.utc(
    native.getFullYear.call(d),
    native.getMonth.call(d),
    native.getDate.call(d),
    native.getHours.call(d),
    native.getMinutes.call(d),
    native.getSeconds.call(d),
    native.getMilliseconds.call(d),
  );
}

/** The arguments `new Date(...args)` gets in UTC: components are UTC, a string is parsed as UTC. */
export function utcConstructorArgs(args: unknown[]): unknown[] {
  if (args.length >= 2) return [native.utc(...(args as [number, number]))];
  if (args.length === 1 && typeof args[0] === "string") return [utcParse(args[0])];
  return args;
}

/** Options with `timeZone: "UTC"` when the caller set none (inherited options stay readable). */
function withFixedZone(options: unknown): unknown {
  if (options === undefined) return { timeZone: FIXED_TIME_ZONE };
  if (options === null || typeof options !== "object") return options;
  if ((options as { timeZone?: unknown }).timeZone !== undefined) return options;
  return Object.assign(Object.create(options as object), { timeZone: FIXED_TIME_ZONE });
}

function fixedLocales(locales: unknown): unknown {
  return locales === undefined || (Array.isArray(locales) && locales.length === 0) ? FIXED_LOCALE : locales;
}

/** How a wrapper is put in place (the escape guard's `patchProperty`, which every wrapper shares). */
type Patch = (target: object, key: string, value: unknown) => void;

/** Every function this module replaced, mapped to the native one (for `nativeOf` and the surface test). */
export const fixedLocaleNatives = new WeakMap<object, object>();

/**
 * Installs the wrappers. `inSimulation` says whether the code running now is simulated code (a
 * seed's step, code adopted between steps, or a simulation module loading).
 */
export function installFixedZoneAndLocale(inSimulation: () => boolean, patch: Patch): void {
  const wrap = (target: object, key: string, fixed: (self: any, args: any[], original: AnyFunction) => unknown) => {
    const original = (target as Record<string, unknown>)[key];
    if (typeof original !== "function") return;
    const fn = original as AnyFunction;
    const wrapped = {
      [key](this: unknown, ...args: any[]) {
        return inSimulation() ? fixed(this, args, fn) : fn.apply(this, args);
      },
    }[key]!;
    fixedLocaleNatives.set(wrapped, fn);
    patch(target, key, wrapped);
  };

  for (const part of LOCAL_TO_UTC) {
    const utcGet = proto[`getUTC${part}`]!;
    wrap(proto, `get${part}`, (self) => utcGet.call(self));
    if (part !== "Day") {
      const utcSet = proto[`setUTC${part}`]!;
      wrap(proto, `set${part}`, (self, args) => utcSet.apply(self, args));
    }
  }
  wrap(proto, "getTimezoneOffset", (self) => (invalid(self) ? Number.NaN : 0));
  wrap(proto, "getYear", (self) => (invalid(self) ? Number.NaN : native.getUTCFullYear.call(self) - 1900));
  wrap(proto, "setYear", (self, args) => {
    const year = Number(args[0]);
    if (Number.isNaN(year)) return native.setTime.call(self, Number.NaN);
    const whole = Math.trunc(year);
    const full = whole >= 0 && whole <= 99 ? 1900 + whole : year;
    const base = new NativeDate(invalid(self) ? 0 : native.getTime.call(self));
    native.setUTCFullYear.call(base, full);
    return native.setTime.call(self, native.getTime.call(base));
  });
  wrap(proto, "toString", (self) => utcToString(self));
  wrap(proto, "toDateString", (self) => (invalid(self) ? "Invalid Date" : datePart(self)));
  wrap(proto, "toTimeString", (self) => (invalid(self) ? "Invalid Date" : timePart(self)));
  for (const key of ["toLocaleString", "toLocaleDateString", "toLocaleTimeString"])
    wrap(proto, key, (self, args, fn) => fn.call(self, fixedLocales(args[0]), withFixedZone(args[1])));
  wrap(NativeDate, "parse", (_self, args) => utcParse(args[0]));

  const localeFirst = (self: unknown, args: any[], fn: AnyFunction) =>
    fn.call(self, fixedLocales(args[0]), ...args.slice(1));
  wrap(Number.prototype, "toLocaleString", localeFirst);
  wrap(BigInt.prototype, "toLocaleString", localeFirst);
  wrap(String.prototype, "toLocaleUpperCase", localeFirst);
  wrap(String.prototype, "toLocaleLowerCase", localeFirst);
  wrap(String.prototype, "localeCompare", (self, args, fn) =>
    fn.call(self, args[0], fixedLocales(args[1]), ...args.slice(2)),
  );

  // Temporal (behind a flag in some Node majors) formats through Intl's defaults too.
  const temporal = (globalThis as { Temporal?: Record<string, { prototype?: object } | undefined> }).Temporal;
  for (const Class of Object.values(temporal ?? {})) {
    const prototype = Class?.prototype;
    if (prototype === undefined || !Object.hasOwn(prototype, "toLocaleString")) continue;
    wrap(prototype, "toLocaleString", (self, args, fn) =>
      fn.call(self, fixedLocales(args[0]), Class === temporal!.Instant ? withFixedZone(args[1]) : args[1]),
    );
  }

  const intl = Intl as unknown as Record<string, AnyFunction | undefined>;
  for (const name of [
    "DateTimeFormat",
    "NumberFormat",
    "Collator",
    "PluralRules",
    "RelativeTimeFormat",
    "ListFormat",
    "DisplayNames",
    "Segmenter",
    "DurationFormat",
  ]) {
    const Native = intl[name];
    if (typeof Native !== "function") continue;
    const fix = (args: any[]): any[] => {
      const fixed = [fixedLocales(args[0]), ...args.slice(1)];
      if (name === "DateTimeFormat") fixed[1] = withFixedZone(args[1]);
      return fixed;
    };
    const wrapped: AnyFunction = new Proxy(Native, {
      construct(target, args, newTarget): object {
        const fixed = inSimulation() ? fix(args) : args;
        return Reflect.construct(target, fixed, newTarget === wrapped ? target : newTarget);
      },
      apply(target, thisArg, args) {
        return Reflect.apply(target, thisArg, inSimulation() ? fix(args) : args);
      },
    });
    fixedLocaleNatives.set(wrapped, Native);
    patch(Intl, name, wrapped);
  }
}
