/**
 * `kop import crd`: existing CRDs become API types of the project, in the layout `kop create
 * api` writes, recorded in PROJECT as owned (`--own`: kop generates the CRD from then on) or
 * external (the default: types and typed client only). Stages: documents (crd-documents.ts)
 * -> checked CRDs (imported-crd.ts) -> declarations (schema-to-types.ts) -> files
 * (kind-files.ts, render-types.ts) -> the round trip through kop's own schema pipeline, in
 * memory (verify-round-trip.ts) -> one plan. Any problem stops the command before a file is
 * written.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { type Context, KopError, UsageError } from '../base/index.js';
import {
  fullGroup,
  loadProjectFile,
  saveProjectFile,
  type ProjectFile,
  type ProjectResource,
} from '../project/index.js';
import { flushTree, type FlushResult, loadBoilerplate, VirtualTree } from '../scaffold/index.js';
import { readClusterCrds } from './cluster-crds.js';
import { CoreTypeIndex } from './core-type-index.js';
import { readCrdDocuments, type CrdDocument } from './crd-documents.js';
import { ImportError, importedCrd, type ImportedCrd } from './imported-crd.js';
import { kindFiles } from './kind-files.js';
import { verifyRoundTrip } from './verify-round-trip.js';

/** `kop import crd`'s arguments and flags. */
export interface ImportCrdOptions {
  /** Files, folders and `-` (standard input). */
  sources: string[];
  /** CRD names to read from the cluster instead (`--from-cluster`). */
  fromCluster?: string[];
  kubeconfig?: string;
  context?: string;
  /** The project takes the CRD over: kop generate writes it from the types from then on. */
  own?: boolean;
  /** Keep subtrees no marker expresses as verbatim schema (`+kop:schema`). */
  rawSchema?: boolean;
  /** Import a kind/version the project already has again, overwriting its types. */
  force?: boolean;
  /** Documents already read (a CRD found in a Go module): imported instead of `sources`. */
  documents?: CrdDocument[];
}

/** What an import did, for the command (it runs `kop generate` next) and tests. */
export interface ImportCrdResult extends FlushResult {
  /** Some imported field is a float: `kop generate` needs --allow-dangerous-types. */
  usesFloats: boolean;
  /** Every kind/version imported, as `Kind group/version`. */
  imported: string[];
}

/** Reads standard input (replaced in tests). */
export type ReadStdin = () => Promise<string>;

/** Imports the CRDs named by `options` into the project in `context.cwd`. */
export async function runImportCrd(
  options: ImportCrdOptions,
  context: Context,
  readStdin: ReadStdin = readProcessStdin,
): Promise<ImportCrdResult> {
  const fromCluster = options.fromCluster ?? [];
  if (options.sources.length === 0 && fromCluster.length === 0) {
    throw new UsageError('name the CRDs to import: files, folders, - for standard input, or --from-cluster <name>...');
  }
  if (options.sources.length > 0 && fromCluster.length > 0)
    throw new UsageError('import from files or from the cluster (--from-cluster), not both at once');
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const { usesFloats, imported } = await stageImportCrd(tree, project, options, context, readStdin);
  saveProjectFile(tree, project);
  const result = await flushTree(tree, context);
  return { ...result, usesFloats, imported };
}

/**
 * Stages an import into `tree` and records it in `project` (saved by the caller), so another
 * command (`kop create api --external-api-module <crd>`) can import within its own plan.
 */
