/**
 * Kubebuilder's `--external-api-path`, `--external-api-domain` and `--external-api-module` in
 * TypeScript terms, for reconcilers of kinds another project owns:
 *
 * - the **module** is where the kind comes from: an npm dependency spec (`name@range`), added to
 *   package.json's dependencies, or a CRD file or folder, imported as `kop import crd` does (the
 *   types under api/<group>/<version>, recorded in PROJECT as external), or a Go module
 *   (`github.com/cert-manager/cert-manager@v1.20.2`), fetched from the module proxy and the
 *   kind's CRD imported from it the same way;
 * - the **path** is where the reconciler imports the kind's type and descriptor from: a module
 *   specifier inside the npm package (`@acme/issuer-api/v1`, which exports `Issuer` and
 *   `issuerType`), or a folder under api/ holding `<kind>.types.ts` (and, after `kop generate`,
 *   its `<kind>.client.ts`);
 * - the **domain** completes `--group` to the kind's API group (`cert-manager` + `io`), which the
 *   RBAC rules name; without it the project's domain is used, as in Kubebuilder.
 */
import * as path from 'node:path';
import { type Context, KopError, UsageError } from '../base/index.js';
import {
  fullGroup,
  type ProjectFile,
  type ProjectResource,
  checkDomain,
  kindModulesOf,
  requireValid,
  singularOf,
} from '../project/index.js';
import type { VirtualTree } from '../scaffold/index.js';
import type { CrdDocument } from './crd-documents.js';
import { fetchGoModule, resolveGoModuleVersion } from './go-module/fetch-go-module.js';
import { findModuleCrd, type ModuleCrd } from './go-module/module-crds.js';
import { parseModuleVersion } from './go-module/module-path.js';
import { stageImportCrd } from './run-import-crd.js';

/** The three flags, as given. */
export interface ExternalApiFlags {
  path?: string;
  domain?: string;
  module?: string;
}

/** An external kind, ready for the reconciler template and PROJECT. */
export interface ExternalKind {
  /** The PROJECT entry the kind has, or gets: group and domain as Kubebuilder splits them. */
  entry: ProjectResource;
  /** Module specifiers as src/controllers/<name>.controller.ts imports them. */
  descriptorModule: string;
  typesModule: string;
}

/** npm package names (scoped or not), as npm validates new ones. */
const PACKAGE_NAME = /^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/;
/** What a module specifier may hold here: no quotes, spaces or anything that could leave the import string. */
const MODULE_SPECIFIER = /^[A-Za-z0-9@._~/-]+$/;

/** True when any of the flags is given. */
export function hasExternalApiFlags(flags: ExternalApiFlags): boolean {
  return flags.path !== undefined || flags.domain !== undefined || flags.module !== undefined;
}

/** The checks that need nothing but the flags: run before anything is staged. */
export function checkExternalApiFlags(flags: ExternalApiFlags): void {
  if (flags.domain !== undefined && flags.path === undefined) {
    throw new UsageError(
      '--external-api-domain needs --external-api-path: the domain completes the group of a kind whose types come from that path',
      'pass --external-api-path too (a folder under api/ or a module of an npm package)',
    );
  }
  if (flags.module !== undefined && isGoModule(flags.module)) parseModuleVersion(flags.module);
  if (
    flags.module !== undefined &&
    flags.path === undefined &&
    !isCrdSource(flags.module) &&
    !isGoModule(flags.module)
  ) {
    throw new UsageError(
      `--external-api-module ${flags.module} is an npm package: pass --external-api-path with the module of that package to import the kind from (e.g. ${packageNameOf(flags.module) ?? 'name'}/v1)`,
    );
  }
  if (flags.domain !== undefined) requireValid(checkDomain, flags.domain, '--external-api-domain');
  if (
    flags.path !== undefined &&
    (flags.path === '' || !MODULE_SPECIFIER.test(flags.path) || flags.path.split('/').includes('..'))
  ) {
    throw new UsageError(
      `--external-api-path: ${JSON.stringify(flags.path)} is neither a folder under api/ nor a module specifier (letters, digits, @ . _ ~ / -, no '..')`,
    );
  }
}

/**
 * Resolves the flags into the kind's PROJECT entry and import specifiers, staging what they
 * bring: the CRD's types (module = CRD file) or the package.json dependency (module = npm spec).
 */
