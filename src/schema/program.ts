/**
 * Stage 1 of the schema pipeline: one program over every API file of the project (all
 * groups and versions at once), parsed with the TypeScript compiler that ts-morph
 * bundles. Only syntax trees are built: no default lib, no type checker, no JSDoc
 * nodes. Types are resolved by name across the API files and their relative imports
 * (see model.ts). Measured on 30 kinds, ts-morph's Project and node wrappers cost
 * about 200 ms cold against 40 ms for the bare parser and are not needed for a
 * read-only syntactic walk, so the program holds the compiler's SourceFiles directly;
 * the compiler is loaded lazily so the CLI starts without it.
 */
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ts as TypeScript } from 'ts-morph';
import { loadTsMorph } from '../base/index.js';
import { ApiSyntaxError } from './errors.js';
import { isTypeScriptSource, listSourceFiles } from '../markers/index.js';

/** The parsed API sources. */
export interface ApiProgram {
  /** The TypeScript compiler API that ts-morph bundles (for SyntaxKind and comment ranges). */
  ts: typeof TypeScript;
  /** Absolute project root. */
  root: string;
  /** The API files found under `api/`, sorted by path. */
  apiFiles: TypeScript.SourceFile[];
  /** A source file by absolute path, parsed on first request (relative imports outside api/). */
  fileAt(absolutePath: string): TypeScript.SourceFile | undefined;
}

/** Files under api/ that hold no API types: generated clients and apply configurations, tests, declarations. */
function isApiSource(file: string): boolean {
  return (
    isTypeScriptSource(file) &&
    !file.endsWith('.client.ts') &&
    !file.endsWith('.apply.ts') &&
    !file.endsWith('.test.ts')
  );
}

/**
 * The last parse of each file this process made, reused while its text is the same: `kop import
 * crd` parses the types it is about to write to check the round trip, then `kop generate` reads
 * them back; `kop dev` regenerates after every edit. Syntax trees are never changed after
 * parsing, so sharing one is safe; one entry per file keeps this bounded.
 */
const recentlyParsed = new Map<string, { text: string; sourceFile: TypeScript.SourceFile }>();

/**
 * Parses `<root>/<apiDir>/**\/*.ts` (default `api`). `files` replaces the directory walk
 * with an explicit list of absolute paths (tests use it for case folders); `sources` gives
 * the text of files by absolute path instead of reading them.
 */
export async function createApiProgram(
  root: string,
  options: { apiDir?: string; files?: string[]; sources?: ReadonlyMap<string, string> } = {},
): Promise<ApiProgram> {
  const absoluteRoot = path.resolve(root);
  const files = (
    options.files ?? (await listSourceFiles(path.join(absoluteRoot, options.apiDir ?? 'api'), isApiSource))
  ).sort();
  const { ts } = loadTsMorph();
  const parsed = new Map<string, TypeScript.SourceFile>();
  const parse = (file: string, text: string): TypeScript.SourceFile => {
    const recent = recentlyParsed.get(file);
    if (recent?.text === text) {
      parsed.set(file, recent.sourceFile);
      return recent.sourceFile;
    }
    const sourceFile = ts.createSourceFile(
      file,
      text,
      { languageVersion: ts.ScriptTarget.Latest, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
      false,
      ts.ScriptKind.TS,
    );
    parsed.set(file, sourceFile);
    recentlyParsed.set(file, { text, sourceFile });
    return sourceFile;
  };
  // `sources` holds texts not on disk yet (kop import checks its types before writing them).
  const sources = options.sources ?? new Map<string, string>();
  const texts = await Promise.all(files.map(async (file) => sources.get(file) ?? fs.readFile(file, 'utf8')));
  const apiFiles = files.map((file, i) => parse(file, texts[i]!));
  checkSyntax(ts, absoluteRoot, apiFiles);
  const fileAt = (absolutePath: string): TypeScript.SourceFile | undefined => {
    const existing = parsed.get(absolutePath);
    if (existing) return existing;
    let text: string;
    try {
      text = sources.get(absolutePath) ?? readFileSync(absolutePath, 'utf8');
    } catch {
      return undefined;
    }
    const imported = parse(absolutePath, text);
    checkSyntax(ts, absoluteRoot, [imported]);
    return imported;
  };
  return { ts, root: absoluteRoot, apiFiles, fileAt };
}

/**
 * Stops at syntax errors with file:line:column: the parser recovers from them and would hand
 * the later stages a tree that is not what the file says (a CRD from a half-written type).
 */
function checkSyntax(ts: typeof TypeScript, root: string, files: readonly TypeScript.SourceFile[]): void {
  const problems: string[] = [];
  for (const file of files) {
    // The parser's own diagnostics: not in the public typings, but what tsc reports as syntax errors.
    const diagnostics =
      (file as unknown as { parseDiagnostics?: readonly TypeScript.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
    for (const diagnostic of diagnostics) {
      const { line, character } = file.getLineAndCharacterOfPosition(diagnostic.start);
      const where = `${path.relative(root, file.fileName).split(path.sep).join('/')}:${line + 1}:${character + 1}`;
      problems.push(`${where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`);
    }
  }
  if (problems.length > 0) throw new ApiSyntaxError(problems);
}
