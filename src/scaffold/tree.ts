import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FileExistsError, KopError } from '../base/errors.js';

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

/**
 * An in-memory overlay over a directory. Generators read and write here; nothing
 * touches the disk until `flush()`, so a failure anywhere leaves the project as it was
 * and `--dry-run` can print the plan without writing.
 */
export class VirtualTree {
  private readonly staged = new Map<string, StagedFile>();
  private readonly diskCache = new Map<string, string | undefined>();

  constructor(readonly root: string) {}

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
      content = await fs.readFile(path.join(this.root, key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      content = undefined;
    }
    this.diskCache.set(key, content);
    return content;
  }

  /** The file's content as the tree sees it: staged content first, then disk. */
  async read(file: string): Promise<string | undefined> {
    const key = this.key(file);
    const staged = this.staged.get(key);
    if (staged && staged.skipReason === undefined) return staged.content;
    return this.readDisk(key);
  }

  async exists(file: string): Promise<boolean> {
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

  /** The changes `flush()` would make, sorted by path. */
  async plan(): Promise<PlannedChange[]> {
    const changes: PlannedChange[] = [];
    for (const [key, file] of this.staged) {
      const onDisk = await this.readDisk(key);
      let action: ChangeAction;
      if (file.skipReason !== undefined) action = 'skip';
      else if (file.content === undefined) action = onDisk === undefined ? 'unchanged' : 'delete';
      else if (onDisk === undefined) action = 'create';
      else if (onDisk === file.content) action = 'unchanged';
      else action = 'update';
      changes.push({ path: key, action, kind: file.kind, reason: file.skipReason });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** Paths staged so far, relative to the root. */
  files(): string[] {
    return [...this.staged.keys()].sort();
  }

  /** Writes every created or updated file and deletes removed ones. Call only after every generator succeeded. */
  async flush(): Promise<PlannedChange[]> {
    const changes = await this.plan();
    for (const change of changes) {
      if (change.action === 'delete') {
        await fs.rm(path.join(this.root, change.path), { force: true });
        this.diskCache.set(change.path, undefined);
        continue;
      }
      if (change.action !== 'create' && change.action !== 'update') continue;
      const file = this.staged.get(change.path)!;
      const target = path.join(this.root, change.path);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, file.content ?? '', file.mode === undefined ? undefined : { mode: file.mode });
      this.diskCache.set(change.path, file.content);
    }
    return changes;
  }
}