export async function resolveExternalKind(
  flags: ExternalApiFlags,
  wanted: { group: string; version: string; kind: string; plural?: string },
  tree: VirtualTree,
  project: ProjectFile,
  context: Context,
): Promise<ExternalKind> {
  const domain = flags.domain ?? project.domain;
  const group = fullGroup({ group: wanted.group, domain });
  const kindLower = singularOf(wanted.kind);

  if (flags.module !== undefined && (isCrdSource(flags.module) || isGoModule(flags.module))) {
    // A Go module without a version (or @latest) is recorded at the version it resolved to, so a re-run imports the same CRD.
    const module = isGoModule(flags.module) ? await pinGoModule(flags.module, context) : flags.module;
    const isWanted = (r: ProjectResource) =>
      r.external === true && r.kind === wanted.kind && r.version === wanted.version && fullGroup(r) === group;
    // A kind an earlier command brought from the same module (a CRD file of several kinds) is not imported again.
    if (!project.resources.some((r) => isWanted(r) && r.module === module)) {
      let source: { sources: string[]; documents?: CrdDocument[] } = { sources: [module] };
      if (isGoModule(module)) {
        const found = await goModuleCrd(module, { group, kind: wanted.kind }, context);
        source = { sources: [], documents: [found.document] };
        // The tests' control plane installs other projects' CRDs from test/crds/ (webhook tests need the kind served).
        const copy = `test/crds/${path.posix.basename(found.file)}`;
        if (!(await tree.exists(copy))) tree.write(copy, await formatYaml(tree, found.text), { kind: 'scaffolded' });
      }
      const { imported } = await stageImportCrd(tree, project, source, context);
      // Every kind the module brought comes from it (stageImportCrd lists them as `Kind group/version`).
      for (const r of project.resources)
        if (r.external === true && imported.includes(`${r.kind} ${fullGroup(r)}/${r.version}`)) r.module = module;
    }
    const entry = project.resources.find(isWanted);
    if (entry === undefined) {
      const found = project.resources
        .filter((r) => r.external === true && (r.module === undefined || r.module === module) && r.kind === wanted.kind)
        .map((r) => `${fullGroup(r)}/${r.version}`);
      throw new KopError(
        `--external-api-module ${module}: no ${wanted.kind} ${group}/${wanted.version} in it${found.length > 0 ? ` (it has ${wanted.kind} ${found.join(', ')})` : ''}; nothing was written`,
        'pass the --group, --version and --external-api-domain of a kind the CRD defines',
      );
    }
    const dir = path.posix.dirname(entry.path!);
    // Kubebuilder's path is the Go package of the kind's types; here the types come from the CRD, so a Go package path says nothing more.
    if (flags.path !== undefined && localFolder(flags.path) !== dir && !isGoPackagePath(flags.path)) {
      throw new UsageError(
        `--external-api-path ${flags.path}: the CRD's ${wanted.kind} types go to ${dir}`,
        `pass --external-api-path ${dir}, or leave it out`,
      );
    }
    return { entry, ...kindModulesOf(entry, '../../') };
  }

  const given = flags.path!;
  if (isLocalPath(given)) {
    const dir = localFolder(given);
    if (!dir.startsWith('api/'))
      throw new UsageError(
        `--external-api-path ${given}: a folder of the project must be under api/, as kop import crd writes it`,
      );
    const typesFile = `${dir}/${kindLower}.types.ts`;
    if (!(await tree.exists(typesFile))) {
      throw new KopError(
        `--external-api-path ${given}: there is no ${typesFile} with the ${wanted.kind} type`,
        'import its CRD first (kop import crd <file>), or pass --external-api-module <crd file>',
      );
    }
    if (flags.module !== undefined)
      throw new UsageError(
        `--external-api-module ${flags.module} is an npm package, but --external-api-path ${given} is a folder of the project`,
        'pass the module of the package as --external-api-path',
      );
    const entry = externalEntry(project, { ...wanted, domain, path: typesFile, plural: wanted.plural });
    return { entry, ...kindModulesOf(entry, '../../') };
  }

  // A module of an npm package.
  const packageName = packageNameOf(given);
  if (packageName === undefined)
    throw new UsageError(
      `--external-api-path ${given}: not a module of an npm package (name or @scope/name, then an optional /subpath)`,
    );
  if (flags.module !== undefined) {
    const spec = parsePackageSpec(flags.module);
    if (spec.name !== packageName) {
      throw new UsageError(
        `--external-api-path ${given} is a module of ${packageName}, but --external-api-module names ${spec.name}`,
        `pass --external-api-path ${spec.name}/<module>`,
      );
    }
    await addDependency(tree, spec.name, spec.range);
  } else if (!(await dependsOn(tree, packageName))) {
    throw new KopError(
      `--external-api-path ${given}: package.json does not depend on ${packageName}`,
      `pass --external-api-module ${packageName}@<version> to add it`,
    );
  }
  const entry = externalEntry(project, { ...wanted, domain, path: given, plural: wanted.plural });
  if (flags.module !== undefined) entry.module = flags.module;
  return { entry, descriptorModule: given, typesModule: given };
}

/** `path@version` as given, or the version `@latest` (or none) resolves to through the module proxy. */
async function pinGoModule(module: string, context: Context): Promise<string> {
  const { path: modulePath, version } = await resolveGoModuleVersion(module, {});
  const pinned = `${modulePath}@${version}`;
  if (pinned !== module) context.out.info(`${module} resolves to ${pinned}, which PROJECT records`);
  return pinned;
}

