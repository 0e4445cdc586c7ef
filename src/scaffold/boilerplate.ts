import { KopError } from '../base/index.js';
import { commentSyntaxFor } from './comment-syntax.js';
import type { VirtualTree } from './tree.js';

/** Where a project keeps its license header, as plain text lines (written by `kop init`). */
export const BOILERPLATE_FILE = 'hack/boilerplate.txt';

/**
 * The boilerplate lines as a comment block in `filePath`'s syntax, followed by a blank
 * line, ready to put at the top of a scaffolded file; '' when there are no lines.
 */
export function boilerplateComment(filePath: string, lines: readonly string[]): string {
  const content = lines.filter((line) => line.trim() !== '');
  if (content.length === 0) return '';
  const syntax = commentSyntaxFor(filePath);
  if (!syntax) throw new KopError(`${filePath} cannot hold a license header: kop knows no comment syntax for it`);
  const commented = syntax.line
    ? content.map((line) => `${syntax.line} ${line}`)
    : [syntax.block![0], ...content, syntax.block![1]];
  return commented.join('\n') + '\n\n';
}

/** Reads the project's hack/boilerplate.txt and formats it for `filePath`; '' when the file is absent. */
export async function loadBoilerplate(tree: VirtualTree, filePath: string): Promise<string> {
  const text = await tree.read(BOILERPLATE_FILE);
  return text === undefined ? '' : boilerplateComment(filePath, text.split('\n'));
}
