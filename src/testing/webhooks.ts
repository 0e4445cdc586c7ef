import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CertificateAuthority } from './certificates.js';
import { sleep, type CustomResourceDefinition } from './crds.js';
import { ApiRequestError, type ApiServerTransport } from './http.js';
import { findFreePorts } from './ports.js';

/**
 * The `webhooks` option of startControlPlane, as envtest's WebhookInstallOptions.
 *
 * Missing paths: a path that does not exist is an error naming it, except a folder at its
 * conventional Kubebuilder place — one ending in `config/webhook` (for `paths`) or
 * `config/crd/patches` (for `conversionPatches`) — which a project without (conversion)
 * webhooks simply has not got yet: it counts as empty. envtest ignores every missing path
 * unless ErrorIfPathMissing is set; kop names a mistyped path instead, and keeps the one
 * silent case a scaffolded test needs.
 */
export interface WebhookInstallOptions {
  /**
   * Files or folders (every .yaml, .yml and .json directly inside, in name order) of
   * MutatingWebhookConfiguration and ValidatingWebhookConfiguration YAML, e.g. `config/webhook`.
   * Other kinds (the Service, a kustomization.yaml) are ignored.
   */
  paths?: string[];
  /**
   * Files or folders of Kubebuilder conversion patches (`config/crd/patches/webhook_in_<plural>.yaml`):
   * CustomResourceDefinition documents with `spec.conversion.strategy: Webhook`. The CRDs they
   * name get `spec.conversion` pointed at the local server before they are installed. Other
   * documents (cainjection_in_* patches, kustomization.yaml) are ignored.
   */
  conversionPatches?: string[];
  /**
   * The host name or IP address the API server reaches this process at; default `127.0.0.1`.
   * Only worth setting with an existing cluster whose API server runs elsewhere (a kind node
   * reaches the host as e.g. `host.docker.internal` or the docker bridge's gateway): it becomes
   * the webhooks' URL host and a name of the serving certificate, and the server should then
   * listen on every interface (`plane.webhook.host` is `0.0.0.0`).
   */
  externalHost?: string;
}

/** Where a test serves the installed webhooks: pass these to the manager's `webhookServer` option. */
export interface WebhookServing {
  /** The address to listen on: `127.0.0.1` (or `0.0.0.0` with {@link WebhookInstallOptions.externalHost}). */
  host: string;
  /** A port that was free when the control plane started; every installed webhook URL uses it. */
  port: number;
  /** Folder holding the serving certificate and key (inside the control plane's temp folder). */
  certDir: string;
  /** File name of the serving certificate (chain) in certDir. */
  certName: 'tls.crt';
  /** File name of the serving certificate's private key in certDir. */
  keyName: 'tls.key';
  /** PEM of the CA that signed the serving certificate; the webhooks' `caBundle`. */
  caData: string;
  /** `https://<host the API server dials>:<port>`: each webhook URL is this plus its path. */
  url: string;
  /** Names of the installed configurations. */
  configurations: { mutating: string[]; validating: string[] };
  /** Names of the CRDs whose conversion points at `<url>/convert`-like paths. */
  conversionCRDs: string[];
}

/** The kinds of webhook configuration installed. */
export type WebhookConfigurationKind = 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';

/** One webhook of a configuration; only the fields kop/testing reads or writes are typed. */
export interface WebhookEntry {
  name: string;
  clientConfig?: {
    url?: string;
    service?: { namespace?: string; name?: string; path?: string; port?: number };
    caBundle?: string;
  };
  [field: string]: unknown;
}

/** A Mutating/ValidatingWebhookConfiguration as read from YAML. */
export interface WebhookConfiguration {
  apiVersion: string;
  kind: WebhookConfigurationKind;
  metadata: { name: string; [field: string]: unknown };
  webhooks?: WebhookEntry[];
  [field: string]: unknown;
}

/** What a conversion patch asks for: CRD `crdName` converts through the webhook at `path`. */
export interface ConversionPatch {
  crdName: string;
  /** The service path of the patch (`/convert` in Kubebuilder's); the URL path of the webhook. */
  path: string;
  conversionReviewVersions: string[];
  /** The file it came from, for error messages. */
  file: string;
}