export async function stageImportCrd(
  tree: VirtualTree,
  project: ProjectFile,
  options: ImportCrdOptions,
  context: Context,
  readStdin: ReadStdin = readProcessStdin,
): Promise<{ usesFloats: boolean; imported: string[] }> {
  const fromCluster = options.fromCluster ?? [];
  const documents: CrdDocument[] =
    options.documents ??
    (fromCluster.length > 0
      ? await readClusterCrds(fromCluster, { kubeconfig: options.kubeconfig, context: options.context })
      : await readCrdDocuments(options.sources, context.cwd, readStdin));
  if (documents.length === 0) throw new KopError(`${options.sources.join(', ')}: no YAML or JSON document to import`);
  const crds = documents.map(importedCrd);
  checkBatch(crds);

  const own = options.own ?? false;
  const core = new CoreTypeIndex();
  const licenseHeader = await loadBoilerplate(tree, 'x.ts');
  const groupDirs = new GroupDirs(project);
  let usesFloats = false;
  const imported: string[] = [];
  for (const crd of crds) {
    const { group, names, scope } = crd.crd.spec;
    checkProject(project, crd, options.force ?? false);
    const groupDir = groupDirs.dirFor(group);
    const files = await kindFiles(crd, core, {
      groupDir,
      rawSchema: options.rawSchema ?? false,
      exact: own,
      licenseHeader,
      read: (file) => tree.read(file),
    });
    await verifyRoundTrip({
      root: tree.root,
      files: await verificationFiles(tree, files.types, files.groupVersions),
      expected: crd.crd,
      exact: own,
      allowDangerousTypes: files.usesFloats,
    }).catch((error: unknown) => {
      throw error instanceof KopError ? new ImportError(crd.where, error.message, error.hint) : error;
    });
    usesFloats ||= files.usesFloats;
    // An owned kind's CRD is generated from its types from now on: the project allows what they need.
    if (own && files.usesFloats && project.crd?.allowDangerousTypes !== true) {
      project.crd = { ...project.crd, allowDangerousTypes: true };
      context.out.info(
        `${crd.where}: has floats (type: number); PROJECT now allows them in the project's CRDs (crd.allowDangerousTypes, controller-gen's crd:allowDangerousTypes)`,
      );
    }
    for (const [file, content] of files.groupVersions) await tree.scaffold(file, content, { ifExists: 'skip' });
    for (const [file, content] of files.types) {
      // An owned kind's types are the user's from now on; an external kind's are regenerated by importing it again.
      if (own) await tree.scaffold(file, content, { force: options.force ?? false });
      else tree.write(file, content, { kind: 'generated' });
    }
    for (const version of crd.crd.spec.versions) {
      record(project, {
        group: groupDir,
        domain: group.slice(groupDir.length + 1),
        version: version.name,
        kind: names.kind,
        plural: names.plural,
        path: `api/${groupDir}/${version.name}/${names.kind.toLowerCase()}.types.ts`,
        ...(own ? { api: { crdVersion: 'v1', namespaced: scope === 'Namespaced' } } : { external: true }),
      });
      imported.push(`${names.kind} ${group}/${version.name}`);
    }
    if (files.verbatimPaths.length > 0) {
      context.out.warn(
        `${crd.where}: kept verbatim with +kop:schema (no marker expresses them): ${files.verbatimPaths.join(', ')}`,
      );
    }
  }
  return { usesFloats, imported };
}

/** Two CRDs of one import cannot be the same kind, nor share a plural in a group. */
function checkBatch(crds: readonly ImportedCrd[]): void {
  const seen = new Map<string, ImportedCrd>();
  for (const crd of crds) {
    const { group, names } = crd.crd.spec;
    for (const key of [`kind ${names.kind}.${group}`, `plural ${names.plural}.${group}`]) {
      const other = seen.get(key);
      if (other)
        throw new ImportError(
          crd.where,
          `imports ${key.startsWith('kind') ? `kind ${names.kind}` : `plural ${names.plural}`} of ${group}, and so does ${other.where}`,
          'import each kind once',
        );
      seen.set(key, crd);
    }
  }
}

