import { LineCounter, parseDocument, stringify } from 'yaml';
import { KopError } from '../base/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import { validateProjectDocument } from './validate-project.js';

/**
 * The project file is named `PROJECT`, as in Kubebuilder, so that a Kubebuilder user
 * finds the single source of truth where they expect it; its `layout` names kop's
 * TypeScript layout so no Go tooling mistakes it for one of its own.
 */
export const PROJECT_FILE = 'PROJECT';

/** The scaffold layout this version of kop writes and understands. */
export const LAYOUT = 'kop.dev/typescript/v1';

/** Version of the PROJECT file's own format. */
export const PROJECT_FORMAT_VERSION = '1';

/** The webhooks `kop create webhook` scaffolded for one kind/version (Kubebuilder's PROJECT keys). */
export interface ProjectWebhooks {
  defaulting?: boolean;
  validation?: boolean;
  /** This version is the hub (storage version) of a conversion webhook. */
  conversion?: boolean;
  /** The versions that convert to and from this hub. */
  spoke?: string[];
  /** The mutating webhook's path when not controller-runtime's default (`--defaulting-path`). */
  defaultingPath?: string;
  /** The validating webhook's path when not controller-runtime's default (`--validation-path`). */
  validationPath?: string;
  webhookVersion?: 'v1';
}

/** One named reconciler of a kind (PROJECT's `controllers:` list). */
export interface ProjectController {
  /** A DNS-1035 label: the file stem, the controller's name in logs and metrics labels. */
  name: string;
}

/** One API version of one kind, as recorded by `kop create api`. */
export interface ProjectResource {
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural used in URLs and the CRD name. */
  plural: string;
  domain: string;
  /**
   * Where the kind's types come from: the API type file, relative to the project root; for an
   * external kind of an npm package, the module specifier the reconciler imports it from; for a
   * built-in kind, `kop/runtime` (Kubebuilder records the Go package here).
   */
  path?: string;
  /** Present when kop scaffolded the API type (a CRD is generated for it). */
  api?: {
    crdVersion: 'v1';
    namespaced: boolean;
    /** `create api --ssa`: `kop generate` writes typed server-side apply configurations and the reconciler applies (Kubebuilder's key). */
    ssa?: boolean;
    /**
     * `create api --no-conversion` for this version: the kind's versions share one schema and
     * convert by apiVersion alone, so `kop generate` writes the CRD's `spec.conversion.strategy: None`
     * (a conversion webhook recorded on the kind's hub takes precedence).
     */
    conversion?: 'None';
  };
  /** True when a reconciler was scaffolded for this kind (Kubebuilder's legacy key, one unnamed controller). */
  controller?: boolean;
  /**
   * The named reconcilers of this kind (`kop create api --controller-name <name>`), as Kubebuilder
   * records them; replaces `controller: true`, whose reconciler becomes the one named after the
   * lower-case kind. Each is src/controllers/<name>.controller.ts (src/controllers/<group>/ in a
   * multigroup project), registered under <name> (the unnamed one as <group>-<kind> in a multigroup project).
   */
  controllers?: ProjectController[];
  /**
   * Where an external kind comes from (`--external-api-module`): an npm dependency spec
   * (`name@range`, added to package.json) or the CRD file or folder it was imported from.
   */
  module?: string;
  /**
   * The kind belongs to another project (`kop import crd` without --own): its types and typed
   * client are here for reconcilers to use, and `kop generate` never writes its CRD.
   */
  external?: boolean;
  /**
   * A built-in Kubernetes kind (Kubebuilder's `core: true`): `group` as Kubebuilder spells it
   * (`core`, `apps`, `events`), `domain` empty or `k8s.io`, `path` the Go package Kubebuilder
   * records (k8s.io/api/<group>/<version>); its types and descriptor come from kop/api and kop/runtime.
   */
  core?: boolean;
  webhooks?: ProjectWebhooks;
}

/**
 * The options one `create api --plugins deploy-image/v1-alpha` ran with, for one kind/version
 * (Kubebuilder's shape: every option a string, absent when the flag was not given).
 */
export interface DeployImageOptions {
  /** The image the kind's Deployment runs (`--image`). */
  image: string;
  /** The container's command, comma-separated (`--image-container-command`). */
  containerCommand?: string;
  /** The container port, as digits (`--image-container-port`). */
  containerPort?: string;
  /** The user id the container runs as, as digits (`--run-as-user`). */
  runAsUser?: string;
}

