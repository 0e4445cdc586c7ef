import { PROJECT_FILE } from '../project/index.js';
import { isGenerated, mergeLines } from '../scaffold/index.js';
import { mergePackageJson } from './merge-package-json.js';
import { isBinary, type Snapshot } from './replay.js';

/** What the merge does with one file; `content` undefined means the file is removed. */
export type FileOutcome =
  /** Only kop changed it (or added it): kop's version is taken. */
  | { path: string; outcome: 'taken' | 'added' | 'removed'; content: Buffer | undefined }
  /** A generated file both changed: kop's version now, `kop generate` rewrites it after the merge. */
  | { path: string; outcome: 'regenerated'; content: Buffer }
  /** Both changed it, on different lines. */
  | { path: string; outcome: 'merged'; content: Buffer }
  /** Both changed the same lines: the content holds conflict markers (none for a binary file or a removal, which keep yours). */
  | { path: string; outcome: 'conflict'; content: Buffer | undefined; conflicts: number; reason?: string }
  /** kop changed it but yours is kept: you removed it, or it is a generated file kop no longer scaffolds. */
  | { path: string; outcome: 'kept'; reason: string };

/** npm's manifest, merged by keys ({@link mergePackageJson}) rather than by lines. */
export const PACKAGE_JSON = 'package.json';
/**
 * npm's lockfiles: never merged (text merged lockfiles are conflicts or lies); npm writes them anew
 * from the merged package.json after the merge (see run-alpha-update.ts).
 */
export const LOCKFILES: ReadonlySet<string> = new Set(['package-lock.json', 'npm-shrinkwrap.json']);

const equal = (a: Buffer | undefined, b: Buffer | undefined): boolean =>
  a === undefined ? b === undefined : b !== undefined && a.equals(b);

/**
 * The three-way merge of a project (ours) with what kop scaffolded before (base) and scaffolds
 * now (theirs), per file: a file kop did not change is left as it is; one only kop changed takes
 * kop's version; one both changed is merged line by line ({@link mergeLines}), with conflict
 * markers labelled `ours` and `theirsLabel` where both changed the same lines; package.json is
 * merged by keys instead ({@link mergePackageJson}). Generated files (kop's DO NOT EDIT header)
 * are not merged: kop's version is taken and regenerated afterwards. PROJECT and npm's lockfiles
 * are left to the caller. Files neither kop scaffolded are not looked at.
 */
export async function mergeProject(
  base: Snapshot,
  theirs: Snapshot,
  readOurs: (file: string) => Promise<Buffer | undefined>,
  theirsLabel: string,
): Promise<FileOutcome[]> {
  const outcomes: FileOutcome[] = [];
  const paths = [...new Set([...base.keys(), ...theirs.keys()])]
    .filter((file) => file !== PROJECT_FILE && !LOCKFILES.has(file))
    .sort();
  for (const file of paths) {
    const b = base.get(file);
    const t = theirs.get(file);
    const o = await readOurs(file);
    if (equal(b, t)) {
      // A generated file differs from the scaffold's whenever the project's types do: kop generate's business, not news.
      const generated = b !== undefined && !isBinary(b) && isGenerated(b.toString('utf8'));
      if (!equal(o, b) && !generated)
        outcomes.push({
          path: file,
          outcome: 'kept',
          reason: o === undefined ? 'you removed it' : 'your changes; the scaffold did not change',
        });
      continue;
    }
    if (equal(o, t)) continue;
    if (equal(o, b)) {
      outcomes.push({
        path: file,
        outcome: t === undefined ? 'removed' : o === undefined ? 'added' : 'taken',
        content: t,
      });
      continue;
    }
    if (o === undefined) {
      outcomes.push({
        path: file,
        outcome: 'kept',
        reason: `you removed it; kop ${theirsLabel.replace(/^kop /, '')} changed it`,
      });
      continue;
    }
    if (t === undefined) {
      // A generated file is kop generate's to remove (it removes the outputs it recorded once their source is gone).
      if (isGenerated(o.toString('utf8')))
        outcomes.push({
          path: file,
          outcome: 'kept',
          reason: 'generated; kop generate removes it when nothing generates it any more',
        });
      else
        outcomes.push({
          path: file,
          outcome: 'conflict',
          content: undefined,
          conflicts: 1,
          reason: `${theirsLabel} no longer scaffolds it, and you changed it: it is kept`,
        });
      continue;
    }
    if (isBinary(o) || isBinary(t) || (b !== undefined && isBinary(b))) {
      outcomes.push({
        path: file,
        outcome: 'conflict',
        content: undefined,
        conflicts: 1,
        reason: `binary file changed by you and by ${theirsLabel}: yours is kept`,
      });
      continue;
    }
    const theirsText = t.toString('utf8');
    if (isGenerated(theirsText) || isGenerated(o.toString('utf8'))) {
      outcomes.push({ path: file, outcome: 'regenerated', content: t });
      continue;
    }
    const labels = { ours: 'ours', theirs: theirsLabel };
    if (file === PACKAGE_JSON) {
      const json = mergePackageJson(b?.toString('utf8') ?? '', o.toString('utf8'), theirsText, labels);
      if (json !== undefined) {
        const content = Buffer.from(json.text, 'utf8');
        if (json.conflicts.length > 0)
          outcomes.push({
            path: file,
            outcome: 'conflict',
            content,
            conflicts: json.conflicts.length,
            reason: `${json.conflicts.length === 1 ? 'a key' : `${json.conflicts.length} keys`} you and ${theirsLabel} both changed: ${json.conflicts.join(', ')}`,
          });
        else outcomes.push({ path: file, outcome: 'merged', content });
        continue;
      }
    }
    const merged = mergeLines(b?.toString('utf8') ?? '', o.toString('utf8'), theirsText, labels);
    const content = Buffer.from(merged.text, 'utf8');
    if (merged.conflicts > 0) outcomes.push({ path: file, outcome: 'conflict', content, conflicts: merged.conflicts });
    else outcomes.push({ path: file, outcome: 'merged', content });
  }
  return outcomes;
}