const WEBHOOK_KINDS: readonly string[] = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
const ADMISSION_PATH = '/apis/admissionregistration.k8s.io/v1';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/**
 * Reads webhook configurations from files and folders (see {@link WebhookInstallOptions.paths}
 * for the missing-path rule). Two configurations of the same kind and name are an error.
 */
export function readWebhookConfigurations(paths: readonly string[]): WebhookConfiguration[] {
  const found: WebhookConfiguration[] = [];
  const seen = new Map<string, string>();
  for (const file of yamlFiles(paths, 'webhooks.paths', ['config', 'webhook'])) {
    for (const value of documentsIn(file, 'webhooks.paths')) {
      if (!isObject(value) || typeof value.kind !== 'string' || !WEBHOOK_KINDS.includes(value.kind)) continue;
      const configuration = value as unknown as WebhookConfiguration;
      const name = configuration.metadata?.name;
      if (typeof name !== 'string' || name === '')
        throw new Error(`webhooks.paths: ${file}: a ${configuration.kind} has no metadata.name`);
      const key = `${configuration.kind}/${name}`;
      const earlier = seen.get(key);
      if (earlier)
        throw new Error(
          `webhooks.paths: ${configuration.kind} "${name}" is defined twice (${earlier} and ${file}); keep one`,
        );
      seen.set(key, file);
      found.push(configuration);
    }
  }
  return found;
}

/**
 * Reads Kubebuilder conversion patches: CRD documents with `spec.conversion.strategy: Webhook`
 * (see {@link WebhookInstallOptions.conversionPatches}).
 */
export function readConversionPatches(paths: readonly string[]): ConversionPatch[] {
  const patches: ConversionPatch[] = [];
  for (const file of yamlFiles(paths, 'webhooks.conversionPatches', ['config', 'crd', 'patches'])) {
    for (const value of documentsIn(file, 'webhooks.conversionPatches')) {
      if (!isObject(value) || value.kind !== 'CustomResourceDefinition') continue;
      const conversion = (
        value.spec as { conversion?: { strategy?: string; webhook?: ConversionWebhookPatch } } | undefined
      )?.conversion;
      if (conversion?.strategy !== 'Webhook') continue;
      const crdName = (value.metadata as { name?: unknown } | undefined)?.name;
      if (typeof crdName !== 'string' || crdName === '') {
        throw new Error(
          `webhooks.conversionPatches: ${file}: the patch has no metadata.name (the CRD it patches, <plural>.<group>)`,
        );
      }
      const clientConfig = conversion.webhook?.clientConfig;
      patches.push({
        crdName,
        path: clientConfig?.service?.path ?? pathOfUrl(clientConfig?.url) ?? '/convert',
        conversionReviewVersions: conversion.webhook?.conversionReviewVersions ?? ['v1'],
        file,
      });
    }
  }
  return patches;
}

interface ConversionWebhookPatch {
  clientConfig?: { url?: string; service?: { path?: string } };
  conversionReviewVersions?: string[];
}

/**
 * Points every webhook of a configuration at the local server, as envtest does: `clientConfig`
 * becomes `{ url: <baseUrl><path>, caBundle }`, the path being the service's (`/` when it has
 * none) or, for a webhook that already has a `url`, that URL's path. Returns a copy without the
 * server-set metadata fields, ready to create.
 */
export function rewriteWebhookConfiguration(
  configuration: WebhookConfiguration,
  baseUrl: string,
  caBundle: string,
): WebhookConfiguration {
  const copy = structuredClone(configuration);
  copy.apiVersion = 'admissionregistration.k8s.io/v1';
  for (const field of ['resourceVersion', 'uid', 'creationTimestamp', 'generation', 'managedFields'])
    delete copy.metadata[field];
  copy.webhooks = (copy.webhooks ?? []).map((webhook) => {
    const path = webhook.clientConfig?.service?.path ?? pathOfUrl(webhook.clientConfig?.url) ?? '/';
    return { ...webhook, clientConfig: { url: `${baseUrl}${path.startsWith('/') ? path : `/${path}`}`, caBundle } };
  });
  return copy;
}

/**
 * Throws when a patch names a CRD that is not among `crds` (the CRDs startControlPlane installs):
 * its conversion would silently never be set.
 */
