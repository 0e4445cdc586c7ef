import { type Context, KopError, UsageError } from '../base/index.js';
import { loadProjectFile } from '../project/index.js';
import { VirtualTree } from '../scaffold/index.js';
import { connect, DEPLOY_PATHS, type ClusterOptions, renderKustomization } from '../deploy/index.js';
import { isNotFound } from '../runtime/index.js';
import type { RestClient } from '../runtime/client/index.js';
import {
  migrateStorageVersion,
  MIGRATION_ANNOTATION,
  type StorageMigrationProgress,
  type StorageMigrationResult,
} from '../runtime/internal.js';

/** `kop migrate storage`'s options. */
export interface MigrateStorageOptions extends ClusterOptions {
  /** CRD names (`widgets.example.com`); default every CRD config/crd builds. */
  crds?: string[];
  /** Objects listed per page (progress is saved after each); default 500. */
  pageSize?: string | number;
  /** Objects rewritten at once; default 1. */
  concurrency?: string | number;
  /** Forget the progress of an earlier run and walk every object again. */
  restart?: boolean;
}

/** Failed objects named in the error; the rest are counted. */
const NAMED_FAILURES = 10;

/**
 * `kop migrate storage`: rewrites every object of the project's CRDs (or the CRDs named) at the
 * storage version and prunes the old versions from `status.storedVersions`, after which `kop
 * install` may drop them (see migrateStorageVersion in kop/runtime/client). Killed, it resumes on
 * the next run from the progress saved on the CRD; an object the apiserver refuses to rewrite
 * fails the command with the count and the reasons, and the old versions stay.
 */
export async function runMigrateStorage(options: MigrateStorageOptions, context: Context): Promise<void> {
  const pageSize = positiveInteger(options.pageSize, '--page-size', 500);
  const concurrency = positiveInteger(options.concurrency, '--concurrency', 1);
  const names = options.crds?.length ? options.crds : await projectCrds(context);
  const rest = connect(options, context, 'kop-migrate');
  const refusals: string[] = [];
  try {
    context.out.info(
      `${context.dryRun ? 'Dry run against' : 'Using'} context "${rest.config.context}" (${rest.config.server})`,
    );
    for (const name of names) {
      if (context.dryRun) {
        await describe(rest, name, context);
        continue;
      }
      let result: StorageMigrationResult;
      try {
        result = await migrateStorageVersion(rest, name, {
          pageSize,
          concurrency,
          restart: options.restart,
          onProgress: (progress) => context.out.info(progressLine(progress)),
          logger: {
            debug: (message) => context.out.debug(`${name}: ${message}`),
            info: (message) => context.out.info(`${name}: ${message}`),
            warn: (message) => context.out.warn(`${name}: ${message}`),
            error: (message) => context.out.warn(`${name}: ${message}`),
            child() {
              return this;
            },
          },
        });
      } catch (error) {
        if (isNotFound(error) && error.path.includes('customresourcedefinitions')) {
          throw new KopError(
            `CustomResourceDefinition ${name} is not in the cluster`,
            'name an installed CRD (kubectl get crd), or run `kop install` first',
          );
        }
        throw error;
      }
      if (result.refusal) {
        refusals.push(refusalText(result));
      } else if (result.pruned.length > 0) {
        context.out.info(
          `${name}: every object is stored at ${result.storageVersion}; removed ${result.pruned.join(', ')} from status.storedVersions`,
        );
      } else {
        context.out.info(`${name}: only ${result.storageVersion} is stored; nothing to migrate`);
      }
    }
  } finally {
    rest.close();
  }
  if (refusals.length > 0) {
    throw new KopError(
      refusals.join('\n'),
      'fix or delete the objects named (the reasons are the apiserver’s), then run `kop migrate storage` again: it tries them first and keeps the rest of the progress',
    );
  }
}

function progressLine(p: StorageMigrationProgress): string {
  const done = p.rewritten + p.unchanged + p.gone + p.failed;
  const of = p.total !== undefined ? `${done}/${p.total}` : String(done);
  const last = p.lastObject ? `, last ${p.lastObject}` : '';
  return `${p.crd}: ${of} objects${p.resumed ? ' (resumed)' : ''}: ${p.rewritten} rewritten at ${p.storageVersion}, ${p.unchanged} already there, ${p.gone} gone, ${p.failed} failed${last}`;
}

function refusalText(result: StorageMigrationResult): string {
  const named = result.failures
    .slice(0, NAMED_FAILURES)
    .map((f) => `  ${f.namespace ? `${f.namespace}/` : ''}${f.name}: ${f.reason}`);
  const more = result.failed - named.length;
  return [
    `refusing to prune status.storedVersions: ${result.refusal}:`,
    ...named,
    ...(more > 0 ? [`  and ${more} more`] : []),
  ].join('\n');
}

/** `--dry-run`: what a migration would find, without writing. */
async function describe(rest: RestClient, name: string, context: Context): Promise<void> {
  interface Crd {
    metadata: { annotations?: Record<string, string> };
    spec: { group: string; names: { plural: string }; versions: Array<{ name: string; storage: boolean }> };
    status?: { storedVersions?: string[] };
  }
  let crd: Crd;
  try {
    crd = await rest.get<Crd>(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${encodeURIComponent(name)}`);
  } catch (error) {
    if (isNotFound(error)) throw new KopError(`CustomResourceDefinition ${name} is not in the cluster`);
    throw error;
  }
  const storage = crd.spec.versions.find((v) => v.storage)?.name ?? '(none)';
  const stored = crd.status?.storedVersions ?? [];
  const old = stored.filter((v) => v !== storage);
  if (old.length === 0) {
    context.out.info(`${name}: only ${storage} is stored; nothing to migrate`);
    return;
  }
  const list = await rest.request<{ items: unknown[]; metadata: { remainingItemCount?: number } }>({
    method: 'GET',
    path: `/apis/${crd.spec.group}/${storage}/${crd.spec.names.plural}`,
    query: { limit: 1 },
    accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
  });
  const count = list.items.length + (list.metadata.remainingItemCount ?? 0);
  const saved = crd.metadata.annotations?.[MIGRATION_ANNOTATION] !== undefined ? '; an earlier run saved progress' : '';
  context.out.info(
    `${name}: would rewrite ${count} objects at ${storage} and remove ${old.join(', ')} from status.storedVersions${saved}`,
  );
}

/** The names of the CRDs config/crd builds: what `kop install` installs. */
async function projectCrds(context: Context): Promise<string[]> {
  await loadProjectFile(new VirtualTree(context.cwd));
  const names = (await renderKustomization(DEPLOY_PATHS.crd, context))
    .filter((object) => object.kind === 'CustomResourceDefinition')
    .map((object) => (object.metadata as { name?: string } | undefined)?.name)
    .filter((name): name is string => typeof name === 'string');
  if (names.length === 0) {
    throw new KopError(
      'config/crd builds no CRDs, and none were named',
      'name CRDs (`kop migrate storage widgets.example.com`), or run `kop generate manifests` first',
    );
  }
  return names;
}

function positiveInteger(value: string | number | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`${flag} ${String(value)}: not a whole number above 0`);
  return n;
}
