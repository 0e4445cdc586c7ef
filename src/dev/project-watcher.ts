import { createHash } from 'node:crypto';
import { watch, type Dirent, type FSWatcher } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import * as path from 'node:path';
import type { ChangeKind } from './dev-loop.js';

/** Source files under src/ whose change means a rebuild (what esbuild can load). */
const SOURCE_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs', '.json'];

/**
 * What a change to `file` (project-relative, `/`-separated) asks for: `api` for an API types
 * file under api/ (regenerate, reinstall, rebuild), `src` for a source file under src/
 * (rebuild), nothing for anything else: generated files (`generated`, as PROJECT records
 * them, so that the clients `kop generate` writes do not start another cycle), declaration
 * files, editor swap and backup files.
 */
export function classifyChange(file: string, generated: ReadonlySet<string>): ChangeKind | undefined {
  const normalized = path.posix.normalize(file.split(path.sep).join('/'));
  const base = path.posix.basename(normalized);
  if (base.startsWith('.') || generated.has(normalized)) return undefined;
  if (normalized.startsWith('api/')) {
    return normalized.endsWith('.ts') && !normalized.endsWith('.d.ts') ? 'api' : undefined;
  }
  if (normalized.startsWith('src/')) {
    return SOURCE_EXTENSIONS.includes(path.posix.extname(normalized)) && !normalized.endsWith('.d.ts')
      ? 'src'
      : undefined;
  }
  return undefined;
}

/** Options of {@link ProjectWatcher}. */
export interface ProjectWatcherOptions {
  /** The project root. */
  root: string;
  /** Folders to watch, relative to the root (a missing one is skipped). */
  folders: readonly string[];
  /** Called once per file whose content really changed (or that appeared or disappeared). */
  onChange(file: string): void;
  /** Called when a watcher fails (the folder was deleted, too many watches). */
  onError?(error: Error): void;
}

/** How long a file's events must pause before it is compared (well under what a person notices). */
const QUIET_MS = 30;

/**
 * Watches folders recursively and reports files whose content changed. Every event is checked
 * against a hash of the file's last known content: an editor that saves twice, touches a file,
 * or a generator that rewrites a file unchanged starts no cycle.
 *
 * Each directory has its own (non-recursive) watch, added as directories appear and closed as
 * they go. A directory's watch reports its files by name, whichever inode holds them: Node's own
 * `recursive` watch on Linux (Node 20 and 22) watches each file's inode instead, so a file
 * replaced by a rename (`sed -i`, vim, JetBrains' safe write) is seen once and then never again.
 */
export class ProjectWatcher {
  private readonly hashes = new Map<string, string>();
  /** One watch per directory, by project-relative path. */
  private readonly watchers = new Map<string, FSWatcher>();
  /** Checks in flight per file, chained so two events for one file are compared in order. */
  private readonly checks = new Map<string, Promise<void>>();
  /**
   * Files with events in the last {@link QUIET_MS}: a write is a truncate and then the bytes, two
   * events; hashing between them would report the empty file and then the content again (and a
   * rewrite of the same content as two changes), so a file is compared once its events pause.
   */
  private readonly quieting = new Map<string, { timer: NodeJS.Timeout; done: () => void; finished: Promise<void> }>();
  private closed = false;

  private constructor(private readonly options: ProjectWatcherOptions) {}

  /** Hashes every file in the folders, then starts watching them. */
  static async start(options: ProjectWatcherOptions): Promise<ProjectWatcher> {
    const watcher = new ProjectWatcher(options);
    for (const folder of options.folders) {
      const absolute = path.join(options.root, folder);
      if (!(await isDirectory(absolute))) continue;
      // Watch first, then hash, so no change between the two is lost (a duplicate is filtered by its hash).
      await watcher.watchTree(folder, true);
      await watcher.scan(folder);
    }
    return watcher;
  }

  /** Forgets a file's content, so its next event counts as a change (the last cycle did not take it). */
  forget(file: string): void {
    this.hashes.delete(file);
  }

  /** Stops every watcher. */
  close(): void {
    this.closed = true;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    for (const entry of this.quieting.values()) {
      clearTimeout(entry.timer);
      entry.done();
    }
    this.quieting.clear();
  }

  /** Resolves when the checks of the events received so far are done (tests). */
  async settled(): Promise<void> {
    while (this.checks.size > 0 || this.quieting.size > 0)
      await Promise.all([...this.checks.values(), ...[...this.quieting.values()].map((entry) => entry.finished)]);
  }