export function checkConversionPatchTargets(
  crds: readonly CustomResourceDefinition[],
  patches: readonly ConversionPatch[],
): void {
  const names = new Set(crds.map((crd) => crd.metadata.name));
  const unknown = patches.find((patch) => !names.has(patch.crdName));
  if (!unknown) return;
  const installed = names.size === 0 ? 'none' : [...names].sort().join(', ');
  throw new Error(
    `webhooks.conversionPatches: ${unknown.file} patches CRD "${unknown.crdName}", which is not among the CRDs to install (${installed}); ` +
      `add its CRD to the crds option, or fix the patch's metadata.name`,
  );
}

/**
 * Sets `spec.conversion` of each CRD named by a patch to the local webhook (`<baseUrl><path>`,
 * `caBundle`). Returns copies; CRDs no patch names are returned as they are.
 */
export function applyConversionPatches(
  crds: readonly CustomResourceDefinition[],
  patches: readonly ConversionPatch[],
  baseUrl: string,
  caBundle: string,
): CustomResourceDefinition[] {
  return crds.map((crd) => {
    const patch = patches.find((candidate) => candidate.crdName === crd.metadata.name);
    if (!patch) return crd;
    const copy = structuredClone(crd);
    copy.spec.conversion = {
      strategy: 'Webhook',
      webhook: {
        clientConfig: { url: `${baseUrl}${patch.path}`, caBundle },
        conversionReviewVersions: [...patch.conversionReviewVersions],
      },
    };
    return copy;
  });
}

/** What {@link prepareWebhooks} read and made: everything but the API calls. */
export interface PreparedWebhooks {
  serving: WebhookServing;
  configurations: WebhookConfiguration[];
  patches: ConversionPatch[];
  caBundle: string;
}

/** Reads the manifests; fails before anything is started when a path or document is wrong. */
export function readWebhookInputs(options: WebhookInstallOptions): {
  configurations: WebhookConfiguration[];
  patches: ConversionPatch[];
} {
  return {
    configurations: readWebhookConfigurations(options.paths ?? []),
    patches: readConversionPatches(options.conversionPatches ?? []),
  };
}

/**
 * Makes a CA and a serving certificate (127.0.0.1, localhost and any external host) written as
 * `tls.crt`/`tls.key` into `<dir>/webhook-certs`, picks a free port and rewrites the configurations.
 */
export async function prepareWebhooks(
  options: WebhookInstallOptions,
  inputs: { configurations: WebhookConfiguration[]; patches: ConversionPatch[] },
  dir: string,
): Promise<PreparedWebhooks> {
  const externalHost = options.externalHost ?? '127.0.0.1';
  const ca = await CertificateAuthority.create('kop-webhook-ca');
  const hosts = [...new Set(['127.0.0.1', 'localhost', externalHost])];
  const serving = await ca.issue({ commonName: 'kop-webhook-server', usage: 'server', hosts });
  const certDir = join(dir, 'webhook-certs');
  mkdirSync(certDir, { mode: 0o700, recursive: true });
  writeFileSync(join(certDir, 'tls.crt'), serving.certPem);
  writeFileSync(join(certDir, 'tls.key'), serving.keyPem, { mode: 0o600 });
  const listenHost = options.externalHost === undefined ? '127.0.0.1' : '0.0.0.0';
  const [port] = await findFreePorts(1, listenHost);
  const urlHost = externalHost.includes(':') ? `[${externalHost}]` : externalHost;
  const url = `https://${urlHost}:${port!}`;
  const caBundle = Buffer.from(ca.certPem).toString('base64');
  const configurations = inputs.configurations.map((configuration) =>
    rewriteWebhookConfiguration(configuration, url, caBundle),
  );
  return {
    serving: {
      host: listenHost,
      port: port!,
      certDir,
      certName: 'tls.crt',
      keyName: 'tls.key',
      caData: ca.certPem,
      url,
      configurations: {
        mutating: configurations.filter((c) => c.kind === 'MutatingWebhookConfiguration').map((c) => c.metadata.name),
        validating: configurations
          .filter((c) => c.kind === 'ValidatingWebhookConfiguration')
          .map((c) => c.metadata.name),
      },
      conversionCRDs: [...new Set(inputs.patches.map((patch) => patch.crdName))],
    },
    configurations,
    patches: inputs.patches,
    caBundle,
  };
}

