import { readdir, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { fieldOf, recordFlags } from '../project/command-flags.js';
import { askChecked, type Context, KopError, UsageError, kopPackageRoot, kopVersion } from '../base/index.js';
import {
  LAYOUT,
  PROJECT_FILE,
  PROJECT_FORMAT_VERSION,
  loadProjectFile,
  saveProjectFile,
  type ProjectFile,
  type ProjectResource,
  checkDomain,
  checkProjectName,
  isDns1123Label,
  CREATE_API_PATHS,
  rewireControllers,
  insertResourceWiring,
  resourceNamesOf,
} from '../project/index.js';
import { flushTree, type FlushResult, type PostFlushTask, renderTemplateDir, VirtualTree } from '../scaffold/index.js';
import { INIT_FLAGS, INIT_IDENTITY_FLAGS, type InitFlags, recordedIdentity } from './init-flags.js';
import { checkInitPlugins } from './init-plugins.js';
import { LICENSES, type InitAnswers, type License } from './init-answers.js';
import { INIT_TEMPLATES, initTemplateData } from './init-template-data.js';
import { nodeEnginesNote } from './node-engines.js';
import {
  checkGivenKopSource,
  installedFromRegistry,
  isPackedSpec,
  kopSourceProblem,
  packKop,
  PACK_DIR,
  type PackedKop,
} from './kop-source.js';

/** `kop init`'s options: one field per flag of INIT_FLAGS (init-flags.ts), where each is declared once. */
export type InitOptions = InitFlags;

/** Files a folder may already hold (a fresh git clone): kept rather than refused without --force. */
const KEEP_IF_PRESENT = new Set(['README.md', 'LICENSE', '.gitignore', '.dockerignore', 'AGENTS.md']);

/**
 * Scaffolds a new operator project in `context.cwd`. Refuses, writing nothing, when
 * the folder already has a PROJECT or package.json and `force` is off.
 */
export async function runInit(options: InitOptions, context: Context): Promise<FlushResult> {
  // Refused before anything else: a wrong plugin name is a typo to fix, not a project to write.
  const layoutNote = checkInitPlugins(options.plugins);
  if (layoutNote !== undefined) context.out.info(layoutNote);
  if (options.repo !== undefined) {
    context.out.info(
      `--repo ${options.repo} is ignored: it names a Go module, and a kop project is an npm package (its name is --project-name)`,
    );
  }
  const tree = new VirtualTree(context.cwd);
  // First, before any answer is derived from the folder: kop's own package is never a project.
  if ((await realpath(context.cwd)) === (await realpath(kopPackageRoot()))) {
    throw new KopError(
      `${context.cwd} is kop's own package folder; kop init wrote nothing`,
      'run kop init in a folder of its own',
    );
  }
  if (!options.force) {
    for (const marker of [PROJECT_FILE, 'package.json']) {
      if (await tree.existsOnDisk(marker)) {
        throw new KopError(
          `${context.cwd} already has a ${marker}${marker === PROJECT_FILE ? ' (it is a kop project)' : ''}; kop init wrote nothing`,
          'run kop init in an empty folder, or pass --force to overwrite the scaffolded files',
        );
      }
    }
  }
  const recorded = options.force ? await existingProject(tree, context) : undefined;
  // Under --force a kop project keeps its identity: PROJECT says who it is, not the folder name
  // or the defaults (a new domain or project name would rename the CRDs, lease and namespace).
  const answers = await resolveAnswers(recorded ? identityFrom(recorded, options) : options, context);
  const source = await chooseKopSource(options.kopSource, recorded?.kopSource, context);
  const resources = recorded?.resources ?? [];
  await scaffoldProject(tree, { ...answers, ...source }, context, {
    force: options.force ?? false,
    resources,
    generated: recorded?.generated,
  });

  // Said once, before npm install prints its EBADENGINE warnings for each package.
  const enginesNote = nodeEnginesNote();
  if (enginesNote !== undefined) context.out.warn(enginesNote);
  const tasks: PostFlushTask[] = [];
  if (!options.skipInstall) tasks.push(npmInstallTask(context.cwd, source.kopSource));
  const result = await flushTree(tree, context, { tasks });
  if (result.written) {
    if (source.kopPack) {
      context.out.info(
        `\nkop is packed into ${PACK_DIR}/${source.kopPack.filename}: commit it, the project depends on it. \`kop update-pack\` refreshes it.`,
      );
    }
    const steps = [options.skipInstall ? 'npm install' : undefined, 'npm run build', 'npm test']
      .filter(Boolean)
      .join(' && ');
    context.out.info(`\nProject ${answers.projectName} is ready. Next: ${steps}`);
    // After npm install, npx finds the project's own kop in node_modules/.bin.
    context.out.info('Then add an API with `npx kop create api --group <group> --version v1alpha1 --kind <Kind>`.');
  }
  return result;
}

/**
 * `npm install`; with kop packed into the project it names kop's spec, so that a tarball refreshed
 * under the same name replaces the lockfile's integrity (plain `npm install` would keep the old one).
 */
export function npmInstallTask(projectDir: string, kopSource: string): PostFlushTask {
  const kopSpec = isPackedSpec(kopSource) ? [`kop@${kopSource}`] : [];
  return {
    title: 'npm install',
    hint: `the project files were written; run \`${['npm install', ...kopSpec].join(' ')}\` in ${projectDir} yourself`,
    run: async (ctx) => {
      const result = await ctx.exec('npm', ['install', '--no-audit', '--no-fund', ...kopSpec], {
        cwd: projectDir,
        inherit: true,
      });
      if (result.exitCode !== 0)
        throw new Error(`npm exited with code ${result.exitCode}${result.stderr ? `: ${result.stderr.trim()}` : ''}`);
    },
  };
}

/**
 * How the project depends on kop: `--kop-source` when given (refused when it would not install
 * elsewhere); under --force the spec PROJECT records, unless it is kop packed into the project
 * (re-packed from the running kop, which is how `init --force` refreshes it) or a spec that does
 * not install elsewhere (an absolute path from an older kop: replaced, with a warning). Otherwise
 * a semver range when the running kop came from a registry, and kop packed into `.kop/` when not.
 */
async function chooseKopSource(
  given: string | undefined,
  recorded: string | undefined,
  context: Context,
): Promise<Pick<InitAnswers, 'kopSource' | 'kopPack'>> {
  if (given !== undefined) {
    checkGivenKopSource(given, context.cwd);
    return { kopSource: given };
  }
  if (recorded !== undefined && !isPackedSpec(recorded)) {
    const problem = kopSourceProblem(recorded, context.cwd);
    if (problem === undefined) return { kopSource: recorded };
    context.out.warn(
      `PROJECT records kopSource ${JSON.stringify(recorded)}, which does not install elsewhere (${problem}); it is replaced`,
    );
  }
  const kopRoot = kopPackageRoot();
  if (await installedFromRegistry(kopRoot)) return { kopSource: `^${kopVersion()}` };
  const kopPack = await packKop(kopRoot, context.exec);
  return { kopSource: `file:${PACK_DIR}/${kopPack.filename}`, kopPack };
}

/**
 * Stages kop's tarball in `.kop/` (when packed) and the removal of every other `kop-*.tgz` there
 * (an older version's, or all of them once the project depends on kop another way), so the folder
 * holds exactly the tarball the project depends on.
 */
export async function stageKopPack(tree: VirtualTree, kopSource: string, pack?: PackedKop): Promise<void> {
  if (pack) tree.writeBinary(`${PACK_DIR}/${pack.filename}`, pack.bytes);
  const dependedOn = isPackedSpec(kopSource) ? path.posix.normalize(kopSource.slice('file:'.length)) : undefined;
  let present: string[] = [];
  try {
    present = await readdir(path.join(tree.root, PACK_DIR));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const name of present)
    if (/^kop-.+\.tgz$/.test(name) && `${PACK_DIR}/${name}` !== dependedOn) tree.remove(`${PACK_DIR}/${name}`);
}

/** Stages every file of a new project in `tree`. Exposed for tests and for `--force` re-scaffolds. */
export async function scaffoldProject(
  tree: VirtualTree,
  answers: InitAnswers,
  context: Pick<Context, 'now'>,
  options: { force: boolean; resources?: readonly ProjectResource[]; generated?: readonly string[] },
): Promise<void> {
  const data = initTemplateData(answers, context);
  await stageKopPack(tree, answers.kopSource, answers.kopPack);
  const files = await renderTemplateDir(INIT_TEMPLATES, data);
  for (const file of files) {
    if (file.path === 'LICENSE' && answers.license !== 'apache2') continue;
    if (file.kind === 'generated') {
      tree.write(file.path, file.content, { kind: 'generated', mode: file.mode });
    } else {
      const keep = KEEP_IF_PRESENT.has(file.path);
      await tree.scaffold(file.path, file.content, {
        force: options.force,
        ifExists: keep ? 'skip' : 'error',
        mode: file.mode,
      });
    }
  }
  // Every --plugins name init accepts means kop's one layout; the other keys are its flags' (init-flags.ts).
  const project = {
    version: PROJECT_FORMAT_VERSION,
    layout: [LAYOUT],
    cliVersion: kopVersion(),
    resources: [...(options.resources ?? [])],
    // What kop generate wrote stays recorded: without the list, it would fall back on the header alone.
    ...(options.generated ? { generated: [...options.generated] } : {}),
  } as ProjectFile;
  recordFlags(INIT_FLAGS, project, answers);
  saveProjectFile(tree, project);
  // A re-scaffold keeps the project's APIs: their lines go back at the markers of the fresh files.
  for (const resource of project.resources) {
    const names = resourceNamesOf(resource, project.resources);
    await insertResourceWiring(tree, names, {
      sample: resource.api !== undefined && (await tree.exists(CREATE_API_PATHS.sampleFile(names))),
    });
  }
  await rewireControllers(tree, project);
}

/**
 * The existing PROJECT, so that `init --force` keeps the project's identity and APIs: PROJECT is
 * the project's source of truth, and dropping its APIs would orphan api/ and the reconcilers.
 */
async function existingProject(tree: VirtualTree, context: Context): Promise<ProjectFile | undefined> {
  if (!(await tree.existsOnDisk(PROJECT_FILE))) return undefined;
  try {
    return await loadProjectFile(tree);
  } catch (error) {
    context.out.warn(
      `the existing ${PROJECT_FILE} is not usable (${(error as Error).message}); it is replaced by one without APIs`,
    );
    return undefined;
  }
}

/** The init options with PROJECT's identity (the identity flags of init's table); a flag that contradicts PROJECT is an error naming both. */
export function identityFrom(project: ProjectFile, options: InitOptions): InitOptions {
  const kept: Record<string, unknown> = { ...options };
  for (const spec of INIT_IDENTITY_FLAGS) {
    const field = fieldOf(spec.name);
    const given = kept[field];
    const recorded = recordedIdentity(spec, project);
    if (given !== undefined && recorded !== undefined && given !== recorded) {
      throw new UsageError(
        `--${spec.name} ${JSON.stringify(given)} contradicts PROJECT, which records ${JSON.stringify(recorded)}; kop init --force keeps the project's identity`,
        `leave --${spec.name} out, or edit PROJECT first if the project really changes`,
      );
    }
    if (recorded !== undefined) kept[field] = recorded;
  }
  return kept as InitOptions;
}

/** Fills in what the flags left out: asks on a TTY, otherwise takes defaults or fails naming the flag. kop's source is chosen apart (chooseKopSource). */
export async function resolveAnswers(
  options: InitOptions,
  context: Context,
): Promise<Omit<InitAnswers, 'kopSource' | 'kopPack'>> {
  // Refused before anything is asked.
  if (options.kopSource !== undefined) checkGivenKopSource(options.kopSource, context.cwd);
  const folder = path.basename(context.cwd);
  const domain = await askChecked(context, options.domain, checkDomain, {
    flag: '--domain',
    type: 'text',
    message: 'Domain of your API groups (e.g. example.com)',
    initial: 'my.domain',
  });
  const projectName = await askChecked(context, options.projectName, checkProjectName, {
    flag: '--project-name',
    type: 'text',
    message: 'Project name (a DNS-1123 label)',
    initial: isDns1123Label(folder) ? folder : undefined,
  });
  const owner = await askChecked(context, options.owner, checkOwner, {
    flag: '--owner',
    type: 'text',
    message: 'Copyright owner',
    initial: `The ${projectName} authors`,
  });
  const license =
    options.license ??
    String(
      await context.prompter.ask({
        flag: '--license',
        type: 'select',
        message: 'License',
        initial: 'apache2',
        choices: [...LICENSES],
      }),
    );
  if (!(LICENSES as readonly string[]).includes(license)) {
    throw new UsageError(`--license: unknown license ${JSON.stringify(license)}; choose one of ${LICENSES.join(', ')}`);
  }

  return {
    domain,
    projectName,
    owner,
    license: license as License,
    namespaced: options.namespaced ?? false,
    multigroup: options.multigroup ?? false,
  };
}

/** Owners go into comments and the README: one line, printable, not empty. */
function checkOwner(value: string): true | string {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  return value.trim() !== '' && value.length <= 200 && !/[\u0000-\u001f\u007f]/.test(value)
    ? true
    : `invalid owner ${JSON.stringify(value)}: the owner must be one line of at most 200 printable characters (e.g. "Example Corp")`;
}
