// Every export of @moonpool/sim in one barrel, for this repository's tests: the union of the
// entries by audience (api.ts is `@moonpool/sim`; tuning.ts and internal.ts), so a name is
// declared once, in the entry that publishes it.
export * from "./api.ts";
export * from "./tuning.ts";
export * from "./internal.ts";
