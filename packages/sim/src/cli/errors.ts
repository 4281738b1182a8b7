/**
 * Errors the CLI reports to the user: a message that says what to change, and the exit status.
 * Exit status 2 means "the command could not do its job" (bad flag, unknown simulation, a file
 * that does not load); 1 is reserved for "it ran and found a failure"; 74 a report that could
 * not be written; 128 + the signal's number for a run a termination signal stopped.
 */
import { MoonpoolError } from "@moonpool/core";

/** Exit statuses of the `moonpool` command. */
export const EXIT_PASSED = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** The conventional status of a process stopped by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;
/** A report file could not be written (full disk, no permission): sysexits.h's EX_IOERR. */
export const EXIT_IO = 74;

export class CliError extends MoonpoolError {
  readonly exitCode: number = EXIT_USAGE;
}

/** A flag or argument with a value the CLI cannot use. */
export class UsageError extends CliError {}

/** A filter or name that matches no simulation; the message lists the known ones. */
export class UnknownSimulation extends CliError {}

/** A simulation or config file that does not load or does not export what it should. */
export class SimulationLoadError extends CliError {}

/** Report files that cannot be merged (different campaigns, overlapping shards, missing shards). */
export class ReportMergeError extends CliError {}

/** A report file that could not be written: one line naming the file and the errno. */
export class ReportWriteError extends CliError {
  override readonly exitCode: number = EXIT_IO;
}
