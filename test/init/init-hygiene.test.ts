import { statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createProgram, type MainIo } from '../../src/cli/main.js';
import { GENERATED_HEADER } from '../../src/scaffold/header.js';
import { PINNED_KUBERNETES_VERSION } from '../../src/testing/versions.js';
import { listFiles } from '../helpers/files.js';

/**
 * The project hygiene `kop init` scaffolds (CI workflows, dev container, lint and format setup,
 * AGENTS.md), checked on test/golden/init (which init-golden.test.ts keeps equal to what init
 * writes): every command a workflow or the dev container runs exists (an npm script of the
 * generated package.json, or a kop command), actions and images are pinned, and AGENTS.md's
 * list of generated files is exactly the files kop generates. test/e2e/lint.test.ts runs lint,
 * format check and the e2e job's tests in a real project.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INIT = path.join(ROOT, 'test/golden/init');
// Every golden project (a folder with a PROJECT file), so each kind of scaffold is checked.
const GOLDENS = [
  'init',
  'create-api',
  'create-api-unowned',
  'create-webhook/conversion',
  'create-webhook/kinds',
  'plugins',
].map((name) => path.join(ROOT, 'test/golden', name));

const read = (file: string) => readFile(path.join(INIT, file), 'utf8');
const packageJson = async () =>
  JSON.parse(await read('package.json')) as {
    scripts: Record<string, string>;
    devDependencies: Record<string, string>;
  };
const kopProgram = createProgram({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: {},
  env: {},
  cwd: ROOT,
} as unknown as MainIo);

/** True when `kop <name> <flags>` is a command kop has, with those flags. */
function kopHas(name: string, flags: string[]): boolean {
  const command = kopProgram.commands.find((candidate) => candidate.name() === name);
  return command !== undefined && flags.every((flag) => command.options.some((option) => option.long === flag));
}

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  id?: string;
}
interface Workflow {
  name: string;
  on: Record<string, unknown>;
  jobs: Record<string, { 'runs-on': string; steps: Step[] }>;
}

/** The commands of a shell snippet that the project provides: `npm run x`, `npm test`, `npx kop x --flag`. */
function projectCommands(script: string): { npmScripts: string[]; kop: string[]; kopFlags: Map<string, string[]> } {
  const npmScripts: string[] = [];
  const kop: string[] = [];
  const kopFlags = new Map<string, string[]>();
  for (const line of script.split('\n').map((text) => text.trim())) {
    for (const match of line.matchAll(/\bnpm run ([\w:-]+)/g)) npmScripts.push(match[1]!);
    if (/^npm (test|t)\b/.test(line)) npmScripts.push('test');
    for (const match of line.matchAll(/\bnpx kop ([\w-]+)((?: --[\w-]+)*)/g)) {
      kop.push(match[1]!);
      kopFlags.set(match[1]!, match[2]!.trim().split(/\s+/).filter(Boolean));
    }
  }
  return { npmScripts, kop, kopFlags };
}

/** A glob of AGENTS.md (`*` within a segment, `**` across segments) as a RegExp over relative paths. */
function globRegExp(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
    .join('.*');
  return new RegExp(`^${source}$`);
}

