/**
 * Stage 1 of `kop import crd`: the documents to import, read from files, folders, standard
 * input or the cluster, each named by where it came from (`file.yaml`, `file.yaml#2` for the
 * second document of a file), so every later error can say which one it is about.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import { KopError } from '../base/errors.js';

/** One parsed YAML or JSON document. */
export interface CrdDocument {
  /** Where it came from, as errors name it: a path as given, `<stdin>`, `cluster:<name>`; `#n` for the n-th document of several. */
  where: string;
  value: unknown;
}

/** Files of a folder that are not CRDs by convention (kustomize's own files). */
const KUSTOMIZE_FILES = new Set(['kustomization.yaml', 'kustomization.yml', 'kustomizeconfig.yaml', 'kustomizeconfig.yml']);

/** The YAML and JSON files of a folder, recursively, sorted; kustomize's own files left out. */
async function filesOf(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesOf(full)));
    else if (/\.(ya?ml|json)$/.test(entry.name) && !KUSTOMIZE_FILES.has(entry.name)) files.push(full);
  }
  return files.sort();
}

/**
 * Reads every argument: a file, a folder (its YAML and JSON files, recursively) or `-`
 * (standard input, through `readStdin`). Paths are resolved against `cwd` and named as given.
 */
export async function readCrdDocuments(args: readonly string[], cwd: string, readStdin: () => Promise<string>): Promise<CrdDocument[]> {
  const documents: CrdDocument[] = [];
  for (const arg of args) {
    if (arg === '-') {
      documents.push(...parseDocuments(await readStdin(), '<stdin>'));
      continue;
    }
    const absolute = path.resolve(cwd, arg);
    let stat;
    try {
      stat = await fs.stat(absolute);
    } catch {
      throw new KopError(`${arg}: no such file or folder`, 'pass CRD files, folders of them, or - for standard input');
    }
    const files = stat.isDirectory() ? await filesOf(absolute) : [absolute];
    if (stat.isDirectory() && files.length === 0) throw new KopError(`${arg}: the folder holds no .yaml, .yml or .json file`);
    for (const file of files) {
      const shown = stat.isDirectory() ? path.join(arg, path.relative(absolute, file)) : arg;
      documents.push(...parseDocuments(await fs.readFile(file, 'utf8'), shown));
    }
  }
  return documents;
}

/** The non-empty documents of a YAML (or JSON) text; a syntax error names the line. */
export function parseDocuments(text: string, where: string): CrdDocument[] {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  if (!Array.isArray(parsed)) return [];
  const nonEmpty = parsed.filter((doc) => doc.contents !== null);
  for (const doc of nonEmpty) {
    const error = doc.errors[0];
    if (error) {
      const line = lineCounter.linePos(error.pos[0]).line;
      throw new KopError(`${where}:${line}: not valid YAML: ${error.message.split('\n')[0]}`);
    }
  }
  return nonEmpty.map((doc, index) => ({
    where: nonEmpty.length > 1 ? `${where}#${index + 1}` : where,
    // Large integers and every other value as JSON would hold them.
    value: doc.toJS({ maxAliasCount: 100 }) as unknown,
  }));
}
