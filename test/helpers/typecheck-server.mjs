// @ts-check
// One TypeScript compiler for every type check of the e2e project's generated projects
// (test/helpers/e2e-global-setup.ts starts it, test/helpers/typecheck.ts asks it). Each request
// is `tsc -p <tsconfig> [--strict] [--noEmit]` in a folder, answered with tsc's exit code and
// output; what makes it cheaper than a tsc process per check is a document registry (the cache
// tsserver shares between its projects) that keeps every file parsed and bound once per content:
// the ~100 000 lines of declarations the projects share (@kubernetes/client-node, kop, @types/node,
// TypeScript's lib) are read once instead of once per check, about two thirds of a tsc run.
// Each check is still a program of its own, so its diagnostics are that project's and nothing else's.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import * as path from 'node:path';

/** @type {typeof import('typescript')} */
const ts = createRequire(import.meta.url)('typescript');

const registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames);

/** The command-line options a request may give: the ones the tests pass to tsc; anything else is refused, not ignored. */
const ACCEPTED = new Set(['project', 'strict', 'noEmit']);

/**
 * What `tsc <args>` in `cwd` prints and exits with, for a project (`-p`, or the tsconfig.json tsc
 * finds from `cwd`). The order of the checks, the short cut after syntax errors, the exit codes
 * and the plain (not --pretty) output are tsc's own (executeCommandLine's emitFilesAndReportErrors).
 * @param {string} cwd
 * @param {string[]} args
 * @returns {{ exitCode: number, stdout: string }}
 */
function runTsc(cwd, args) {
  const formatHost = {
    getCanonicalFileName: (/** @type {string} */ name) => name,
    getCurrentDirectory: () => cwd,
    getNewLine: () => '\n',
  };
  /** @param {readonly import('typescript').Diagnostic[]} diagnostics @param {number} exitCode */
  const report = (diagnostics, exitCode) => ({ exitCode, stdout: ts.formatDiagnostics(diagnostics, formatHost) });

  const commandLine = ts.parseCommandLine(args);
  if (commandLine.errors.length > 0) return report(commandLine.errors, 1);
  const refused = Object.keys(commandLine.options).filter((name) => !ACCEPTED.has(name));
  if (refused.length > 0 || commandLine.fileNames.length > 0)
    throw new Error(`the type-check service runs tsc -p <project> [--strict] [--noEmit] only, not ${args.join(' ')}`);

  const { project, ...overrides } = commandLine.options;
  let configFile = project === undefined ? ts.findConfigFile(cwd, ts.sys.fileExists) : path.resolve(cwd, project);
  if (configFile !== undefined && ts.sys.directoryExists(configFile))
    configFile = path.join(configFile, 'tsconfig.json');
  if (configFile === undefined || !ts.sys.fileExists(configFile))
    throw new Error(`no tsconfig.json for tsc ${args.join(' ')} in ${cwd}`);

  /** @type {import('typescript').Diagnostic[]} */
  const unrecoverable = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(configFile, overrides, {
    ...ts.sys,
    getCurrentDirectory: () => cwd,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => unrecoverable.push(diagnostic),
  });
  if (parsed === undefined) return report(unrecoverable, 1);

  const options = parsed.options;
  const host = ts.createCompilerHost(options);
  host.getCurrentDirectory = () => cwd;
  // Every file through the registry: the same text with the same settings is the same SourceFile,
  // already parsed and bound; changed text (a test's edit, a regenerated file) is parsed anew.
  host.getSourceFile = (fileName, languageVersionOrOptions, onError) => {
    const text = host.readFile(fileName);
    if (text === undefined) {
      onError?.(`Cannot read file '${fileName}'.`);
      return undefined;
    }
    const version = createHash('sha1').update(text).digest('hex');
    return registry.acquireDocument(
      fileName,
      options,
      ts.ScriptSnapshot.fromString(text),
      version,
      undefined,
      languageVersionOrOptions,
    );
  };
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options,
    projectReferences: parsed.projectReferences,
    host,
    configFileParsingDiagnostics: ts.getConfigFileParsingDiagnostics(parsed),
  });

  const all = [...program.getConfigFileParsingDiagnostics()];
  const fromConfig = all.length;
  all.push(...program.getSyntacticDiagnostics());
  if (all.length === fromConfig) {
    all.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
    if (all.length === fromConfig) all.push(...program.getSemanticDiagnostics());
    if (options.noEmit && (options.declaration || options.composite) && all.length === fromConfig)
      all.push(...program.getDeclarationDiagnostics());
  }
  const emitted = program.emit();
  all.push(...emitted.diagnostics);
  const diagnostics = ts.sortAndDeduplicateDiagnostics(all);
  const exitCode = diagnostics.length === 0 ? 0 : emitted.emitSkipped ? 1 : 2;
  return report(diagnostics, exitCode);
}

// One request at a time: a check is synchronous, so requests queue in the order they came.
const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    try {
      const { cwd, args } = /** @type {{ cwd: string, args: string[] }} */ (JSON.parse(body));
      const result = runTsc(cwd, args);
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (error) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
// The parent (vitest's global setup) stops it; it also goes when the parent goes.
process.on('disconnect', () => process.exit(0));
