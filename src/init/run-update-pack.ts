import { realpath } from 'node:fs/promises';
import { type Context, KopError, kopPackageRoot } from '../base/index.js';
import { loadProjectFile, saveProjectFile } from '../project/index.js';
import { flushTree, type FlushResult, type PostFlushTask, VirtualTree } from '../scaffold/index.js';
import { packKop, PACK_DIR } from './kop-source.js';
import { npmInstallTask, stageKopPack } from './run-init.js';

/** `kop update-pack`'s flags. */
export interface UpdatePackOptions {
  skipInstall?: boolean;
}

/**
 * Packs the running kop into the project (`.kop/kop-<version>.tgz`, replacing any other kop
 * tarball there) and points package.json's `kop` dependency and PROJECT's `kopSource` at it;
 * then `npm install kop@file:.kop/kop-<version>.tgz` brings the lockfile and node_modules along.
 * Packing the same kop again changes nothing ("no changes", no install).
 */
export async function runUpdatePack(options: UpdatePackOptions, context: Context): Promise<FlushResult> {
  const tree = new VirtualTree(context.cwd);
  const project = await loadProjectFile(tree);
  const kopRoot = kopPackageRoot();
  if ((await realpath(context.cwd)) === (await realpath(kopRoot))) {
    throw new KopError(
      `${context.cwd} is kop's own package folder, not a project that depends on kop`,
      'run kop update-pack in a kop project',
    );
  }
  const manifestText = await tree.read('package.json');
  if (manifestText === undefined)
    throw new KopError(
      `no package.json in ${context.cwd}; kop update-pack wrote nothing`,
      'run it in the root of a project made by kop init',
    );
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(manifestText) as Record<string, unknown>;
  } catch (error) {
    throw new KopError(`package.json is not valid JSON (${(error as Error).message}); kop update-pack wrote nothing`);
  }

  const pack = await packKop(kopRoot, context.exec);
  const spec = `file:${PACK_DIR}/${pack.filename}`;
  await stageKopPack(tree, spec, pack);
  // kop stays in the dependency list that has it (dependencies unless a user moved it).
  const section =
    isRecord(manifest.devDependencies) &&
    'kop' in manifest.devDependencies &&
    !(isRecord(manifest.dependencies) && 'kop' in manifest.dependencies)
      ? 'devDependencies'
      : 'dependencies';
  const dependencies = isRecord(manifest[section]) ? manifest[section] : {};
  if (dependencies.kop !== spec) {
    manifest[section] = { ...dependencies, kop: spec };
    const indent = /^\{\r?\n([ \t]+)"/.exec(manifestText)?.[1] ?? '  ';
    tree.write('package.json', `${JSON.stringify(manifest, null, indent)}\n`, { kind: 'inserted' });
  }
  saveProjectFile(tree, { ...project, kopSource: spec });

  const dockerfile = await tree.read('Dockerfile');
  if (dockerfile !== undefined && !/^COPY\s+\.kop\/?\s/m.test(dockerfile)) {
    context.out.warn(
      `Dockerfile does not copy ${PACK_DIR}/ into the image build, where npm ci needs ${spec}: add \`COPY ${PACK_DIR}/ ${PACK_DIR}/\` before its \`RUN npm ci\``,
    );
  }

  const changed = (await tree.plan()).some((change) => change.action !== 'unchanged' && change.action !== 'skip');
  const tasks: PostFlushTask[] = changed && !options.skipInstall ? [npmInstallTask(context.cwd, spec)] : [];
  const result = await flushTree(tree, context, { tasks });
  if (result.written && changed) {
    context.out.info(
      `\nThe project depends on ${spec}. Commit ${PACK_DIR}/, package.json, package-lock.json and PROJECT.`,
    );
    if (options.skipInstall)
      context.out.info(
        `Run \`npm install --no-audit --no-fund kop@${spec}\` to update package-lock.json and node_modules.`,
      );
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
