/**
 * Generated files that a generator no longer produces, because their kind or version was
 * removed from the API types. Left behind they would break the build (a client importing a
 * deleted types file) or install a CRD nobody serves, so the generator stages their deletion.
 * Only files that carry kop's generated header are touched; anything a user wrote stays.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isGenerated, type VirtualTree } from '../scaffold/index.js';
import { listSourceFiles } from '../markers/index.js';

/**
 * Stages the removal of every generated file under `dir` (project-relative, searched
 * recursively) whose name `accept`s and that this run has not written; returns their paths.
 * `recorded` is PROJECT's list of the files kop generated for this project: when there is one,
 * only files on it are removed (a project from before the list falls back on the header alone).
 */
export async function removeLeftoverGeneratedFiles(
  tree: VirtualTree,
  dir: string,
  accept: (fileName: string) => boolean,
  recorded: readonly string[] | undefined,
): Promise<string[]> {
  const mine = recorded === undefined ? undefined : new Set(recorded);
  const written = new Set(tree.files());
  const removed: string[] = [];
  for (const file of await listSourceFiles(path.join(tree.root, dir), accept)) {
    const relative = path.relative(tree.root, file).split(path.sep).join('/');
    if (written.has(relative)) continue;
    if (mine && !mine.has(relative)) continue;
    if (!isGenerated(await fs.readFile(file, 'utf8'))) continue;
    tree.remove(relative);
    removed.push(relative);
  }
  return removed.sort();
}
