/**
 * Stage 1 of `kop import crd`: the documents to import, read from files, folders, standard
 * input or the cluster, each named by where it came from (`file.yaml`, `file.yaml#2` for the
 * second document of a file), so every later error can say which one it is about.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CORE_SCHEMA, loadAll, YAMLException } from 'js-yaml';
import { KopError } from '../base/index.js';

/** One parsed YAML or JSON document. */
export interface CrdDocument {
  /** Where it came from, as errors name it: a path as given, `<stdin>`, `cluster:<name>`; `#n` for the n-th document of several. */
  where: string;
  value: unknown;
}

/** Files of a folder that are not CRDs by convention (kustomize's own files). */
const KUSTOMIZE_FILES = new Set([
  'kustomization.yaml',
  'kustomization.yml',
  'kustomizeconfig.yaml',
  'kustomizeconfig.yml',
]);

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
export async function readCrdDocuments(
  args: readonly string[],
  cwd: string,
  readStdin: () => Promise<string>,
): Promise<CrdDocument[]> {
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
    if (stat.isDirectory() && files.length === 0)
      throw new KopError(`${arg}: the folder holds no .yaml, .yml or .json file`);
    for (const file of files) {
      const shown = stat.isDirectory() ? path.join(arg, path.relative(absolute, file)) : arg;
      documents.push(...parseDocuments(await fs.readFile(file, 'utf8'), shown));
    }
  }
  return documents;
}

/** Most values a document's aliases may add, expanded: a bound like the `yaml` package's maxAliasCount. */
const MAX_ALIASED_VALUES = 100_000;

/**
 * The non-empty documents of a YAML (or JSON) text; a syntax error names the line. js-yaml
 * rather than the `yaml` package: published CRDs run to megabytes, and js-yaml reads them 5 to 10
 * times faster. The core schema reads YAML 1.2's core types only (no timestamps or merge keys,
 * as the API server reads them), and a duplicate key is an error.
 */
export function parseDocuments(text: string, where: string): CrdDocument[] {
  let values: unknown[];
  try {
    values = loadAll(text, undefined, { schema: CORE_SCHEMA, filename: where });
  } catch (error) {
    if (!(error instanceof YAMLException)) throw error;
    throw new KopError(`${where}:${error.mark.line + 1}: not valid YAML: ${error.reason}`);
  }
  const nonEmpty = values.filter((value) => value !== null && value !== undefined);
  return nonEmpty.map((value, index) => {
    const named = nonEmpty.length > 1 ? `${where}#${index + 1}` : where;
    // js-yaml shares an aliased collection instead of copying it; bound what the aliases add when
    // expanded, so a "billion laughs" document cannot make the later walks over it explode.
    const { unique, expanded } = valueCounts(value);
    if (expanded - unique > MAX_ALIASED_VALUES) {
      throw new KopError(
        `${named}: not valid YAML: its aliases expand to more than ${MAX_ALIASED_VALUES.toLocaleString('en-US')} values`,
        'a CRD needs no YAML anchors; write the values out',
      );
    }
    return { where: named, value };
  });
}

/** How many values a tree holds, and how many it would hold with every alias written out. */
function valueCounts(root: unknown): { unique: number; expanded: number } {
  const expandedSize = new Map<object, number>();
  const size = (node: unknown): number => {
    if (typeof node !== 'object' || node === null) return 1;
    const known = expandedSize.get(node);
    if (known !== undefined) return known;
    let total = 1;
    for (const child of Array.isArray(node) ? node : Object.values(node)) total += size(child);
    expandedSize.set(node, total);
    return total;
  };
  const expanded = size(root);
  let unique = 0;
  const counted = new Set<object>();
  const count = (node: unknown): void => {
    unique++;
    if (typeof node !== 'object' || node === null || counted.has(node)) return;
    counted.add(node);
    for (const child of Array.isArray(node) ? node : Object.values(node)) count(child);
  };
  count(root);
  return { unique, expanded };
}