/** The CRD of the kind in a Go module, fetched (or read from the cache) and verified. */
async function goModuleCrd(
  module: string,
  wanted: { group: string; kind: string },
  context: Context,
): Promise<ModuleCrd> {
  const fetched = await fetchGoModule(module, { cwd: context.cwd, warn: (m) => context.out.warn(m) });
  const found = findModuleCrd(fetched, wanted);
  const checked =
    fetched.verification === 'checksum database'
      ? `verified by ${fetched.sumDb}`
      : fetched.verification === 'go.sum'
        ? 'verified by go.sum'
        : 'not verified';
  context.out.info(
    `${fetched.path}@${fetched.version} (${fetched.fromCache ? 'cached' : 'downloaded'}, ${checked}): ${wanted.kind} from ${found.file}`,
  );
  return found;
}

/** YAML as the project's Prettier settings format it, so the copy passes `npm run format:check`. */
async function formatYaml(tree: VirtualTree, text: string): Promise<string> {
  const configText = await tree.read('.prettierrc.json');
  if (configText === undefined) return text;
  // Loaded here only: most commands never format YAML, and kop --help stays quick.
  const prettier = await import('prettier');
  return prettier.format(text, { ...(JSON.parse(configText) as object), parser: 'yaml' });
}

/** A CRD file or folder rather than an npm spec: a relative or absolute path, or a YAML/JSON file name. */
export function isCrdSource(module: string): boolean {
  return (
    module.startsWith('./') || module.startsWith('../') || module.startsWith('/') || /\.(ya?ml|json)$/i.test(module)
  );
}

/** A Go module path, with or without `@version` (`github.com/cert-manager/cert-manager@v1.20.2`): a host name, then a path. */
export function isGoModule(module: string): boolean {
  return !module.startsWith('@') && !isCrdSource(module) && isGoPackagePath(module.replace(/@[^@/]*$/, ''));
}

/** A Go import path (`github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1`): its first element is a host name with a dot. */
function isGoPackagePath(value: string): boolean {
  return /^[a-z0-9-]+(\.[a-z0-9-]+)+\/[^\s]+$/i.test(value) && !value.startsWith('./');
}

function isLocalPath(value: string): boolean {
  return value.startsWith('./') || value === 'api' || value.startsWith('api/');
}

/** `./api/x/v1/` -> `api/x/v1`. */
function localFolder(value: string): string {
  return path.posix.normalize(value).replace(/^\.\//, '').replace(/\/+$/, '');
}

/** The PROJECT entry of the kind, existing or new, marked external. */
function externalEntry(
  project: ProjectFile,
  wanted: { group: string; version: string; kind: string; domain: string; path: string; plural?: string },
): ProjectResource {
  const group = fullGroup(wanted);
  const existing = project.resources.find(
    (r) => r.kind === wanted.kind && r.version === wanted.version && fullGroup(r) === group,
  );
  if (existing && !existing.external) {
    throw new KopError(
      `${wanted.kind} ${group}/${wanted.version} is an API of this project, not an external one`,
      'leave out the --external-api-* flags',
    );
  }
  const entry: ProjectResource = existing ?? {
    group: wanted.group,
    version: wanted.version,
    kind: wanted.kind,
    plural: wanted.plural ?? '',
    domain: wanted.domain,
  };
  entry.external = true;
  entry.path = wanted.path;
  if (wanted.plural !== undefined) entry.plural = wanted.plural;
  return entry;
}

/** `@scope/name/sub/path` -> `@scope/name`; `name/sub` -> `name`. */
function packageNameOf(specifier: string): string | undefined {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
  return PACKAGE_NAME.test(name) ? name : undefined;
}

/** `name@range`, `@scope/name@range` or a bare name (then `latest`). */
function parsePackageSpec(module: string): { name: string; range: string } {
  const at = module.indexOf('@', module.startsWith('@') ? 1 : 0);
  const name = at === -1 ? module : module.slice(0, at);
  const range = at === -1 ? 'latest' : module.slice(at + 1);
  if (!PACKAGE_NAME.test(name) || range === '' || /[\s"'`\\]/.test(range)) {
    throw new UsageError(
      `--external-api-module: ${JSON.stringify(module)} is neither an npm package spec (name@range, e.g. @acme/issuer-api@^1.2.0) nor a CRD file (./crds/issuer.yaml)`,
    );
  }
  return { name, range };
}

async function readPackageJson(tree: VirtualTree): Promise<Record<string, unknown>> {
  const text = await tree.read('package.json');
  if (text === undefined)
    throw new KopError('there is no package.json in the project', 'run the command from the project root');
  return JSON.parse(text) as Record<string, unknown>;
}

async function dependsOn(tree: VirtualTree, name: string): Promise<boolean> {
  const json = await readPackageJson(tree);
  return [json.dependencies, json.devDependencies, json.peerDependencies].some(
    (deps) => typeof deps === 'object' && deps !== null && name in deps,
  );
}

/** Adds (or re-points) a dependency, keeping the order npm keeps: sorted by name. */
async function addDependency(tree: VirtualTree, name: string, range: string): Promise<void> {
  const json = await readPackageJson(tree);
  const deps = { ...((json.dependencies as Record<string, string> | undefined) ?? {}), [name]: range };
  json.dependencies = Object.fromEntries(Object.entries(deps).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  tree.write('package.json', `${JSON.stringify(json, null, 2)}\n`, { kind: 'scaffolded' });
}
