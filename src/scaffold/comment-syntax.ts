import * as path from 'node:path';

/** How to write a comment in one kind of file. */
export interface CommentSyntax {
  /** Starts a line comment, e.g. `//` or `#`. */
  line?: string;
  /** Opens and closes a block comment, for files without line comments (Markdown, HTML). */
  block?: [open: string, close: string];
}

const SLASHES: CommentSyntax = { line: '//' };
const HASH: CommentSyntax = { line: '#' };
const HTML: CommentSyntax = { block: ['<!--', '-->'] };

const BY_EXTENSION: Record<string, CommentSyntax> = {
  '.ts': SLASHES,
  '.mts': SLASHES,
  '.cts': SLASHES,
  '.tsx': SLASHES,
  '.js': SLASHES,
  '.mjs': SLASHES,
  '.cjs': SLASHES,
  '.jsx': SLASHES,
  '.go': SLASHES,
  '.yaml': HASH,
  '.yml': HASH,
  '.sh': HASH,
  '.toml': HASH,
  '.md': HTML,
  '.html': HTML,
};

/** Files known by their whole name rather than an extension. */
const BY_NAME: Record<string, CommentSyntax> = {
  Dockerfile: HASH,
  Containerfile: HASH,
  Makefile: HASH,
  PROJECT: HASH,
  '.gitignore': HASH,
  '.dockerignore': HASH,
  '.npmignore': HASH,
  '.env': HASH,
};

/**
 * The comment syntax of a file, chosen by name then extension; undefined for files
 * that cannot hold comments (JSON, LICENSE text), which therefore get no header.
 */
export function commentSyntaxFor(filePath: string): CommentSyntax | undefined {
  const base = path.posix.basename(filePath.split(path.sep).join('/'));
  if (BY_NAME[base]) return BY_NAME[base];
  if (base.startsWith('Dockerfile.') || base.endsWith('.Dockerfile')) return HASH;
  return BY_EXTENSION[path.extname(base).toLowerCase()];
}

/** `text` as a one-line comment in the file's syntax, or undefined when it has none. */
export function commentLine(filePath: string, text: string): string | undefined {
  const syntax = commentSyntaxFor(filePath);
  if (!syntax) return undefined;
  if (syntax.line) return `${syntax.line} ${text}`;
  const [open, close] = syntax.block!;
  return `${open} ${text} ${close}`;
}
