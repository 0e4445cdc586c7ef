import { cp, mkdir, readFile, readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';

/**
 * The build steps of a project's Dockerfile, run without a container engine: the build stage's
 * COPY and RUN instructions in a scratch folder (COPY honours .dockerignore, RUN goes to `sh -c`
 * as Docker's shell form does), then the final stage's `COPY --from=<build stage>` into an app
 * folder. What the base images add (another Node, Debian's files) is not reproduced; an instruction
 * this runner does not know is an error rather than skipped.
 */

/** One instruction, continuation lines joined. */
export interface DockerInstruction {
  op: string;
  args: string;
}

/** A stage: `FROM <image> [AS <name>]` and its instructions. */
export interface DockerStage {
  from: string;
  name: string | undefined;
  instructions: DockerInstruction[];
}

/** Splits a Dockerfile into stages; comments and blank lines are dropped, `\` continues a line. */
export function parseDockerfile(text: string): DockerStage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (pending === '' && (line.trim() === '' || line.trimStart().startsWith('#'))) continue;
    if (pending !== '' && line.trimStart().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push((pending + line).trim());
    pending = '';
  }
  if (pending !== '') logical.push(pending.trim());
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line)!;
    const op = match[1]!.toUpperCase();
    const args = match[2]!;
    if (op === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`cannot read FROM ${args}`);
      stages.push({ from: from[1]!, name: from[2], instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`${op} before the first FROM`);
      stages.at(-1)!.instructions.push({ op, args });
    }
  }
  return stages;
}

/** A .dockerignore as a predicate over context-relative paths (Docker's rules for the patterns kop writes: names, `*`, trailing `/`). */
export function dockerignoreMatcher(text: string): (relative: string) => boolean {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((pattern) => {
      if (pattern.startsWith('!')) throw new Error(`.dockerignore exceptions are not supported here: ${pattern}`);
      const body = pattern.replace(/^\/+|\/+$/g, '');
      const source = body
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/');
      // A pattern that matches a folder excludes everything beneath it.
      return new RegExp(`^${source}(/.*)?$`);
    });
  return (relative) => patterns.some((pattern) => pattern.test(relative));
}

/** Where the build ran: the scratch folder of the build stage and the app folder of the final stage. */
export interface DockerBuildResult {
  buildDir: string;
  appDir: string;
  /** The final stage's ENTRYPOINT, e.g. `["/nodejs/bin/node", "main.mjs"]`. */
  entrypoint: string[];
  /** Output of every RUN, in order. */
  runs: { command: string; stdout: string; stderr: string }[];
}

/**
 * Runs `<context>/Dockerfile`: the stage named `build` in `<scratch>/build` (its WORKDIR), the
 * last stage's COPY --from=build into `<scratch>/app`. Throws with the output of a failing RUN.
 */
export async function runDockerBuild(
  context: string,
  scratch: string,
  env: Record<string, string | undefined> = {},
): Promise<DockerBuildResult> {
  const stages = parseDockerfile(await readFile(path.join(context, 'Dockerfile'), 'utf8'));
  let ignored: (relative: string) => boolean = () => false;
  try {
    ignored = dockerignoreMatcher(await readFile(path.join(context, '.dockerignore'), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const build = stages.find((stage) => stage.name === 'build');
  const final = stages.at(-1);
  if (!build || !final || final === build) throw new Error('expected a stage named build and a final stage after it');

  const buildDir = path.join(scratch, 'build');
  const appDir = path.join(scratch, 'app');
  await mkdir(buildDir, { recursive: true });
  await mkdir(appDir, { recursive: true });
  const runs: DockerBuildResult['runs'] = [];
  let workdir: string | undefined;
  for (const { op, args } of build.instructions) {
    if (op === 'WORKDIR') {
      workdir = args;
    } else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      if (parts.some((part) => part.startsWith('--')))
        throw new Error(`COPY flags are not supported in the build stage: ${args}`);
      const dest = parts.pop()!;
      for (const source of parts) await copyFromContext(context, source, path.join(buildDir, dest), ignored);
    } else if (op === 'RUN') {
      const run = await execa('sh', ['-c', args], { cwd: buildDir, reject: false, env: { ...env }, extendEnv: true });
      runs.push({ command: args, stdout: String(run.stdout), stderr: String(run.stderr) });
      if (run.exitCode !== 0)
        throw new Error(`RUN ${args} failed with exit code ${run.exitCode}:\n${run.stdout}\n${run.stderr}`);
    } else {
      throw new Error(`instruction ${op} in the build stage is not supported by this runner`);
    }
  }
  if (workdir === undefined) throw new Error('the build stage sets no WORKDIR');

  let entrypoint: string[] | undefined;
  for (const { op, args } of final.instructions) {
    if (op === 'COPY') {
      const match = /^--from=(\S+)\s+(\S+)\s+(\S+)$/.exec(args);
      if (!match || match[1] !== build.name)
        throw new Error(`the final stage copies only from the build stage: COPY ${args}`);
      const from = path.posix.relative(workdir, match[2]!);
      if (from.startsWith('..'))
        throw new Error(`COPY --from=build ${match[2]} is outside the build stage's WORKDIR ${workdir}`);
      await cp(path.join(buildDir, from), path.join(appDir, match[3]!), { recursive: true });
    } else if (op === 'ENTRYPOINT') {
      entrypoint = JSON.parse(args) as string[];
    } else if (op !== 'WORKDIR' && op !== 'USER') {
      throw new Error(`instruction ${op} in the final stage is not supported by this runner`);
    }
  }
  if (!entrypoint) throw new Error('the final stage has no ENTRYPOINT');
  return { buildDir, appDir, entrypoint, runs };
}

/** Docker's COPY of one source: a folder's contents into `dest`, a file into `dest` (a folder when it ends in `/`). */
async function copyFromContext(
  context: string,
  source: string,
  dest: string,
  ignored: (relative: string) => boolean,
): Promise<void> {
  const relative = path.posix.normalize(source).replace(/\/+$/, '');
  if (relative.startsWith('..') || path.isAbsolute(relative))
    throw new Error(`COPY source ${source} is outside the build context`);
  const from = path.join(context, relative);
  let info;
  try {
    info = await stat(from);
  } catch {
    throw new Error(`COPY ${source}: not found in the build context`);
  }
  if (ignored(relative)) throw new Error(`COPY ${source}: excluded by .dockerignore`);
  if (info.isDirectory()) {
    await mkdir(dest, { recursive: true });
    for (const entry of await readdir(from)) {
      const child = `${relative === '.' ? '' : `${relative}/`}${entry}`;
      if (ignored(child)) continue;
      const childInfo = await stat(path.join(context, child));
      if (childInfo.isDirectory()) await copyFromContext(context, child, path.join(dest, entry), ignored);
      else await cp(path.join(context, child), path.join(dest, entry));
    }
  } else {
    const target = dest.endsWith('/') || dest.endsWith(path.sep) ? path.join(dest, path.basename(relative)) : dest;
    await mkdir(path.dirname(target), { recursive: true });
    await cp(from, target);
  }
}
