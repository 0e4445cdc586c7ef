// The contributors' architecture page opens with a map of the folders; a folder added, renamed or
// removed must show on it, or the map misleads the next person.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const page = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
/** The map: the page's first fenced block. */
const map = page.split('```')[1] ?? '';

function foldersOf(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** The text of the map's entry that starts with `head` (its first line and the indented lines after it). */
function entryOf(head: string): string {
  const lines = map.split('\n');
  const start = lines.findIndex((line) => line.startsWith(head));
  if (start < 0) return '';
  const end = lines.findIndex((line, i) => i > start && line !== '' && !line.startsWith(' '));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe('the architecture page', () => {
  it('names every folder of src/, and no other', () => {
    const named = [...new Set([...map.matchAll(/(?<![\w/.])src\/([a-z-]+)\//g)].map((m) => m[1]!))].sort();
    expect(named).toEqual(foldersOf('src'));
  });

  it("names every folder of kop/runtime in the runtime's entry, and no other", () => {
    const entry = entryOf('src/runtime/');
    const named = [...new Set([...entry.matchAll(/(?<![\w/])([a-z-]+)\/(?=[\s,)]|$)/gm)].map((m) => m[1]!))]
      .filter((name) => name !== 'runtime')
      .sort();
    expect(named).toEqual(foldersOf('src/runtime'));
  });

  it('names only top-level folders that exist', () => {
    const named = [...map.matchAll(/^([a-z]+)\/ /gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(3);
    const present = foldersOf('.');
    expect(named.filter((name) => !present.includes(name))).toEqual([]);
  });
});