describe('kop init: CI workflows', () => {
  const workflows = ['lint.yml', 'test.yml', 'test-e2e.yml'];

  it.each(workflows)(
    '.github/workflows/%s parses, runs on push and pull requests, and only runs commands the project has',
    async (file) => {
      const workflow = parseYaml(await read(`.github/workflows/${file}`)) as Workflow;
      const { scripts } = await packageJson();
      expect(workflow.name).toEqual(expect.any(String));
      expect(Object.keys(workflow.on).sort()).toEqual(['pull_request', 'push']);
      const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
      expect(steps.length).toBeGreaterThan(0);
      expect(steps.map((step) => step.run)).toContain('npm ci');
      for (const step of steps) {
        if (step.uses) expect(step.uses, `${file}: ${step.name}`).toMatch(/^actions\/[\w-]+@v\d+$/);
        if (!step.run) continue;
        const used = projectCommands(step.run);
        for (const script of used.npmScripts)
          expect(scripts, `${file} runs npm run ${script}`).toHaveProperty([script]);
        for (const command of used.kop)
          expect(
            kopHas(command, used.kopFlags.get(command)!),
            `${file} runs npx kop ${command} ${used.kopFlags.get(command)!.join(' ')}`,
          ).toBe(true);
      }
    },
  );

  it('lint runs lint, format check and the generated-files check; test and test-e2e run their tests', async () => {
    const runs = async (file: string) =>
      (parseYaml(await read(`.github/workflows/${file}`)) as Workflow).jobs[
        Object.keys((parseYaml(await read(`.github/workflows/${file}`)) as Workflow).jobs)[0]!
      ]!.steps.map((step) => step.run).filter((run): run is string => run !== undefined);
    expect(await runs('lint.yml')).toEqual(
      expect.arrayContaining(['npm run lint', 'npm run format:check', 'npx kop generate --check']),
    );
    expect(await runs('test.yml')).toEqual(expect.arrayContaining(['npx kop setup-envtest', 'npm test']));
    expect(await runs('test-e2e.yml')).toEqual(expect.arrayContaining(['npx kop setup-envtest', 'npm run test:e2e']));
  });

  it.each(['test.yml', 'test-e2e.yml'])(
    '%s caches the control-plane binaries where kop/testing looks, keyed on kop version',
    async (file) => {
      const workflow = parseYaml(await read(`.github/workflows/${file}`)) as Workflow;
      const steps = Object.values(workflow.jobs)[0]!.steps;
      const cache = steps.find((step) => step.uses?.startsWith('actions/cache@'));
      expect(cache).toBeDefined();
      // kop/testing's default cache (envtestCacheDir): ~/.cache/kop/envtest/<kubernetes version>.
      expect(cache!.with!.path).toBe('~/.cache/kop/envtest');
      const versions = steps.find((step) => step.id === 'versions');
      expect(versions?.run).toContain("require('kop/package.json').version");
      expect(cache!.with!.key).toContain('${{ steps.versions.outputs.kop }}');
      // Restored before the binaries are fetched, which is before the tests.
      const order = (predicate: (step: Step) => boolean) => steps.findIndex(predicate);
      expect(order((step) => step === cache)).toBeLessThan(order((step) => step.run === 'npx kop setup-envtest'));
      expect(order((step) => step.run === 'npx kop setup-envtest')).toBeLessThan(
        order((step) => /^npm (test|run test:e2e)$/.test(step.run ?? '')),
      );
    },
  );

  it('npm run test:e2e runs the e2e config, which finds the scaffolded e2e test', async () => {
    const { scripts } = await packageJson();
    expect(scripts['test:e2e']).toBe('npm run build && vitest run --config vitest.e2e.config.ts');
    expect(await read('vitest.e2e.config.ts')).toContain("include: ['test/e2e/**/*.e2e.ts']");
    expect(await listFiles(path.join(INIT, 'test/e2e'))).toEqual(['manager.e2e.ts']);
    // Not picked up by `npm test`'s unit project (test/**/*.test.ts).
    expect(await read('vitest.config.ts')).toContain("include: ['test/**/*.test.ts']");
  });
});

describe('kop init: dev container', () => {
  const devcontainer = async () =>
    JSON.parse(await read('.devcontainer/devcontainer.json')) as {
      image: string;
      features: Record<string, { version?: string }>;
      postCreateCommand: string;
    };

  it('parses, with an image pinned to the Node.js major the Dockerfile builds with', async () => {
    const config = await devcontainer();
    const nodeMajor = /FROM node:(\d+)-/.exec(await read('Dockerfile'))![1];
    expect(config.image).toMatch(
      new RegExp(`^mcr\\.microsoft\\.com/devcontainers/typescript-node:\\d+-${nodeMajor}-\\w+$`),
    );
  });

  it('has Go new enough to build the test binaries and kubectl of the Kubernetes version kop pins', async () => {
    const { features } = await devcontainer();
    for (const ref of Object.keys(features)) expect(ref).toMatch(/^ghcr\.io\/devcontainers\/features\/[\w-]+:\d+$/);
    const goRequired = /^go (\d+\.\d+)/m.exec(
      await readFile(path.join(ROOT, 'envtest/kubernetes/go.mod'), 'utf8'),
    )![1]!;
    const goVersion = features['ghcr.io/devcontainers/features/go:1']!.version!;
    const [major, minor] = goVersion.split('.').map(Number);
    const [needMajor, needMinor] = goRequired.split('.').map(Number);
    expect(major! * 1000 + minor!, `Go ${goVersion} < ${goRequired}`).toBeGreaterThanOrEqual(
      needMajor! * 1000 + needMinor!,
    );
    expect(features['ghcr.io/devcontainers/features/kubectl-helm-minikube:1']!.version).toBe(PINNED_KUBERNETES_VERSION);
  });

  it('runs an executable post-create script that installs and fetches the test binaries', async () => {
    const { postCreateCommand } = await devcontainer();
    expect(postCreateCommand).toBe('bash .devcontainer/post-create.sh');
    expect(statSync(path.join(INIT, '.devcontainer/post-create.sh')).mode & 0o111).not.toBe(0);
    const script = await read('.devcontainer/post-create.sh');
    expect(script.startsWith('#!/usr/bin/env bash\n')).toBe(true);
    expect(script).toContain('set -euo pipefail');
    const used = projectCommands(script);
    expect(used.kop).toEqual(['setup-envtest']);
    expect(kopHas('setup-envtest', [])).toBe(true);
    expect(script).toMatch(/^npm ci$/m);
  });
});