/**
 * Kubebuilder's `plugins:` key: per plugin, by its full key, the configuration it ran with, so
 * that re-scaffolding a project (`alpha generate`) can replay every plugin:
 *
 * ```yaml
 * plugins:
 *   deploy-image.go.kubebuilder.io/v1-alpha:      # create api --plugins deploy-image/v1-alpha
 *     resources:
 *       - { domain: example.com, group: cache, version: v1alpha1, kind: Memcached,
 *           options: { image: memcached:1.6.26-alpine3.19, containerPort: "11211", runAsUser: "1001" } }
 *   grafana.kubebuilder.io/v1-alpha: {}            # edit --plugins grafana.kubebuilder.io/v1-alpha
 *   helm.kubebuilder.io/v2-alpha: {}               # edit --plugins helm (kop's chart in dist/chart)
 * ```
 *
 * Replay: for each deploy-image resource, `kop create api --group <group> --version <version>
 * --kind <kind> --plugins deploy-image/v1-alpha --image <image> [--image-container-command …]
 * [--image-container-port …] [--run-as-user …]`; for every other key, `kop edit --plugins <key>`.
 */
export interface ProjectPlugins {
  'deploy-image.go.kubebuilder.io/v1-alpha'?: { resources: DeployImageResource[] };
  [plugin: string]: Record<string, unknown> | undefined;
}

/** One kind scaffolded by the deploy-image plugin. */
export interface DeployImageResource {
  domain: string;
  group: string;
  version: string;
  kind: string;
  options: DeployImageOptions;
}

/**
 * Project-wide settings of the CRDs `kop generate manifests` writes (controller-gen's `crd:`
 * options, which a Kubebuilder project keeps in its Makefile). Every command that generates
 * reads them, so `kop generate`, `--check`, `kop dev` and `kop alpha update` write the same CRDs.
 * Replay: `kop edit --max-description-length <bytes> --allow-dangerous-types --generate-embedded-object-meta`.
 */
export interface ProjectCrdSettings {
  /** Cap on every description, in bytes (controller-gen's `crd:maxDescLen`); 0 removes them. */
  maxDescriptionLength?: number;
  /** TypeScript `number` becomes `type: number` (controller-gen's `crd:allowDangerousTypes`); recorded only when true. */
  allowDangerousTypes?: boolean;
  /** Embedded ObjectMeta gets its properties (controller-gen's `crd:generateEmbeddedObjectMeta`); recorded only when true. */
  generateEmbeddedObjectMeta?: boolean;
}

export interface ProjectFile {
  version: string;
  layout: string[];
  domain: string;
  projectName: string;
  /** The manager watches only WATCH_NAMESPACE and RBAC uses Roles. */
  namespaced?: boolean;
  /**
   * Kubebuilder's `multigroup: true` (`kop init --multigroup`, `kop edit --multigroup`): reconcilers
   * live by group, src/controllers/<group>/<name>.controller.ts (tests in test/controllers/<group>/),
   * main.ts imports each under a group-prefixed name, and the unnamed reconciler of a kind is
   * registered as `<group>-<kind>`. Absent or false: the single-group layout, src/controllers/<name>.controller.ts.
   * Replay: `kop init --multigroup` (or `kop edit --multigroup` before the first create api).
   */
  multigroup?: boolean;
  /** How the project depends on kop (an npm dependency spec), so later commands keep it. */
  kopSource?: string;
  /**
   * The version of kop that scaffolded the project (`kop init`) or last upgraded it (`kop alpha
   * update`), Kubebuilder's key: `kop alpha update` rebuilds that version's scaffold as the merge base.
   */
  cliVersion?: string;
  /** Settings of the generated CRDs (see {@link ProjectCrdSettings}). */
  crd?: ProjectCrdSettings;
  resources: ProjectResource[];
  /** The plugins the project was scaffolded with (see {@link ProjectPlugins}). */
  plugins?: ProjectPlugins;
  /**
   * The files `kop generate` wrote for this project (project-relative, sorted): the only ones it
   * will ever delete when their kind or version goes away. A file that merely carries kop's
   * header (copied from another project, or reached through a link) is never deleted.
   */
  generated?: string[];
}