/**
 * Creates (or replaces) the configurations, waits until each can be read back, then waits until
 * the API server's admission chain uses them: envtest stops at the read, yet the admission plugin
 * learns of configurations through its own informer a moment later, and a create in that moment
 * skips the webhook. A probe configuration of each kind, created after the others and matching
 * only dry-run ConfigMaps with a random label, shows when that informer has caught up (its events
 * arrive in order, so the probe's arrival means the earlier ones have arrived too).
 */
export async function installWebhookConfigurations(
  transport: ApiServerTransport,
  prepared: PreparedWebhooks,
  deadline: number,
): Promise<void> {
  for (const configuration of prepared.configurations) await createOrReplace(transport, configuration);
  for (const configuration of prepared.configurations) {
    const path = `${configurationPath(configuration.kind)}/${encodeURIComponent(configuration.metadata.name)}`;
    await poll(`${configuration.kind} ${configuration.metadata.name} to be readable`, deadline, async () => {
      const response = await transport.request('GET', path);
      return response.status === 200;
    });
  }
  const kinds = new Set(prepared.configurations.map((configuration) => configuration.kind));
  if (kinds.size > 0) await waitForAdmissionToSee(transport, [...kinds], prepared.caBundle, deadline);
}

/**
 * Reads the configurations and conversion patches from `options`' files again (after `kop
 * generate` changed them) and installs them with the serving address and CA already in use, so
 * the server keeps its certificate; configurations no longer in the files are deleted. Returns
 * what is installed now. Patched CRDs take a changed conversion patch when they are next installed.
 */
export async function reloadWebhooks(
  transport: ApiServerTransport,
  prepared: PreparedWebhooks,
  options: WebhookInstallOptions,
  deadline: number,
): Promise<PreparedWebhooks> {
  const inputs = readWebhookInputs(options);
  const configurations = inputs.configurations.map((configuration) =>
    rewriteWebhookConfiguration(configuration, prepared.serving.url, prepared.caBundle),
  );
  const kept = (old: WebhookConfiguration) =>
    configurations.some(
      (configuration) => configuration.kind === old.kind && configuration.metadata.name === old.metadata.name,
    );
  for (const gone of prepared.configurations.filter((old) => !kept(old))) {
    const path = `${configurationPath(gone.kind)}/${encodeURIComponent(gone.metadata.name)}`;
    const response = await transport.request('DELETE', path);
    if (response.status >= 300 && response.status !== 404) throw new ApiRequestError('DELETE', path, response);
  }
  const reloaded: PreparedWebhooks = {
    ...prepared,
    configurations,
    patches: inputs.patches,
    serving: {
      ...prepared.serving,
      configurations: {
        mutating: configurations.filter((c) => c.kind === 'MutatingWebhookConfiguration').map((c) => c.metadata.name),
        validating: configurations
          .filter((c) => c.kind === 'ValidatingWebhookConfiguration')
          .map((c) => c.metadata.name),
      },
      conversionCRDs: [...new Set(inputs.patches.map((patch) => patch.crdName))],
    },
  };
  await installWebhookConfigurations(transport, reloaded, deadline);
  return reloaded;
}

/** Deletes the installed configurations and sets the patched CRDs' conversion back to None (existing clusters). */
export async function uninstallWebhooks(transport: ApiServerTransport, prepared: PreparedWebhooks): Promise<void> {
  for (const configuration of prepared.configurations) {
    const path = `${configurationPath(configuration.kind)}/${encodeURIComponent(configuration.metadata.name)}`;
    const response = await transport.request('DELETE', path);
    if (response.status >= 300 && response.status !== 404) throw new ApiRequestError('DELETE', path, response);
  }
  for (const name of prepared.serving.conversionCRDs) {
    const path = `${CRD_PATH}/${encodeURIComponent(name)}`;
    const body = { spec: { conversion: { strategy: 'None', webhook: null } } };
    const response = await transport.request('PATCH', path, body, { contentType: 'application/merge-patch+json' });
    if (response.status >= 300 && response.status !== 404) throw new ApiRequestError('PATCH', path, response);
  }
}

const PROBE_LABEL = 'testing.kop.dev/webhook-probe';