  /** Watches `folder` and every directory below it that is not watched yet. */
  private async watchTree(folder: string, top = false): Promise<void> {
    this.watchFolder(folder, top);
    let entries;
    try {
      entries = await readdir(path.join(this.options.root, folder), { recursive: true, withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory()) this.watchFolder(this.relative(entryParent(entry), entry.name), false);
    }
  }

  /**
   * Watches the files directly in `folder`. A failing watch of a folder the caller named (`top`) is
   * reported; one of a folder found below is closed quietly, since that is how a deleted folder ends.
   */
  private watchFolder(folder: string, top: boolean): void {
    if (this.closed || this.watchers.has(folder)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(path.join(this.options.root, folder), { persistent: false }, (_event, name) => {
        if (this.closed) return;
        if (name === null) {
          // The platform did not say which file: look at them all.
          void this.scan(folder, true);
          return;
        }
        this.checkWhenQuiet(path.posix.join(folder, name.toString().split(path.sep).join('/')));
      });
    } catch (error) {
      // Gone between its event and its watch: the event of its removal takes it from here.
      if (top) this.options.onError?.(error as Error);
      return;
    }
    watcher.on('error', (error) => {
      this.unwatch(folder);
      if (top) this.options.onError?.(error);
    });
    this.watchers.set(folder, watcher);
  }

  /** Closes the watches of `folder` and every folder below it (it was deleted or moved away). */
  private unwatch(folder: string): void {
    const prefix = `${folder}/`;
    for (const [watched, watcher] of [...this.watchers]) {
      if (watched === folder || watched.startsWith(prefix)) {
        watcher.close();
        this.watchers.delete(watched);
      }
    }
  }

  private relative(parent: string, name: string): string {
    return path.relative(this.options.root, path.join(parent, name)).split(path.sep).join('/');
  }

  /** Compares `file` once no event for it came for {@link QUIET_MS}. */
  private checkWhenQuiet(file: string): void {
    const pending = this.quieting.get(file);
    if (pending) {
      pending.timer.refresh();
      return;
    }
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const timer = setTimeout(() => {
      this.quieting.delete(file);
      this.check(file);
      done();
    }, QUIET_MS);
    this.quieting.set(file, { timer, done, finished });
  }

  private check(file: string): void {
    const previous = this.checks.get(file) ?? Promise.resolve();
    const next = previous.then(() => this.compare(file));
    this.checks.set(file, next);
    void next.finally(() => {
      if (this.checks.get(file) === next) this.checks.delete(file);
    });
  }

  private async compare(file: string): Promise<void> {
    const absolute = path.join(this.options.root, file);
    let info;
    try {
      info = await stat(absolute);
    } catch {
      info = undefined;
    }
    if (info?.isDirectory()) {
      // A new folder (or one moved in): watch it, then look at files written before its watch began.
      await this.watchTree(file);
      await this.scan(file, true);
      return;
    }
    if (this.watchers.has(file) && !this.options.folders.includes(file)) this.unwatch(file);
    const hash = info ? await hashFile(absolute) : undefined;
    const known = this.hashes.get(file);
    if (hash === undefined && known === undefined) {
      // Gone, and never a file we knew: perhaps a folder, whose files went with it.
      const prefix = `${file}/`;
      for (const below of [...this.hashes.keys()]) if (below.startsWith(prefix)) this.check(below);
      return;
    }
    if (hash === known) return;
    if (hash === undefined) this.hashes.delete(file);
    else this.hashes.set(file, hash);
    if (!this.closed) this.options.onChange(file);
  }

  /** Records the hash of every file below `folder`; with `report`, reports those that changed. */
  private async scan(folder: string, report = false): Promise<void> {
    let entries;
    try {
      entries = await readdir(path.join(this.options.root, folder), { recursive: true, withFileTypes: true });
    } catch {
      return;
    }
    const seen = new Set<string>();
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const file = this.relative(entryParent(entry), entry.name);
      seen.add(file);
      if (report) this.check(file);
      else {
        const hash = await hashFile(path.join(this.options.root, file));
        if (hash !== undefined) this.hashes.set(file, hash);
      }
    }
    if (report) {
      // Files that were below the folder and are gone (a folder renamed away or deleted).
      const prefix = `${folder}/`;
      for (const file of [...this.hashes.keys()]) if (file.startsWith(prefix) && !seen.has(file)) this.check(file);
    }
  }
}

/** The folder of a `readdir` entry (`parentPath` since Node 20.12, `path` before). */
function entryParent(entry: Dirent): string {
  return (entry as { parentPath?: string; path?: string }).parentPath ?? (entry as { path?: string }).path ?? '';
}

async function isDirectory(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isDirectory();
  } catch {
    return false;
  }
}

async function hashFile(absolute: string): Promise<string | undefined> {
  try {
    return createHash('sha1')
      .update(await readFile(absolute))
      .digest('hex');
  } catch {
    return undefined;
  }
}
