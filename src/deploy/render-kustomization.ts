import { stat, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml, parseAllDocuments, stringify } from 'yaml';
import { type Context, KopError } from '../base/index.js';

/** A Kubernetes object as rendered manifests hold it. */
export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** The kubectl to run: `$KUBECTL` (as in Kubebuilder's Makefile) or `kubectl` on PATH. */
export function kubectlCommand(env: Record<string, string | undefined>): string {
  return env.KUBECTL && env.KUBECTL.trim() !== '' ? env.KUBECTL : 'kubectl';
}

/**
 * Builds a kustomization folder with `kubectl kustomize` (the kustomize compiled into kubectl),
 * so patches, replacements and name references mean exactly what `kubectl apply -k` makes of
 * them. Returns the objects in kustomize's output order.
 */
export async function renderKustomization(dir: string, context: Context): Promise<ManifestObject[]> {
  const kubectl = kubectlCommand(context.env);
  const result = await context.exec(kubectl, ['kustomize', dir], { cwd: context.cwd });
  if (result.exitCode === 127) {
    throw new KopError(
      `${kubectl} was not found: kop builds config/ with \`kubectl kustomize\``,
      'install kubectl (https://kubernetes.io/docs/tasks/tools/) or point $KUBECTL at one; no separate kustomize is needed',
    );
  }
  if (result.exitCode !== 0) {
    const missing = await firstMissingFile(path.resolve(context.cwd, dir));
    if (missing) {
      const shown = (file: string) => projectPath(file, context.cwd, path.resolve(context.cwd, dir, '../..'));
      const generated = GENERATED_BY_MANIFESTS.some((pattern) => pattern.test(shown(missing.file)));
      throw new KopError(
        `${shown(missing.file)} does not exist, and ${shown(missing.listedIn)} lists it`,
        generated
          ? 'run `kop generate manifests` first (it writes the CRDs, the RBAC role and the webhook manifests config/ lists), then this command again'
          : `restore it, or take it out of ${shown(missing.listedIn)}`,
      );
    }
    throw new KopError(
      `\`${kubectl} kustomize ${dir}\` failed:\n${result.stderr.trim() || result.stdout.trim()}`,
      'fix the kustomization it names, then run again',
    );
  }
  return parseManifests(result.stdout, `${dir} (kubectl kustomize)`);
}

/** Parses multi-document YAML into objects; empty documents are skipped, anything else not an object is an error. */
export function parseManifests(text: string, source: string): ManifestObject[] {
  const objects: ManifestObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if ('errors' in document && document.errors.length > 0)
      throw new KopError(`${source}: ${document.errors[0]!.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    const object = value as Partial<ManifestObject>;
    if (
      typeof object !== 'object' ||
      typeof object.apiVersion !== 'string' ||
      typeof object.kind !== 'string' ||
      typeof object.metadata?.name !== 'string'
    ) {
      throw new KopError(`${source}: a document is not a Kubernetes object with apiVersion, kind and metadata.name`);
    }
    objects.push(object as ManifestObject);
  }
  return objects;
}

/** Objects as one multi-document YAML stream, in the order given. */
export function serializeManifests(objects: readonly ManifestObject[]): string {
  return objects.map((object) => stringify(object, { lineWidth: 0 })).join('---\n');
}

/** `kind/name` (with the namespace when there is one), for messages. */
export function describeObject(object: ManifestObject): string {
  const group = object.apiVersion.includes('/') ? `.${object.apiVersion.split('/')[0]}` : '';
  return `${object.kind.toLowerCase()}${group}/${object.metadata.name}${object.metadata.namespace ? ` (namespace ${object.metadata.namespace})` : ''}`;
}

/** What `kop generate manifests` writes into config/ (project-relative), which is missing before its first run. */
const GENERATED_BY_MANIFESTS = [
  /^config\/crd\/bases\//,
  /^config\/crd\/patches\//,
  /^config\/crd\/kustomization\.yaml$/,
  /^config\/rbac\/role\.yaml$/,
  /^config\/webhook\/(manifests|kustomization)\.yaml$/,
];

/** The kustomization file of `dir` (kustomize's three names), if it has one. */
async function hasKustomization(dir: string): Promise<string | undefined> {
  for (const name of ['kustomization.yaml', 'kustomization.yml', 'Kustomization']) {
    try {
      if ((await stat(path.join(dir, name))).isFile()) return path.join(dir, name);
    } catch {
      continue;
    }
  }
  return undefined;
}

/** `file` relative to the project (or to the copy of the project's config/ a variant was built from). */
function projectPath(file: string, cwd: string, copyRoot: string): string {
  const relative = path.relative(cwd, file);
  return (relative.startsWith('..') ? path.relative(copyRoot, file) : relative).split(path.sep).join('/');
}

/**
 * The first local file or folder a kustomization (or one it includes) lists and that does not
 * exist: kustomize's own message for it ("must resolve to a file") names neither the
 * kustomization nor what would write the file.
 */
export async function firstMissingFile(
  dir: string,
  seen = new Set<string>(),
): Promise<{ file: string; listedIn: string } | undefined> {
  if (seen.has(dir)) return undefined;
  seen.add(dir);
  const kustomizationFile = await hasKustomization(dir);
  if (kustomizationFile === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(kustomizationFile, 'utf8');
  } catch {
    return undefined;
  }
  let kustomization: Record<string, unknown>;
  try {
    kustomization = (parseYaml(text) ?? {}) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const listed: string[] = [];
  for (const key of ['resources', 'components', 'crds', 'patchesStrategicMerge', 'patches', 'configurations']) {
    const value = kustomization[key];
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      const entry = typeof item === 'string' ? item : (item as { path?: unknown } | null)?.path;
      // Inline patches are YAML, not paths; remote bases are URLs.
      if (typeof entry !== 'string' || entry.includes('\n') || /^[a-z]+:\/\/|^github\.com\//.test(entry)) continue;
      listed.push(entry);
    }
  }
  for (const entry of listed) {
    const target = path.resolve(dir, entry);
    let info;
    try {
      info = await stat(target);
    } catch {
      return { file: target, listedIn: kustomizationFile };
    }
    if (info.isDirectory()) {
      if (!(await hasKustomization(target)))
        return { file: path.join(target, 'kustomization.yaml'), listedIn: kustomizationFile };
      const below = await firstMissingFile(target, seen);
      if (below) return below;
    }
  }
  return undefined;
}
