import { KopError } from '../base/index.js';
import { commentSyntaxFor } from './comment-syntax.js';
import type { VirtualTree } from './tree.js';

/** One fragment to place before the `+kop:scaffold:<marker>` comment of a file. */
export interface Insertion {
  /** Marker name: `imports` matches `// +kop:scaffold:imports`. */
  marker: string;
  /** Code to insert, one or more lines, without the marker's indentation. */
  code: string;
}

/** The marker comment as it appears in a file of that kind, e.g. `// +kop:scaffold:imports`. */
export function markerComment(filePath: string, marker: string): string {
  const syntax = commentSyntaxFor(filePath);
  if (!syntax?.line) {
    throw new KopError(`kop cannot place scaffold markers in ${filePath}: the file type has no line comments`);
  }
  return `${syntax.line} +kop:scaffold:${marker}`;
}

/**
 * Inserts each fragment on the lines just before its marker, indented like the marker.
 * A fragment whose lines are already present in order (ignoring indentation) is
 * skipped, marker or not, so running a generator twice never duplicates wiring. A missing
 * marker where code must go is an error that says which line to add back.
 */
export function insertAtMarkers(
  filePath: string,
  content: string,
  insertions: readonly Insertion[],
): { content: string; changed: boolean } {
  let lines = content.split('\n');
  let changed = false;
  for (const insertion of insertions) {
    const marker = markerComment(filePath, insertion.marker);
    // Code already there needs no marker: a file from before the marker existed may hold it.
    const fragment = trimBlankEdges(insertion.code.split('\n'));
    if (fragment.length === 0 || containsInOrder(lines, fragment)) continue;
    const at = lines.findIndex((line) => line.trim() === marker);
    if (at === -1) {
      throw new KopError(
        `${filePath} has no \`${marker}\` marker, so kop cannot add its code there`,
        `add the line \`${marker}\` back where kop should insert code, then re-run`,
      );
    }
    const indent = /^\s*/.exec(lines[at]!)![0];
    const indented = fragment.map((line) => (line.trim() === '' ? '' : indent + line));
    lines = [...lines.slice(0, at), ...indented, ...lines.slice(at)];
    changed = true;
  }
  return { content: lines.join('\n'), changed };
}

/** Applies `insertAtMarkers` to a file in the tree; a file without changes is left unstaged. */
export async function insertIntoFile(
  tree: VirtualTree,
  filePath: string,
  insertions: readonly Insertion[],
): Promise<boolean> {
  const current = await tree.read(filePath);
  if (current === undefined) {
    throw new KopError(
      `cannot insert into ${filePath}: the file does not exist`,
      'restore it or re-run `kop init --force`',
    );
  }
  const result = insertAtMarkers(filePath, current, insertions);
  if (result.changed) await tree.update(filePath, () => result.content, 'inserted');
  return result.changed;
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start++;
  while (end > start && lines[end - 1]!.trim() === '') end--;
  return lines.slice(start, end);
}

/** True when `fragment`'s non-blank lines appear consecutively in `lines` (trimmed). */
function containsInOrder(lines: readonly string[], fragment: readonly string[]): boolean {
  const want = fragment.map((line) => line.trim()).filter((line) => line !== '');
  const have = lines.map((line) => line.trim()).filter((line) => line !== '');
  outer: for (let i = 0; i + want.length <= have.length; i++) {
    for (let j = 0; j < want.length; j++) if (have[i + j] !== want[j]) continue outer;
    return true;
  }
  return false;
}