/** Reads and validates the PROJECT file; a clear error when there is none. */
export async function loadProjectFile(tree: VirtualTree): Promise<ProjectFile> {
  const text = await tree.read(PROJECT_FILE);
  if (text === undefined) {
    throw new KopError(
      `no ${PROJECT_FILE} file in ${tree.root}: this is not a kop project`,
      'run `kop init` first, or run the command from the project root',
    );
  }
  return parseProjectFile(text);
}

export function parseProjectFile(text: string): ProjectFile {
  // Parsed once, for the data and for the lines validateProjectDocument names, as yaml's parse() would:
  // warnings emitted, the first error thrown.
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  for (const warning of doc.warnings) process.emitWarning(warning);
  if (doc.errors.length > 0) throw new KopError(`${PROJECT_FILE} is not valid YAML: ${doc.errors[0]!.message}`);
  const data: unknown = doc.toJS();
  if (typeof data !== 'object' || data === null) throw new KopError(`${PROJECT_FILE} is empty or not a mapping`);
  const project = data as Partial<ProjectFile>;
  for (const field of ['version', 'domain', 'projectName'] as const) {
    if (typeof project[field] !== 'string' || project[field] === '') {
      throw new KopError(`${PROJECT_FILE} has no ${field}`);
    }
  }
  if (!Array.isArray(project.layout) || !project.layout.includes(LAYOUT)) {
    throw new KopError(
      `${PROJECT_FILE} has layout ${JSON.stringify(project.layout)}, which this kop does not understand (it writes ${LAYOUT})`,
    );
  }
  validateProjectDocument(doc, lineCounter, PROJECT_FORMAT_VERSION);
  // Kubebuilder writes no domain for core kinds of the legacy and unsuffixed groups (core, apps).
  const resources = (project.resources ?? []).map((r) =>
    r.core === true && r.domain === undefined ? { ...r, domain: '' } : r,
  );
  return { ...project, resources } as ProjectFile;
}

/** Serialises with a stable key order so re-runs produce identical bytes. */
export function formatProjectFile(project: ProjectFile): string {
  const ordered: ProjectFile = {
    version: project.version,
    layout: project.layout,
    domain: project.domain,
    projectName: project.projectName,
    ...(project.namespaced !== undefined ? { namespaced: project.namespaced } : {}),
    ...(project.multigroup === true ? { multigroup: true } : {}),
    ...(project.kopSource !== undefined ? { kopSource: project.kopSource } : {}),
    ...(project.cliVersion !== undefined ? { cliVersion: project.cliVersion } : {}),
    ...(project.crd !== undefined && Object.keys(project.crd).length > 0 ? { crd: project.crd } : {}),
    resources: [...project.resources].sort(compareResources).map(withoutEmptyCoreDomain),
    ...(project.plugins !== undefined && Object.keys(project.plugins).length > 0
      ? { plugins: sortedKeys(project.plugins) }
      : {}),
    ...(project.generated !== undefined ? { generated: [...new Set(project.generated)].sort() } : {}),
  };
  const header =
    '# Code generated by kop. DO NOT EDIT.\n# kop reads and records the project here; it is the source of truth for kop commands.\n';
  return header + stringify(ordered, { lineWidth: 0 });
}

export function saveProjectFile(tree: VirtualTree, project: ProjectFile): void {
  tree.write(PROJECT_FILE, formatProjectFile(project), { kind: 'generated' });
}

/** A core kind of the `core` or `apps` group has no domain: written without the key, as Kubebuilder does. */
function withoutEmptyCoreDomain(resource: ProjectResource): ProjectResource {
  if (resource.core !== true || resource.domain !== '') return resource;
  const { domain: _domain, ...rest } = resource;
  return rest as ProjectResource;
}

function sortedKeys<T extends object>(mapping: T): T {
  return Object.fromEntries(Object.entries(mapping).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as T;
}

function compareResources(a: ProjectResource, b: ProjectResource): number {
  const ka = `${a.group}/${a.kind}/${a.version}`;
  const kb = `${b.group}/${b.kind}/${b.version}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The resource's full API group, e.g. `cache.example.com` (`""` for Kubebuilder's `core` group of built-in kinds). */
export function fullGroup(resource: Pick<ProjectResource, 'group' | 'domain' | 'core'>): string {
  if (resource.core === true && resource.group === 'core') return '';
  if (resource.group === '') return resource.domain;
  return resource.domain === '' ? resource.group : `${resource.group}.${resource.domain}`;
}
