import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ApiRequestError, type ApiServerTransport } from './http.js';

/** The parts of a CustomResourceDefinition kop/testing reads. */
export interface CustomResourceDefinition {
  apiVersion: string;
  kind: 'CustomResourceDefinition';
  metadata: { name: string; resourceVersion?: string; [field: string]: unknown };
  spec: {
    group: string;
    names: { plural: string; kind: string; [field: string]: unknown };
    versions: Array<{ name: string; served: boolean; storage: boolean; [field: string]: unknown }>;
    [field: string]: unknown;
  };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

/**
 * What {@link installCRDs} accepts: a path to a YAML/JSON file (several documents allowed),
 * a folder (every .yaml, .yml and .json directly inside it, in name order), or a CRD object.
 * Documents whose kind is not CustomResourceDefinition (a kustomization.yaml, say) are ignored.
 */
export type CRDSource = string | CustomResourceDefinition;

/** Options for {@link installCRDs}. */
export interface InstallCRDsOptions {
  /** How long to wait for every CRD to be Established and served; default 30 s. */
  timeoutMs?: number;
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Reads CRD objects from files, folders and objects (see {@link CRDSource}). */
export function readCRDs(sources: readonly CRDSource[]): CustomResourceDefinition[] {
  const crds: CustomResourceDefinition[] = [];
  for (const source of sources) {
    if (typeof source !== 'string') {
      crds.push(source);
      continue;
    }
    const stat = statSync(source, { throwIfNoEntry: false });
    if (!stat) throw new Error(`installCRDs: ${source} does not exist`);
    const files = stat.isDirectory()
      ? readdirSync(source)
          .filter((name) => ['.yaml', '.yml', '.json'].includes(extname(name)))
          .sort()
          .map((name) => join(source, name))
      : [source];
    for (const file of files) crds.push(...crdsInFile(file));
  }
  return crds;
}

function crdsInFile(file: string): CustomResourceDefinition[] {
  const found: CustomResourceDefinition[] = [];
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (document.errors.length > 0) throw new Error(`installCRDs: ${file}: ${document.errors[0]!.message}`);
    const value: unknown = document.toJS();
    if (isCRD(value)) found.push(value);
  }
  return found;
}

function isCRD(value: unknown): value is CustomResourceDefinition {
  return (
    typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'CustomResourceDefinition'
  );
}

/**
 * Creates each CRD (or replaces an existing one of the same name), then waits until every
 * one is Established, its served versions list the resource in discovery, and lists of it
 * succeed, so a test can create, list and watch custom objects straight away. Returns the CRDs as the server stored them.
 */
export async function installCRDs(
  transport: ApiServerTransport,
  sources: readonly CRDSource[],
  options: InstallCRDsOptions = {},
): Promise<CustomResourceDefinition[]> {
  const crds = readCRDs(sources);
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (const crd of crds) await createOrReplace(transport, crd);
  const installed: CustomResourceDefinition[] = [];
  for (const crd of crds) installed.push(await waitUntilServed(transport, crd, deadline));
  return installed;
}

async function createOrReplace(transport: ApiServerTransport, crd: CustomResourceDefinition): Promise<void> {
  const body = { ...crd, apiVersion: 'apiextensions.k8s.io/v1', metadata: { ...crd.metadata } };
  delete body.status;
  delete body.metadata.resourceVersion;
  const created = await transport.request('POST', CRD_PATH, body);
  if (created.status < 300) return;
  if (created.status !== 409) throw new ApiRequestError('POST', CRD_PATH, created);
  // Already there (an existing cluster, or installed twice): replace it with this content.
  for (let attempt = 0; attempt < 5; attempt++) {
    const path = `${CRD_PATH}/${encodeURIComponent(crd.metadata.name)}`;
    const current = await transport.json<CustomResourceDefinition>('GET', path);
    body.metadata.resourceVersion = current.metadata.resourceVersion;
    const replaced = await transport.request('PUT', path, body);
    if (replaced.status < 300) return;
    if (replaced.status !== 409) throw new ApiRequestError('PUT', path, replaced);
  }
  throw new Error(`installCRDs: ${crd.metadata.name} kept changing while being replaced`);
}

async function waitUntilServed(
  transport: ApiServerTransport,
  crd: CustomResourceDefinition,
  deadline: number,
): Promise<CustomResourceDefinition> {
  const path = `${CRD_PATH}/${encodeURIComponent(crd.metadata.name)}`;
  let last: CustomResourceDefinition | undefined;
  let waitingFor = 'Established';
  while (Date.now() < deadline) {
    last = await transport.json<CustomResourceDefinition>('GET', path);
    const conditions = last.status?.conditions ?? [];
    const namesAccepted = conditions.find((condition) => condition.type === 'NamesAccepted');
    if (namesAccepted?.status === 'False') {
      throw new Error(
        `installCRDs: ${crd.metadata.name} names not accepted: ${namesAccepted.message ?? namesAccepted.reason}`,
      );
    }
    if (conditions.some((condition) => condition.type === 'Established' && condition.status === 'True')) {
      waitingFor = 'discovery';
      if (await allVersionsDiscoverable(transport, last)) return last;
    }
    await sleep(50);
  }
  throw new Error(
    `installCRDs: ${crd.metadata.name} was not ready (waiting for ${waitingFor}) in time; last status: ${JSON.stringify(last?.status ?? {})}`,
  );
}

/**
 * Discovery lists the resource, and a list request answers: right after Established the
 * apiserver still builds the resource's watch cache and answers lists with 429, which would
 * trip up an informer started straight after installCRDs.
 */
async function allVersionsDiscoverable(transport: ApiServerTransport, crd: CustomResourceDefinition): Promise<boolean> {
  for (const version of crd.spec.versions.filter((candidate) => candidate.served)) {
    const groupVersion = `/apis/${crd.spec.group}/${version.name}`;
    const response = await transport.request('GET', groupVersion);
    if (response.status !== 200) return false;
    const list = JSON.parse(response.text) as { resources?: Array<{ name: string }> };
    if (!list.resources?.some((resource) => resource.name === crd.spec.names.plural)) return false;
    // 403 counts as served: an existing cluster's user may create CRDs without listing them.
    // So does a failed conversion: objects stored in another version need the conversion webhook,
    // which the test starts only after the control plane (webhooks option) is up.
    const listed = await transport.request('GET', `${groupVersion}/${crd.spec.names.plural}?limit=1`);
    if (listed.status !== 200 && listed.status !== 403 && !isConversionFailure(listed)) return false;
  }
  return true;
}

/** The API server's answer when a conversion webhook could not convert the listed objects. */
function isConversionFailure(response: { status: number; text: string }): boolean {
  return response.status === 500 && response.text.includes('conversion webhook for');
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
