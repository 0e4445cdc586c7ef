import { parseAllDocuments, stringify } from 'yaml';
import type { Context } from '../base/context.js';
import { KopError } from '../base/errors.js';

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