describe('kop init: lint and format setup', () => {
  it('package.json has lint and format scripts and their tools', async () => {
    const { scripts, devDependencies } = await packageJson();
    expect(scripts).toMatchObject({
      lint: 'eslint .',
      'lint:fix': 'eslint . --fix',
      format: 'prettier --write .',
      'format:check': 'prettier --check .',
    });
    expect(Object.keys(devDependencies)).toEqual(
      expect.arrayContaining(['eslint', '@eslint/js', 'typescript-eslint', 'prettier']),
    );
  });

  it("the project's tool versions are the ones kop itself is linted with (so its e2e test links them)", async () => {
    // Prettier is a dependency of kop (it formats what kop scaffolds), the linters devDependencies.
    const kop = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const { devDependencies } = await packageJson();
    for (const tool of ['eslint', '@eslint/js', 'typescript-eslint', 'prettier'])
      expect(devDependencies[tool], tool).toBe(kop.devDependencies[tool] ?? kop.dependencies[tool]);
  });

  it("the OpenTelemetry packages src/tracing.ts loads are the versions kop's tests run the scaffold with", async () => {
    const kop = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    const { dependencies } = (await packageJson()) as unknown as { dependencies: Record<string, string> };
    const otel = Object.keys(dependencies).filter((name) => name.startsWith('@opentelemetry/'));
    expect(otel.sort()).toEqual([
      '@opentelemetry/api',
      '@opentelemetry/exporter-trace-otlp-http',
      '@opentelemetry/exporter-trace-otlp-proto',
      '@opentelemetry/resources',
      '@opentelemetry/sdk-trace-node',
    ]);
    for (const name of otel) expect(dependencies[name], name).toBe(kop.dependencies[name] ?? kop.devDependencies[name]);
  });

  it("eslint.config.js turns on typescript-eslint's type-checked rules", async () => {
    const config = await read('eslint.config.js');
    expect(config).toContain('tseslint.configs.recommendedTypeChecked');
    expect(config).toContain('projectService');
    expect(config).not.toMatch(/no-floating-promises'?\s*:\s*'off'|no-misused-promises'?\s*:\s*'off'/);
  });
});

describe("kop init: the scaffold's ESLint config on helper scripts", () => {
  it('lints hack/*.mjs as Node scripts: process, console, Buffer and JSON.parse are fine, a real mistake is not', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'kop-eslint-'));
    try {
      await cp(INIT, dir, { recursive: true });
      await mkdir(path.join(dir, 'node_modules'));
      for (const tool of ['eslint', '@eslint', 'typescript-eslint', '@typescript-eslint', 'typescript', '@types'])
        await symlink(path.join(ROOT, 'node_modules', tool), path.join(dir, 'node_modules', tool), 'dir');
      await writeFile(
        path.join(dir, 'hack/helper.mjs'),
        [
          "import { readFileSync } from 'node:fs';",
          '',
          "const file = process.argv[2] ?? 'package.json';",
          "const pkg = JSON.parse(readFileSync(file, 'utf8'));",
          'console.log(pkg.name, Buffer.byteLength(file));',
          'setTimeout(() => process.exit(0), 1);',
          '',
        ].join('\n'),
      );
      await writeFile(path.join(dir, 'hack/mistake.mjs'), 'const unused = 1;\n');
      const { ESLint } = await import('eslint');
      const results = await new ESLint({ cwd: dir }).lintFiles([
        'hack/helper.mjs',
        'hack/bundle.mjs',
        'hack/mistake.mjs',
      ]);
      const messages = Object.fromEntries(
        results.map((result) => [
          path.relative(dir, result.filePath),
          result.messages.map((message) => message.ruleId),
        ]),
      );
      expect(messages).toEqual({
        'hack/helper.mjs': [],
        'hack/bundle.mjs': [],
        'hack/mistake.mjs': ['@typescript-eslint/no-unused-vars'],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('kop init: AGENTS.md', () => {
  const generatedGlobs = async (): Promise<RegExp[]> => {
    const agents = await read('AGENTS.md');
    const section = agents.split('### Generated: never edit')[1]!.split('###')[0]!;
    const globs = [...section.matchAll(/^- (.*)$/gm)].flatMap((line) =>
      [...line[1]!.matchAll(/`([^`]+)`/g)].map((match) => match[1]!),
    );
    expect(globs.length).toBeGreaterThan(3);
    return globs.map(globRegExp);
  };

  it('lists exactly the files kop generates as never to be edited', async () => {
    const globs = await generatedGlobs();
    let generated = 0;
    for (const golden of GOLDENS) {
      for (const file of await listFiles(golden)) {
        const head = (await readFile(path.join(golden, file), 'utf8')).split('\n', 3).join('\n');
        const isGenerated = head.includes(GENERATED_HEADER);
        if (isGenerated) generated++;
        // The types of imported (external) kinds are listed by a sentence, not a glob.
        const importedTypes =
          isGenerated && /^api\/.*\.types\.ts$/.test(file) && head.includes('Code generated by kop');
        expect(
          globs.some((glob) => glob.test(file)) || importedTypes,
          `${path.basename(golden)}/${file} is ${isGenerated ? 'generated but not listed' : "the user's but listed as generated"}`,
        ).toBe(isGenerated);
      }
    }
    expect(generated).toBeGreaterThan(5);
  });

  it('names only npm scripts the project has', async () => {
    const { scripts } = await packageJson();
    for (const file of ['AGENTS.md', 'README.md']) {
      for (const script of projectCommands(await read(file)).npmScripts)
        expect(scripts, `${file}: npm run ${script}`).toHaveProperty([script]);
    }
  });
});