/** Refuses what would clash with the project's kinds: nothing is written then. */
function checkProject(project: ProjectFile, crd: ImportedCrd, force: boolean): void {
  const { group, names } = crd.crd.spec;
  const versions = crd.crd.spec.versions.map((v) => v.name);
  const sameKind = project.resources.filter((r) => r.kind === names.kind && fullGroup(r) === group);
  // The same kind of the same group must be the same CRD: one plural and one scope across its versions.
  const namespaced = crd.crd.spec.scope === 'Namespaced';
  const clash = sameKind.find(
    (r) => r.plural !== names.plural || (r.api !== undefined && r.api.namespaced !== namespaced),
  );
  if (clash) {
    throw new ImportError(
      crd.where,
      `kind ${names.kind} of ${group} clashes with the project's ${names.kind} (${clash.path ?? clash.version}), which is ${clash.plural !== names.plural ? `served as "${clash.plural}", not "${names.plural}"` : clash.api!.namespaced ? 'namespaced' : 'cluster-scoped'}: a kind has one CRD`,
      "import the CRD the kind has, or remove the project's kind first",
    );
  }
  const already = sameKind.filter((r) => versions.includes(r.version));
  if (already.length > 0 && !force) {
    throw new ImportError(
      crd.where,
      `the project already has ${names.kind} ${already.map((r) => `${group}/${r.version}`).join(', ')} (${already.map((r) => r.path ?? `api/${r.group}/${r.version}`).join(', ')})`,
      'pass --force to import it again, overwriting those types',
    );
  }
  const others = sameKind.filter((r) => !versions.includes(r.version));
  if (others.length > 0) {
    throw new ImportError(
      crd.where,
      `the project's ${names.kind} (${group}) has versions ${others.map((r) => r.version).join(', ')} that this CRD does not, and a kind has one CRD`,
      'import a CRD that lists every version of the kind, or remove those versions first',
    );
  }
  const plural = project.resources.find(
    (r) => r.plural === names.plural && fullGroup(r) === group && r.kind !== names.kind,
  );
  if (plural)
    throw new ImportError(
      crd.where,
      `the project's ${plural.kind} already uses the plural "${names.plural}" in ${group}`,
    );
}

/**
 * The folder under api/ for each group: the part before the project's domain when the group is
 * under it (as `kop create api` names it), else its first label, or more labels when another
 * group has that folder already.
 */
class GroupDirs {
  private readonly owner = new Map<string, string>();

  constructor(private readonly project: ProjectFile) {
    for (const r of project.resources) this.owner.set(r.group, fullGroup(r));
  }

  dirFor(group: string): string {
    const labels = group.split('.');
    const candidates: string[] = [];
    if (group.endsWith(`.${this.project.domain}`)) candidates.push(group.slice(0, -this.project.domain.length - 1));
    for (let n = 1; n < labels.length; n++) candidates.push(labels.slice(0, n).join('.'));
    for (const candidate of candidates) {
      const owner = this.owner.get(candidate);
      if (owner === undefined || owner === group) {
        this.owner.set(candidate, group);
        return candidate;
      }
    }
    throw new KopError(
      `no folder under api/ is free for group ${group}: ${candidates.map((c) => `api/${c}`).join(', ')} hold other groups`,
    );
  }
}

/** The files the round trip reads: the new ones, and the other API files of their folders (package markers live there too). */
async function verificationFiles(
  tree: VirtualTree,
  types: ReadonlyMap<string, string>,
  groupVersions: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const files = new Map<string, string>([...groupVersions, ...types]);
  for (const dir of new Set([...types.keys()].map((file) => path.posix.dirname(file)))) {
    // Staged by an earlier CRD of the same import, or on disk.
    const groupVersion = `${dir}/groupversion.ts`;
    const staged = files.has(groupVersion) ? undefined : await tree.read(groupVersion);
    if (staged !== undefined) files.set(groupVersion, staged);
    let entries: string[];
    try {
      entries = await fs.readdir(path.join(tree.root, dir));
    } catch {
      continue;
    }
    for (const name of entries) {
      const file = `${dir}/${name}`;
      if (
        !name.endsWith('.ts') ||
        name.endsWith('.client.ts') ||
        name.endsWith('.apply.ts') ||
        name.endsWith('.test.ts') ||
        name.endsWith('.d.ts') ||
        files.has(file)
      )
        continue;
      const text = await tree.read(file);
      if (text !== undefined) files.set(file, text);
    }
  }
  return files;
}

/** Adds or replaces the PROJECT entry of a kind/version, keeping its reconciler and webhooks. */
function record(project: ProjectFile, entry: ProjectResource): void {
  const index = project.resources.findIndex(
    (r) => r.kind === entry.kind && r.version === entry.version && fullGroup(r) === fullGroup(entry),
  );
  const previous = index === -1 ? undefined : project.resources[index]!;
  const merged: ProjectResource = {
    ...entry,
    ...(previous?.controller ? { controller: true } : {}),
    ...(previous?.webhooks ? { webhooks: previous.webhooks } : {}),
  };
  if (index === -1) project.resources.push(merged);
  else project.resources[index] = merged;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
