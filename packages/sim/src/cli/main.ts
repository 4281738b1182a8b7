/**
 * The `moonpool` command's entry: runs the program (program.ts) on the process's arguments. Kept
 * apart so bin/moonpool.mjs can load the compiled program before it registers tsx (main.js then
 * finds it loaded): through tsx's hooks each of its some 200 modules costs a round trip to tsx's
 * loader thread.
 */
import { main } from "./program.ts";

// `moonpool ... | head` closes the pipe early: that is not an error worth a stack trace. A closed
// terminal (EIO, with the SIGHUP that stops the run) must not stop the report files being written.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    if (error.code === "EIO") return;
    throw error;
  });
}
process.exitCode = await main(process.argv.slice(2));
