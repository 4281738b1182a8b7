/**
 * Watches a set of files for changes with `fs.watch` on their folders (not the files: an editor
 * that saves by writing a new file and renaming it over the old one would end a file's watch),
 * and reports them once they have been quiet for `WATCH_DEBOUNCE_MS`, so one save is one change
 * however many events the file system sends for it.
 */
import { watch, type FSWatcher } from "node:fs";
import path from "node:path";

/** Changes closer together than this are one change. */
export const WATCH_DEBOUNCE_MS = 150;

export class FileWatcher {
  private watchers = new Map<string, FSWatcher>();
  private files = new Set<string>();
  private changed = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  /** `onChange` gets the changed files (sorted), once per burst of changes. */
  constructor(private readonly onChange: (files: string[]) => void) {}

  /** Watches exactly `files` from now on (absolute paths). */
  watch(files: readonly string[]): void {
    this.files = new Set(files.map((f) => path.resolve(f)));
    const dirs = new Set([...this.files].map((f) => path.dirname(f)));
    for (const [dir, watcher] of this.watchers) {
      if (dirs.has(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    for (const dir of dirs) {
      if (this.watchers.has(dir)) continue;
      try {
        const watcher = watch(dir, (_event, name) => {
          if (name !== null) this.note(path.join(dir, name.toString()));
        });
        // A folder removed while watched: nothing more to hear from it.
        watcher.on("error", () => watcher.close());
        this.watchers.set(dir, watcher);
      } catch {
        // The folder is gone: its files cannot change until it comes back.
      }
    }
  }

  get watchedFiles(): number {
    return this.files.size;
  }

  close(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  private note(file: string): void {
    if (!this.files.has(file)) return;
    this.changed.add(file);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      const files = [...this.changed].sort();
      this.changed.clear();
      this.onChange(files);
    }, WATCH_DEBOUNCE_MS);
  }
}
