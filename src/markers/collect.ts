/**
 * Marker collection, the one every generator uses (as controller-tools' markers.Collector
 * serves the CRD, rbac and webhook generators alike): finding a project's TypeScript sources
 * and the marker lines in their comments. The schema pipeline walks api/ for types (their
 * comments are read with the TypeScript program, which knows what each comment is attached
 * to); the rbac and webhook generators walk src/ for `+kubebuilder:rbac:` /
 * `+kubebuilder:webhook:` lines, which are plain comment text and need no program. What is
 * found is parsed with the one registry (registry.ts), and `parseEach` (errors.ts) reports
 * every bad marker at once.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadTsMorph } from '../base/index.js';
import type { SourceLocation } from './errors.js';

/** Every file under `dir` (recursively, skipping node_modules) whose name `accept`s; [] when `dir` does not exist. */
export async function listSourceFiles(dir: string, accept: (fileName: string) => boolean): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') files.push(...(await listSourceFiles(full, accept)));
    } else if (accept(entry.name)) {
      files.push(full);
    }
  }
  return files;
}

/** A TypeScript source file that is not a declaration file. */
export function isTypeScriptSource(fileName: string): boolean {
  return fileName.endsWith('.ts') && !fileName.endsWith('.d.ts');
}

/** One marker line found in a comment: its text from the `+` on, and where it stands. */
export interface CommentMarker {
  text: string;
  location: SourceLocation;
}

/** The part of a `//` or `/* *` comment line after the comment syntax, or undefined for other lines. */
const COMMENT_LINE = /^\s*(?:\/\/+|\/?\*+)\s*(\+.*?)\s*(?:\*\/)?\s*$/;

/**
 * A line of a block comment as its author meant it: a star-slash would end the comment, so
 * TypeScript users escape it as `*\/`, and kop reads that back as the star-slash
 * itself, in descriptions and marker values alike. `//` comments hold a star-slash as it is and
 * keep their text unchanged.
 */
export function unescapeCommentClose(line: string): string {
  return line.replaceAll('*\\/', '*/');
}

/**
 * The comment lines of one file's text that start with one of `prefixes` (for example
 * `+kubebuilder:rbac:`), grouped by prefix, in line order. `file` is what locations name.
 */
export function commentMarkersInText(
  text: string,
  file: string,
  prefixes: readonly string[],
): Map<string, CommentMarker[]> {
  const found = new Map<string, CommentMarker[]>(prefixes.map((prefix) => [prefix, []]));
  text.split('\n').forEach((line, index) => {
    const body = COMMENT_LINE.exec(line)?.[1];
    if (body === undefined) return;
    const marker = /^\s*\/\//.test(line) ? body : unescapeCommentClose(body);
    const prefix = prefixes.find((p) => marker.startsWith(p));
    if (prefix !== undefined) found.get(prefix)!.push({ text: marker, location: { file, line: index + 1 } });
  });
  return found;
}

/**
 * Marker lines starting with one of `prefixes` in `<root>/<sourceDir>/**\/*.ts`, grouped by
 * prefix, in file and line order; locations are root-relative with `/` separators. One walk
 * serves every prefix, so the rbac and webhook generators read src/ once between them.
 */
export async function collectCommentMarkers(
  root: string,
  prefixes: readonly string[],
  sourceDir = 'src',
): Promise<Map<string, CommentMarker[]>> {
  const files = (await listSourceFiles(path.join(root, sourceDir), isTypeScriptSource)).sort();
  const found = new Map<string, CommentMarker[]>(prefixes.map((prefix) => [prefix, []]));
  const texts = await Promise.all(files.map((file) => fs.readFile(file, 'utf8')));
  files.forEach((file, i) => {
    const text = texts[i]!;
    if (!prefixes.some((prefix) => text.includes(prefix))) return;
    const relative = path.relative(root, file).split(path.sep).join('/');
    for (const [prefix, markers] of commentMarkersInText(text, relative, prefixes)) found.get(prefix)!.push(...markers);
  });
  return found;
}

/** A comment's start and end offsets in its file's text (TypeScript's CommentRange has these). */
export interface CommentSpan {
  pos: number;
  end: number;
}

/**
 * The placement rule for the markers of a declaration, the one every command applies (the
 * schema pipeline through comments.ts, `create webhook --conversion` through `declarationMarkers`):
 * the comments above a declaration, grouped as controller-gen groups Go comments (a group is a
 * run of comments with no blank line between them). `attached` is the doc group directly above
 * the node (no blank line between); `markerGroup` the closest other group above it, whose
 * markers (not its text) also belong to the node, as Kubebuilder's scaffolds put
 * `+kubebuilder:object:root=true` in its own `//` group above the doc comment; `earlier` any
 * groups further up. `ranges` are the node's leading comments in order, `nodeStart` where its
 * first token starts.
 */
export function groupLeadingComments<R extends CommentSpan>(
  text: string,
  ranges: readonly R[],
  nodeStart: number,
): { attached: R[]; markerGroup: R[]; earlier: R[] } {
  const groups: R[][] = [];
  let next = nodeStart;
  let touchesNode = false;
  for (let i = ranges.length - 1; i >= 0; i--) {
    const range = ranges[i]!;
    const blankLineBetween = (text.slice(range.end, next).match(/\n/g) ?? []).length > 1;
    if (groups.length === 0) {
      groups.push([range]);
      touchesNode = !blankLineBetween;
    } else if (blankLineBetween) groups.push([range]);
    else groups[groups.length - 1]!.unshift(range);
    next = range.pos;
  }
  const attached = touchesNode ? (groups.shift() ?? []) : [];
  const markerGroup = groups.shift() ?? [];
  return { attached, markerGroup, earlier: groups.reverse().flat() };
}

/**
 * The marker lines of the top-level interface or type alias `name` in a types file's text, by
 * the placement rule of `groupLeadingComments` (its doc comment and the group right above it,
 * `//` lines or `/** *\/` blocks alike), in line order; undefined when the file declares no such
 * type. Locations name `file`. For commands that edit a types file before the schema pipeline
 * reads it, so that they find a marker wherever `kop generate` finds it.
 */
export async function declarationMarkers(
  text: string,
  file: string,
  name: string,
): Promise<CommentMarker[] | undefined> {
  const { ts } = loadTsMorph();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const declaration = source.statements.find(
    (s) => (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) && s.name.text === name,
  );
  if (declaration === undefined) return undefined;
  const ranges = ts.getLeadingCommentRanges(text, declaration.getFullStart()) ?? [];
  const { attached, markerGroup } = groupLeadingComments(text, ranges, declaration.getStart(source));
  const markers: CommentMarker[] = [];
  for (const range of [...markerGroup, ...attached]) {
    const firstLine = source.getLineAndCharacterOfPosition(range.pos).line;
    const lines = text.slice(range.pos, range.end).split('\n');
    const block = range.kind === ts.SyntaxKind.MultiLineCommentTrivia;
    lines.forEach((line, index) => {
      const marker = COMMENT_LINE.exec(line)?.[1];
      if (marker !== undefined)
        markers.push({
          text: block ? unescapeCommentClose(marker) : marker,
          location: { file, line: firstLine + index + 1 },
        });
    });
  }
  return markers;
}