async function waitForAdmissionToSee(
  transport: ApiServerTransport,
  kinds: WebhookConfigurationKind[],
  caBundle: string,
  deadline: number,
): Promise<void> {
  const token = randomUUID().slice(0, 8);
  const probes = kinds.map((kind) => probeConfiguration(kind, token, caBundle));
  // Mutating webhooks run before validating ones, so the mutating probe is seen (and removed) first.
  probes.sort((a, b) => a.kind.localeCompare(b.kind));
  try {
    for (const probe of probes) await createOrReplace(transport, probe);
    for (const probe of probes) {
      const webhookName = probe.webhooks![0]!.name;
      await poll(`the API server's admission chain to use the ${probe.kind}s`, deadline, async () => {
        const response = await transport.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { generateName: 'kop-webhook-probe-', labels: { [PROBE_LABEL]: token } },
        });
        return response.status >= 300 && response.text.includes(webhookName);
      });
      await deleteQuietly(transport, probe);
    }
  } finally {
    for (const probe of probes) await deleteQuietly(transport, probe).catch(() => undefined);
  }
}

function probeConfiguration(kind: WebhookConfigurationKind, token: string, caBundle: string): WebhookConfiguration {
  const short = kind === 'MutatingWebhookConfiguration' ? 'mutating' : 'validating';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name: `kop-testing-${short}-probe-${token}` },
    webhooks: [
      {
        name: `${short}-probe.testing.kop.dev`,
        // Port 1 refuses at once: the call fails fast, and its failure is the sign.
        clientConfig: { url: 'https://127.0.0.1:1/probe', caBundle },
        rules: [
          {
            operations: ['CREATE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
            scope: 'Namespaced',
          },
        ],
        objectSelector: { matchLabels: { [PROBE_LABEL]: token } },
        failurePolicy: 'Fail',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 2,
      },
    ],
  };
}

async function deleteQuietly(transport: ApiServerTransport, configuration: WebhookConfiguration): Promise<void> {
  await transport.request(
    'DELETE',
    `${configurationPath(configuration.kind)}/${encodeURIComponent(configuration.metadata.name)}`,
  );
}

async function createOrReplace(transport: ApiServerTransport, configuration: WebhookConfiguration): Promise<void> {
  const collection = configurationPath(configuration.kind);
  const created = await transport.request('POST', collection, configuration);
  if (created.status < 300) return;
  if (created.status !== 409) throw new ApiRequestError('POST', collection, created);
  const path = `${collection}/${encodeURIComponent(configuration.metadata.name)}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const current = await transport.json<{ metadata: { resourceVersion: string } }>('GET', path);
    const body = {
      ...configuration,
      metadata: { ...configuration.metadata, resourceVersion: current.metadata.resourceVersion },
    };
    const replaced = await transport.request('PUT', path, body);
    if (replaced.status < 300) return;
    if (replaced.status !== 409) throw new ApiRequestError('PUT', path, replaced);
  }
  throw new Error(`webhooks: ${configuration.kind} ${configuration.metadata.name} kept changing while being replaced`);
}

function configurationPath(kind: WebhookConfigurationKind): string {
  return `${ADMISSION_PATH}/${kind.toLowerCase()}s`;
}

async function poll(what: string, deadline: number, check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`webhooks: timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * The YAML files under `paths`. A missing path is an error naming `option`, unless it is a
 * folder whose last segments are `conventional` (see {@link WebhookInstallOptions}).
 */
function yamlFiles(paths: readonly string[], option: string, conventional: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) {
      if (endsWithSegments(path, conventional)) continue;
      throw new Error(`${option}: ${path} does not exist (resolved to ${resolve(path)}); fix the path or leave it out`);
    }
    if (!stat.isDirectory()) {
      files.push(path);
      continue;
    }
    const names = readdirSync(path)
      .filter((name) => ['.yaml', '.yml', '.json'].includes(extname(name)))
      .sort();
    files.push(...names.map((name) => join(path, name)));
  }
  return files;
}

function endsWithSegments(path: string, segments: readonly string[]): boolean {
  let current = resolve(path);
  for (const segment of [...segments].reverse()) {
    if (basename(current) !== segment) return false;
    current = dirname(current);
  }
  return true;
}

function documentsIn(file: string, option: string): unknown[] {
  const values: unknown[] = [];
  for (const document of parseAllDocuments(readFileSync(file, 'utf8'))) {
    if (document.errors.length > 0) throw new Error(`${option}: ${file}: ${document.errors[0]!.message}`);
    values.push(document.toJS());
  }
  return values;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pathOfUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).pathname;
  } catch {
    return undefined;
  }
}
