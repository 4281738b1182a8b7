/**
 * `@moonpool/sim/postgres`: a real Postgres (PGlite) as a simulated process, its data directory on
 * the simulated disk. Needs `@electric-sql/pglite` installed beside `@moonpool/sim`.
 */
export {
  PostgresProcess,
  DEFAULT_POSTGRES_PORT,
  survivableStorageConfig,
  type PostgresProcessOptions,
  type PostgresStorageFaults,
} from "./runner/postgres-process.ts";
export {
  preparePostgresTemplate,
  TEMPLATE_INITDB_ARGS,
  type PostgresTemplate,
  type PostgresTemplateOptions,
} from "./world/postgres/template.ts";
export { SimDiskFilesystem, DIR_MARKER } from "./world/postgres/sim-disk-fs.ts";
