/**
 * Stage of the schema pipeline that reads comments: which comments belong to a declaration or a
 * property (its doc comment, and the group above it, as controller-gen groups Go comments), the
 * description and markers in them, and the markers no stage read, which attach to nothing and
 * are reported rather than dropped. The model builder (model.ts) asks it for each node.
 */
import type { ts as TypeScript } from 'ts-morph';
import { groupLeadingComments, unescapeCommentClose } from '../markers/index.js';
import { MarkerPlacementError } from './errors.js';
import { isMarkerLine, parseMarker, markerDefinition, type Marker, type MarkerTarget } from './markers.js';

/**
 * Doc text as controller-gen writes descriptions: lines kept, trailing spaces trimmed,
 * leading and trailing blank lines dropped, runs of blank lines reduced to one.
 */
export function normaliseDoc(lines: readonly string[]): string {
  const out: string[] = [];
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(trimmed);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** One line of a comment without its comment syntax: the opening slashes or star, a leading star, the closing star-slash. */
function commentLineText(line: string): string {
  return line
    .replace(/^\s*(\/\/\/?|\/\*\*?|\*)\s?/, '')
    .replace(/\*\/\s*$/, '')
    .trim();
}

/**
 * Where a marker line may start in a file's text: a `+` and a letter with only blanks and
 * comment punctuation before it on its line, or after a `//` or `/*`. A superset of the marker
 * lines of its comments (it finds them in strings too), which is all a quick check needs.
 */
const POSSIBLE_MARKER = /(?:^|\/\/|\/\*)[ \t/*]*\+[A-Za-z]/gm;

/**
 * True when every place in `text` that may be a marker line lies inside one of the `read`
 * comments (start -> end): then no comment that went unread holds a marker, and the walk over
 * every token that finds such comments is not needed (it costs more than the rest of reading a
 * megabyte types file).
 */
function everyMarkerLineIsIn(text: string, read: ReadonlyMap<number, number>): boolean {
  const starts = [...read.keys()].sort((a, b) => a - b);
  for (const match of text.matchAll(POSSIBLE_MARKER)) {
    const plus = match.index + match[0].length - 2;
    // The last read comment starting at or before the `+`.
    let low = 0;
    let high = starts.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (starts[middle]! <= plus) {
        found = middle;
        low = middle + 1;
      } else high = middle - 1;
    }
    if (found < 0 || read.get(starts[found]!)! <= plus) return false;
  }
  return true;
}

export class CommentReader {
  constructor(
    private readonly ts: typeof TypeScript,
    /** A source file's project-relative path, as locations name it. */
    private readonly relative: (absolute: string) => string,
    /** Runs a step, keeping a problem it throws for the run's report. */
    private readonly collect: (step: () => void) => void,
  ) {}

  /** Per file, the start and end of every comment read as a doc or for markers; any other comment's markers attach to nothing. */
  private readonly readComments = new Map<TypeScript.SourceFile, Map<number, number>>();

  markRead(sourceFile: TypeScript.SourceFile, ranges: readonly TypeScript.CommentRange[]): void {
    let read = this.readComments.get(sourceFile);
    if (!read) this.readComments.set(sourceFile, (read = new Map<number, number>()));
    for (const range of ranges) read.set(range.pos, range.end);
  }

  allCommentRanges(node: TypeScript.SourceFile): TypeScript.CommentRange[] {
    const ts = this.ts;
    const ranges: TypeScript.CommentRange[] = [];
    const seen = new Set<number>();
    const visit = (child: TypeScript.Node): void => {
      for (const range of ts.getLeadingCommentRanges(node.text, child.getFullStart()) ?? []) {
        if (!seen.has(range.pos)) {
          seen.add(range.pos);
          ranges.push(range);
        }
      }
    };
    for (const statement of node.statements) visit(statement);
    visit(node.endOfFileToken);
    return ranges;
  }

  /**
   * The comments above a node, grouped by the one placement rule (groupLeadingComments in
   * markers/collect.ts): `attached`, the doc group; `markerGroup`, the group above it whose
   * markers also belong to the node; `earlier`, groups further up (file headers; inside an
   * interface, markers that attach to nothing).
   */
  leadingComments(
    sourceFile: TypeScript.SourceFile,
    node: TypeScript.Node,
  ): {
    attached: TypeScript.CommentRange[];
    markerGroup: TypeScript.CommentRange[];
    earlier: TypeScript.CommentRange[];
  } {
    const ranges = this.ts.getLeadingCommentRanges(sourceFile.text, node.getFullStart()) ?? [];
    // The caller reads or refuses each of them; none is left for the sweep (refuseUnreadMarkers).
    this.markRead(sourceFile, ranges);
    return groupLeadingComments(sourceFile.text, ranges, node.getStart(sourceFile));
  }

  /** True when a comment range holds a marker line. */
  hasMarkerLine(sourceFile: TypeScript.SourceFile, range: TypeScript.CommentRange): boolean {
    return sourceFile.text
      .slice(range.pos, range.end)
      .split('\n')
      .some((line) => isMarkerLine(commentLineText(line)));
  }

  /** Reports the markers in `ranges`: such a marker attaches to nothing, and would otherwise be dropped silently. */
  refuseUnattachedMarkers(sourceFile: TypeScript.SourceFile, ranges: readonly TypeScript.CommentRange[]): void {
    for (const range of ranges) {
      if (!this.hasMarkerLine(sourceFile, range)) continue;
      this.collect(() => this.docAndMarkers(sourceFile, [range], 'package', undefined, { unattachedInside: true }));
    }
  }

  /**
   * The last word on markers that attach to nothing: every comment of the file that no stage
   * read — on the same line after a property (controller-gen skips those), on an enum member,
   * inside a type expression or a value — is reported when it holds a marker, one error per
   * marker line, so kop never drops a marker silently.
   */
  refuseUnreadMarkers(sourceFile: TypeScript.SourceFile): void {
    const ts = this.ts;
    const read = this.readComments.get(sourceFile) ?? new Map<number, number>();
    if (everyMarkerLineIsIn(sourceFile.text, read)) return;
    const seen = new Set<number>();
    const unread: TypeScript.CommentRange[] = [];
    const take = (ranges: TypeScript.CommentRange[] | undefined) => {
      for (const range of ranges ?? []) {
        if (seen.has(range.pos)) continue;
        seen.add(range.pos);
        if (!read.has(range.pos)) unread.push(range);
      }
    };
    // Every comment is leading trivia of some token, or trails one on its line.
    const visit = (node: TypeScript.Node): void => {
      take(ts.getLeadingCommentRanges(sourceFile.text, node.pos));
      take(ts.getTrailingCommentRanges(sourceFile.text, node.end));
      // JSDoc nodes lie inside a comment already taken whole; their text is not code.
      for (const child of node.getChildren(sourceFile))
        if (child.kind < ts.SyntaxKind.FirstJSDocNode || child.kind > ts.SyntaxKind.LastJSDocNode) visit(child);
    };
    visit(sourceFile);
    unread.sort((a, b) => a.pos - b.pos);
    const file = this.relative(sourceFile.fileName);
    for (const range of unread) {
      const firstLine = sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1;
      sourceFile.text
        .slice(range.pos, range.end)
        .split('\n')
        .forEach((line, index) => {
          const marker = commentLineText(line);
          if (!isMarkerLine(marker)) return;
          const location = { file, line: firstLine + index };
          this.collect(() => {
            // An unknown or malformed marker says so (with its nearest known name) before anything else.
            const name = parseMarker(marker, location).name;
            throw new MarkerPlacementError(
              location,
              `+${name}`,
              'this marker is not attached to a type or property (kop reads no markers after a property on its line, on enum members or inside a type expression)',
              'put it in the comment directly above the interface, type or property it belongs to, or in the comment group right above that one',
            );
          });
        });
    }
  }

  /** Splits comments into doc text and markers; `target` checks where each marker may go. */
  docAndMarkers(
    sourceFile: TypeScript.SourceFile,
    ranges: readonly TypeScript.CommentRange[],
    target: MarkerTarget,
    subject: string | undefined,
    options: { unattachedInside?: boolean; packageMarkers?: Marker[] } = {},
  ): { doc: string; markers: Marker[] } {
    const lines: string[] = [];
    const markers: Marker[] = [];
    this.markRead(sourceFile, ranges);
    for (const range of ranges) {
      const text = sourceFile.text.slice(range.pos, range.end);
      const firstLine = sourceFile.getLineAndCharacterOfPosition(range.pos).line + 1;
      const bodyLines =
        range.kind === this.ts.SyntaxKind.SingleLineCommentTrivia
          ? [text.replace(/^\/\/\/? ?/, '')]
          : text
              .replace(/^\/\*\*?/, '')
              .replace(/\*\/$/, '')
              .split('\n')
              .map((line, index) =>
                unescapeCommentClose(
                  (index === 0 ? line.replace(/^ /, '') : line.replace(/^\s*\* ?/, '')).replace(/^\s+$/, ''),
                ),
              );
      bodyLines.forEach((line, index) => {
        if (isMarkerLine(line)) {
          const location = { file: this.relative(sourceFile.fileName), line: firstLine + index };
          const marker = parseMarker(line, location);
          const definition = markerDefinition(marker.name)!;
          if (
            options.packageMarkers &&
            target === 'type' &&
            !definition.targets.includes('type') &&
            definition.targets.includes('package')
          ) {
            // In the group above a type's doc, a marker no type can carry is a package marker.
            options.packageMarkers.push(marker);
            return;
          }
          if (target === 'package') {
            if (!definition.targets.includes('package') || options.unattachedInside) {
              throw new MarkerPlacementError(
                location,
                `+${marker.name}`,
                'this marker is not attached to a type or property',
                'put it in the comment directly above the interface, type or property it belongs to, or in the comment group right above that one',
              );
            }
          } else if (!definition.targets.includes(target)) {
            const where = definition.targets.join(' or ');
            throw new MarkerPlacementError(
              location,
              subject ? `${subject} (+${marker.name})` : `+${marker.name}`,
              `this marker belongs on a ${where}, not on a ${target === 'type' ? 'type' : 'property'}`,
              definition.targets.includes('package')
                ? 'put package markers in the header of groupversion.ts, separated from the first declaration by a blank line'
                : `move it to the ${where === 'type' ? 'interface or type declaration' : where}`,
            );
          }
          if (!definition.ignored) markers.push(marker);
        } else {
          lines.push(line.trimEnd());
        }
      });
    }
    if (target !== 'package') {
      const seen = new Set<string>();
      for (const marker of markers) {
        if (
          seen.has(marker.name) &&
          !markerDefinition(marker.name)!.repeatable &&
          !markerDefinition(marker.name)!.idempotent
        ) {
          throw new MarkerPlacementError(
            marker.location,
            subject ? `${subject} (+${marker.name})` : `+${marker.name}`,
            'this marker appears twice here and is not repeatable',
            'write it once, with all its arguments',
          );
        }
        seen.add(marker.name);
      }
    }
    return { doc: target === 'package' ? '' : normaliseDoc(lines), markers };
  }
}
