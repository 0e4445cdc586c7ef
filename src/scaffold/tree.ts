import { lstatSync, promises as fs, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { FileExistsError, KopError } from '../base/index.js';

/** How kop treats a file it writes (see conventions: generated, scaffolded, inserted). */
export type FileKind = 'generated' | 'scaffolded' | 'inserted';

/** What flushing the tree does to one file. */
export type ChangeAction = 'create' | 'update' | 'delete' | 'skip' | 'unchanged';

export interface PlannedChange {
  path: string;
  action: ChangeAction;
  kind: FileKind;
  /** Why a file is skipped, for the plan. */
  reason?: string;
}

interface StagedFile {
  /** undefined: the file is to be deleted (see `remove`). */
  content: string | undefined;
  /** The bytes of a binary file (see `writeBinary`); `content` is then undefined. */
  bytes?: Uint8Array;
  kind: FileKind;
  mode?: number;
  skipReason?: string;
}

export interface WriteOptions {
  kind?: FileKind;
  /** File mode for new files, e.g. 0o755 for scripts. */
  mode?: number;
}

export interface ScaffoldOptions {
  /** Overwrite a file that exists on disk. */
  force?: boolean;
  /** When the file exists and force is off: 'error' stops the command, 'skip' keeps the user's file. */
  ifExists?: 'error' | 'skip';
  mode?: number;
}

/** The file operations `flush` uses; tests pass one that fails part-way to prove the rollback. */
export interface FlushFileSystem {
  mkdir(dir: string, options: { recursive: true }): Promise<unknown>;
  writeFile(file: string, content: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  rm(file: string, options: { force: true; recursive?: boolean }): Promise<void>;
}

/** The project file is written last: a project whose other files failed to land keeps its old PROJECT. */
const WRITTEN_LAST = 'PROJECT';

/**
 * An in-memory overlay over a directory. Generators read and write here; nothing
 * touches the disk until `flush()`, so a failure anywhere leaves the project as it was
 * and `--dry-run` can print the plan without writing.
 */
export class VirtualTree {
  private readonly staged = new Map<string, StagedFile>();
  private readonly diskCache = new Map<string, string | undefined>();
  /** The project root with its links resolved, looked up once per tree. */
  private realRoot: string | undefined;

  constructor(
    readonly root: string,
    private readonly fileSystem: FlushFileSystem = fs,
  ) {}

  /**
   * Refuses a path that leaves the project through a symbolic link (a `config/crd/bases` linked to
   * another project's folder): the nearest existing part of the path must resolve inside the root.
   * `resolved` holds the paths looked up so far in one plan: the files of a folder share its lookups.
   */
  private checkResolvesInside(key: string, resolved: Map<string, string | undefined>): void {
    this.realRoot ??= realpathSync.native(this.root);
    const root = this.realRoot;
    let current = path.join(this.root, key);
    for (;;) {
      let real = resolved.get(current);
      if (!resolved.has(current)) {
        real = realpathOrMissing(current);
        resolved.set(current, real);
      }
      if (real !== undefined) {
        const relative = path.relative(root, real);
        if (relative.startsWith('..') || path.isAbsolute(relative)) {
          throw new KopError(
            `refusing to touch ${key}: it resolves to ${real}, outside the project (through a symbolic link)`,
            'replace the link with a real folder inside the project',
          );
        }
        return;
      }
      const parent = path.dirname(current);
      if (parent === current) return;
      current = parent;
    }
  }

  /** Normalises a project-relative path and refuses ones that leave the root. */
  private key(file: string): string {
    const absolute = path.resolve(this.root, file);
    const relative = path.relative(this.root, absolute);
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
      throw new KopError(`refusing to write outside the project: ${file}`);
    }
    return relative.split(path.sep).join('/');
  }

  private async readDisk(key: string): Promise<string | undefined> {
    if (this.diskCache.has(key)) return this.diskCache.get(key);
    let content: string | undefined;
    try {
      // Synchronous, as the lookups of checkResolvesInside: a plan reads every staged file, and the
      // promise API hands each open, stat, read and close to libuv's thread pool and back, which
      // costs several times the read itself (these are small files).
      content = readFileSync(path.join(this.root, key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      content = undefined;
    }
    this.diskCache.set(key, content);
    return content;
  }

  /** The file's content as the tree sees it: staged content first, then disk. A staged binary file cannot be read as text. */
  async read(file: string): Promise<string | undefined> {
    const key = this.key(file);
    const staged = this.staged.get(key);
    if (staged?.bytes !== undefined) throw new KopError(`cannot read ${key} as text: it is a binary file`);
    if (staged && staged.skipReason === undefined) return staged.content;
    return this.readDisk(key);
  }

  async exists(file: string): Promise<boolean> {
    const staged = this.staged.get(this.key(file));
    if (staged?.bytes !== undefined) return true;
    return (await this.read(file)) !== undefined;
  }

  /** True when the file exists on disk, ignoring anything staged. */
  async existsOnDisk(file: string): Promise<boolean> {
    return (await this.readDisk(this.key(file))) !== undefined;
  }

  /**
   * Stages the deletion of a generated file that no generator produces any more (its kind or
   * version was removed). Only files kop generated are removed this way; callers check the header.
   */
  remove(file: string): void {
    this.staged.set(this.key(file), { content: undefined, kind: 'generated' });
  }

  /** Stages content for a file, replacing whatever was staged or on disk. */
  write(file: string, content: string, options: WriteOptions = {}): void {
    this.staged.set(this.key(file), { content, kind: options.kind ?? 'generated', mode: options.mode });
  }

  /**
   * Stages a binary file kop generates (such as a packed tarball), compared byte for byte with
   * the disk, so writing the same bytes again is no change.
   */
  writeBinary(file: string, bytes: Uint8Array, options: WriteOptions = {}): void {
    this.staged.set(this.key(file), {
      content: undefined,
      bytes,
      kind: options.kind ?? 'generated',
      mode: options.mode,
    });
  }

  /**
   * Stages a file the user will own. An existing file is an error (or kept, with
   * `ifExists: 'skip'`) unless `force` is set.
   */
  async scaffold(file: string, content: string, options: ScaffoldOptions = {}): Promise<void> {
    const key = this.key(file);
    const existing = await this.read(key);
    if (existing !== undefined && !options.force) {
      if (options.ifExists === 'skip') {
        if (!this.staged.has(key)) {
          this.staged.set(key, { content: existing, kind: 'scaffolded', skipReason: 'exists' });
        }
        return;
      }
      throw new FileExistsError(key);
    }
    this.staged.set(key, { content, kind: 'scaffolded', mode: options.mode });
  }

  /** Rewrites a file through `edit`; the file must exist in the tree. */
  async update(file: string, edit: (content: string) => string, kind: FileKind = 'inserted'): Promise<void> {
    const key = this.key(file);
    const current = await this.read(key);
    if (current === undefined) throw new KopError(`cannot update ${key}: the file does not exist`);
    const previous = this.staged.get(key);
    this.staged.set(key, { content: edit(current), kind: previous?.kind ?? kind, mode: previous?.mode });
  }

  /** The staged files with content to write (not skipped, not deleted) that `select` picks. */
  stagedFiles(select: (file: string, kind: FileKind) => boolean): string[] {
    return [...this.staged]
      .filter(([key, file]) => file.content !== undefined && file.skipReason === undefined && select(key, file.kind))
      .map(([key]) => key);
  }

  /**
   * Rewrites the content of every staged file `select` picks (skipped and deleted files never),
   * e.g. to format what was scaffolded before it is planned and written.
   */
  async rewriteStaged(
    select: (file: string, kind: FileKind) => boolean,
    rewrite: (file: string, content: string) => Promise<string>,
  ): Promise<void> {
    for (const [key, file] of this.staged) {
      if (file.content === undefined || file.skipReason !== undefined || !select(key, file.kind)) continue;
      file.content = await rewrite(key, file.content);
    }
  }

  /**
   * The changes `flush()` would make, sorted by path. Fails for a path that would write or delete
   * outside the project through a symbolic link, so `--dry-run` already says so.
   */
  async plan(): Promise<PlannedChange[]> {
    const changes: PlannedChange[] = [];
    const resolved = new Map<string, string | undefined>();
    for (const [key, file] of this.staged) {
      const onDisk = await this.readDisk(key);
      let action: ChangeAction;
      if (file.bytes !== undefined)
        action =
          onDisk === undefined ? 'create' : (await this.sameBytesOnDisk(key, file.bytes)) ? 'unchanged' : 'update';
      else if (file.skipReason !== undefined) action = 'skip';
      else if (file.content === undefined) action = onDisk === undefined ? 'unchanged' : 'delete';
      else if (onDisk === undefined) action = 'create';
      else if (onDisk === file.content) action = 'unchanged';
      else action = 'update';
      if (action === 'create' || action === 'update' || action === 'delete') this.checkResolvesInside(key, resolved);
      changes.push({ path: key, action, kind: file.kind, reason: file.skipReason });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** True when the file on disk holds exactly `bytes`. */
  private async sameBytesOnDisk(key: string, bytes: Uint8Array): Promise<boolean> {
    try {
      return Buffer.from(bytes).equals(await fs.readFile(path.join(this.root, key)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return false;
    }
  }

  /** What a staged file holds on disk now and after the flush (undefined: absent); binary files show as a placeholder. */
  async contents(file: string): Promise<{ before: string | undefined; after: string | undefined }> {
    const key = this.key(file);
    const staged = this.staged.get(key);
    const before = await this.readDisk(key);
    if (staged?.bytes !== undefined)
      return { before: before === undefined ? undefined : '(binary)', after: '(binary)' };
    return { before, after: staged && staged.skipReason === undefined ? staged.content : before };
  }

  /** Paths staged so far, relative to the root. */
  files(): string[] {
    return [...this.staged.keys()].sort();
  }

  /**
   * Writes every created or updated file and deletes removed ones, all or nothing: new contents go
   * to temporary files beside their targets first, then are renamed over them (PROJECT last);
   * when any step fails, what was already renamed or deleted is put back as it was, folders kop
   * created are removed, and the error is rethrown. Call only after every generator succeeded.
   */
  async flush(): Promise<PlannedChange[]> {
    const changes = await this.plan();
    const writes = changes.filter((c) => c.action === 'create' || c.action === 'update');
    writes.sort((a, b) => Number(a.path === WRITTEN_LAST) - Number(b.path === WRITTEN_LAST));
    const deletes = changes.filter((c) => c.action === 'delete');
    // Short temporary names beside each target, numbered per change: a name derived from the
    // target's would push a long file name (up to 255 bytes is allowed) past the limit.
    const prefix = `.kop-${process.pid}-${Date.now().toString(36)}-`;
    const numbers = new Map([...writes, ...deletes].map((change, index) => [change.path, index]));
    const target = (change: PlannedChange): string => path.join(this.root, change.path);
    const temporary = (change: PlannedChange, ending: string): string =>
      path.join(path.dirname(target(change)), `${prefix}${numbers.get(change.path)!}${ending}`);
    const fresh = (change: PlannedChange): string => temporary(change, '.new');
    const previous = (change: PlannedChange): string => temporary(change, '.old');
    const createdDirs: string[] = [];
    const lookedUp = new Set<string>();
    // Files whose original was moved aside (updates, deletions), and files whose new content is in place.
    const movedAside: PlannedChange[] = [];
    const placed: PlannedChange[] = [];
    try {
      for (const change of writes) {
        for (
          let dir = path.dirname(target(change));
          dir.startsWith(this.root) && dir !== this.root;
          dir = path.dirname(dir)
        ) {
          // A folder met before was looked up with all of its parents then.
          if (lookedUp.has(dir)) break;
          lookedUp.add(dir);
          if (!pathExists(dir)) createdDirs.push(dir);
        }
        await this.fileSystem.mkdir(path.dirname(target(change)), { recursive: true });
        const file = this.staged.get(change.path)!;
        await this.fileSystem.writeFile(
          fresh(change),
          file.bytes ?? file.content ?? '',
          file.mode === undefined ? undefined : { mode: file.mode },
        );
        // The new file replaces the old one, so it takes over the old one's permissions.
        if (change.action === 'update' && file.mode === undefined)
          await fs.chmod(fresh(change), (await fs.stat(target(change))).mode & 0o7777);
      }
      for (const change of [...deletes, ...writes]) {
        if (change.action !== 'create') {
          await this.fileSystem.rename(target(change), previous(change));
          movedAside.push(change);
        }
        if (change.action !== 'delete') {
          await this.fileSystem.rename(fresh(change), target(change));
          placed.push(change);
        }
      }
    } catch (error) {
      // Best effort, newest first, so the original error is what the user sees.
      for (const change of [...placed].reverse()) await fs.rm(target(change), { force: true }).catch(() => undefined);
      for (const change of [...movedAside].reverse())
        await fs.rename(previous(change), target(change)).catch(() => undefined);
      for (const change of writes) await fs.rm(fresh(change), { force: true }).catch(() => undefined);
      for (const dir of createdDirs.sort((a, b) => b.length - a.length)) await fs.rmdir(dir).catch(() => undefined);
      throw error;
    }
    for (const change of movedAside) await fs.rm(previous(change), { force: true });
    for (const change of [...writes, ...deletes]) {
      const file = this.staged.get(change.path)!;
      // A binary file is compared byte for byte on the next plan; its text cache is dropped.
      if (file.bytes !== undefined) this.diskCache.delete(change.path);
      else this.diskCache.set(change.path, change.action === 'delete' ? undefined : file.content);
    }
    return changes;
  }
}

/**
 * The path with its links resolved, or undefined when it (or a folder on the way) does not exist.
 * Synchronous: one realpath(3) call, where the promise API's round trip through libuv's thread pool
 * cost more than three times as much CPU (a plan looks up every new file and its folders).
 */
function realpathOrMissing(file: string): string | undefined {
  try {
    return realpathSync.native(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    return undefined;
  }
}

/** Synchronous, as realpathOrMissing: a flush looks up the folders of every file it writes. */
function pathExists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
