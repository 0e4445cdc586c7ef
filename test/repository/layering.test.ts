import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ts } from '../helpers/typescript.js';

/**
 * The floor plan of src/: a folder imports only folders on a floor below its own, never one
 * beside it or above it. Two stacks: the generator side (the kop CLI) and the library side
 * (kop/api, kop/runtime, kop/testing, which import nothing of the CLI). A folder is entered
 * through its public module (see isPublicModule), never through the files behind it.
 */
const GENERATOR_FLOORS: readonly (readonly string[])[] = [
  ['base'], // errors, context, prompts, paths
  ['scaffold'], // virtual tree, render, insert, headers, the flush
  ['project'], // PROJECT file, resource names, a resource's file layout and wiring, the command pipeline's phases
  ['markers'], // one marker parser and registry, and the one marker collection every generator reads
  ['schema'],
  ['rbac', 'webhook-manifests', 'clientgen'],
  ['import'], // kop import crd, which create api's --external-api-module <crd> runs too
  ['generate', 'init', 'create-webhook', 'deploy'], // the runs of the commands
  ['create-api'], // create api --conversion stages create webhook's conversion in its own plan
  ['helm', 'migrate'], // the chart the helm plugin stages: renders config/ through deploy; kop migrate storage: finds the CRDs the same way
  // The plugins (registry.ts): each is handlers of its command's phases (KopPlugin.phases), helm, grafana and autoupdate
  // of kop edit's, deploy-image of create api's (hence above create-api: its handlers work on create api's step, and
  // `create api --plugins` runs create api with them)
  ['plugins'],
  ['dev'], // kop dev: runs generate in its loop
  ['edit'], // kop edit: its own phase handlers (--multigroup / --namespaced, CRD settings), then the named plugins', in one pipeline run
  ['alpha'], // kop alpha generate / update: replays init, create api, create webhook, generate and plugins
  ['commands'],
  ['cli'], // main.ts, commander wiring, output: imported by nobody
];
const LIBRARY_FLOORS: readonly (readonly string[])[] = [['api'], ['runtime'], ['testing']];
/**
 * Arrows from the generator side into the library: `kop setup-envtest` builds kop/testing's binaries,
 * `kop deploy`/`install` apply through kop/runtime's client, `kop dev` runs kop/testing's control plane and reads stored objects through kop/runtime's client before it reinstalls a changed CRD,
 * `kop import crd --from-cluster` reads CRDs with kop/runtime's client, `kop migrate storage` migrates through it, and project/builtin-kinds.ts finds
 * built-in kinds (`create api --group apps --kind Deployment --no-resource`, `create webhook --group core
 * --kind Pod`) among kop/runtime's descriptors.
 */
const CROSSINGS: Readonly<Record<string, readonly string[]>> = {
  commands: ['testing'],
  deploy: ['runtime'],
  dev: ['testing', 'runtime'],
  import: ['runtime'],
  migrate: ['runtime'],
  project: ['runtime'],
};

/**
 * Modules another folder may enter directly, besides the folder's public modules (its index.ts files and, on the
 * library side, internal.ts): the flag tables and what they import, which `kop --help` loads for every command
 * (see src/commands/index.ts); the folder's index would load the command's implementation with them.
 */
const LIGHT_MODULES: ReadonlySet<string> = new Set([
  'src/project/command-flags.ts',
  'src/project/resource-origin.ts',
  'src/create-api/create-api-flags.ts',
  'src/create-webhook/create-webhook-flags.ts',
  'src/init/init-flags.ts',
  'src/plugins/deploy-image/deploy-image-flags.ts',
]);

/**
 * Whether another folder may import `file`: a folder's public modules are its index.ts (kop/runtime has one per
 * entry point) and, for kop/api, kop/runtime and kop/testing, internal.ts (what kop's CLI side uses beyond the
 * package's entry points, no entry point itself).
 */
function isPublicModule(file: string): boolean {
  const folder = folderOf(file)!;
  const library = LIBRARY_FLOORS.flat().includes(folder);
  return file.endsWith('/index.ts') || (library && file === `src/${folder}/internal.ts`) || LIGHT_MODULES.has(file);
}

/** Folder -> the folders it may import. */
function allowedImports(): Map<string, Set<string>> {
  const allowed = new Map<string, Set<string>>();
  for (const floors of [GENERATOR_FLOORS, LIBRARY_FLOORS]) {
    floors.forEach((floor, level) => {
      for (const folder of floor)
        allowed.set(folder, new Set([...floors.slice(0, level).flat(), ...(CROSSINGS[folder] ?? [])]));
    });
  }
  return allowed;
}

interface SourceFile {
  /** Path from the repository root, e.g. `src/schema/crd.ts`. */
  file: string;
  text: string;
}

/** Relative module specifiers of a file: static and dynamic imports, `import type`, re-exports (comments are not code). */
function relativeImports(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((i) => i.fileName)
    .filter((name) => name.startsWith('./') || name.startsWith('../'));
}

/** The top folder under src/ of a path from the repository root, or undefined outside src/. */
function folderOf(file: string): string | undefined {
  const parts = path.posix.normalize(file).split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1] : undefined;
}

/**
 * One line per arrow that runs up or across the floor plan, per import of a file inside another folder that is not
 * its public module, and per folder on no floor.
 */
function layeringViolations(files: readonly SourceFile[]): string[] {
  const allowed = allowedImports();
  const violations: string[] = [];
  for (const { file, text } of files) {
    const from = folderOf(file);
    if (from === undefined) continue;
    const may = allowed.get(from);
    if (may === undefined) {
      violations.push(
        `${file}: src/${from} is on no floor of the table in test/repository/layering.test.ts; place it there`,
      );
      continue;
    }
    for (const specifier of relativeImports(text)) {
      const target = path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '.ts');
      const to = folderOf(target);
      if (to === undefined || to === from) continue;
      if (!may.has(to)) {
        violations.push(`${file}: imports '${specifier}' (${from} -> ${to}), which is not on a floor below ${from}`);
      } else if (!isPublicModule(target)) {
        violations.push(
          `${file}: imports '${specifier}', a file inside src/${to}; enter ${to} through its public module, src/${to}/index.ts`,
        );
      }
    }
  }
  return violations.sort();
}

/** One line per import circle among `files` (each circle once, as file -> ... -> file). */
function importCircles(files: readonly SourceFile[]): string[] {
  const byFile = new Map(files.map((f) => [f.file, f]));
  const edges = new Map<string, string[]>();
  for (const { file, text } of files) {
    const targets = relativeImports(text)
      .map((specifier) => path.posix.join(path.posix.dirname(file), specifier).replace(/\.js$/, '.ts'))
      .filter((target) => byFile.has(target));
    edges.set(file, [...new Set(targets)].sort());
  }
  const circles = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') {
        const circle = stack.slice(stack.indexOf(next));
        // Start each circle at its smallest file so that it is reported once.
        const start = circle.indexOf([...circle].sort()[0]!);
        const rotated = [...circle.slice(start), ...circle.slice(0, start)];
        circles.add([...rotated, rotated[0]].join(' -> '));
      } else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...edges.keys()].sort()) if (state.get(file) === undefined) visit(file);
  return [...circles].sort();
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function sourceFiles(dir = 'src'): SourceFile[] {
  const files: SourceFile[] = [];
  for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...sourceFiles(file));
    else if (entry.name.endsWith('.ts')) files.push({ file, text: readFileSync(path.join(repoRoot, file), 'utf8') });
  }
  return files;
}

describe('layering of src/', () => {
  const cases: { name: string; given: SourceFile[]; want: string[] }[] = [
    {
      name: 'an arrow down is allowed',
      given: [{ file: 'src/schema/crd.ts', text: "import { KopError } from '../base/index.js';" }],
      want: [],
    },
    {
      name: 'an import inside a folder is allowed',
      given: [{ file: 'src/schema/crd.ts', text: "import { a } from './model.js';" }],
      want: [],
    },
    {
      name: 'an arrow up is named with its file and import',
      given: [
        { file: 'src/schema/program.ts', text: "import { listSourceFiles } from '../generate/source-files.js';" },
      ],
      want: [
        "src/schema/program.ts: imports '../generate/source-files.js' (schema -> generate), which is not on a floor below schema",
      ],
    },
    {
      name: 'an arrow across one floor is refused (init does not import create-api)',
      given: [
        { file: 'src/init/run-init.ts', text: "import type { ResourceNames } from '../create-api/run-create-api.js';" },
      ],
      want: [
        "src/init/run-init.ts: imports '../create-api/run-create-api.js' (init -> create-api), which is not on a floor below init",
      ],
    },
    {
      name: 'dynamic imports and re-exports count',
      given: [
        {
          file: 'src/base/x.ts',
          text: "export { a } from '../project/resource.js';\nconst m = await import('../cli/main.js');",
        },
      ],
      want: [
        "src/base/x.ts: imports '../cli/main.js' (base -> cli), which is not on a floor below base",
        "src/base/x.ts: imports '../project/resource.js' (base -> project), which is not on a floor below base",
      ],
    },
    {
      name: 'imports in comments do not count',
      given: [
        { file: 'src/base/x.ts', text: "// then `await import('../init/run-init.js')`\n/* import '../cli/main.js' */" },
      ],
      want: [],
    },
    {
      name: 'the library side imports nothing of the CLI',
      given: [{ file: 'src/runtime/client/x.ts', text: "import { KopError } from '../../base/errors.js';" }],
      want: [
        "src/runtime/client/x.ts: imports '../../base/errors.js' (runtime -> base), which is not on a floor below runtime",
      ],
    },
    {
      name: 'another folder is entered through its public module',
      given: [
        { file: 'src/init/run-init.ts', text: "import { loadProjectFile } from '../project/index.js';" },
        { file: 'src/dev/run-dev.ts', text: "const { runGenerate } = await import('../generate/index.js');" },
      ],
      want: [],
    },
    {
      name: 'an import of a file inside another folder is refused, static or dynamic, value or type',
      given: [
        { file: 'src/init/run-init.ts', text: "import { loadProjectFile } from '../project/project-file.js';" },
        { file: 'src/dev/run-dev.ts', text: "const { runGenerate } = await import('../generate/run-generate.js');" },
        { file: 'src/plugins/deploy-image/x.ts', text: "import type { Context } from '../../base/context.js';" },
      ],
      want: [
        "src/dev/run-dev.ts: imports '../generate/run-generate.js', a file inside src/generate; enter generate through its public module, src/generate/index.ts",
        "src/init/run-init.ts: imports '../project/project-file.js', a file inside src/project; enter project through its public module, src/project/index.ts",
        "src/plugins/deploy-image/x.ts: imports '../../base/context.js', a file inside src/base; enter base through its public module, src/base/index.ts",
      ],
    },
    {
      name: "the library side is entered through an entry point's index or its internal.ts, not its files",
      given: [
        { file: 'src/deploy/x.ts', text: "import { RestClient } from '../runtime/client/index.js';" },
        { file: 'src/dev/x.ts', text: "import { findFreePorts } from '../testing/internal.js';" },
        { file: 'src/dev/y.ts', text: "import { findFreePorts } from '../testing/ports.js';" },
      ],
      want: [
        "src/dev/y.ts: imports '../testing/ports.js', a file inside src/testing; enter testing through its public module, src/testing/index.ts",
      ],
    },
    {
      name: 'a flag table, which `kop --help` loads, is entered directly; a generator folder has no internal.ts',
      given: [
        {
          file: 'src/commands/create-api.ts',
          text: "import { CREATE_API_FLAGS } from '../create-api/create-api-flags.js';",
        },
        { file: 'src/commands/x.ts', text: "import { a } from '../create-api/internal.js';" },
      ],
      want: [
        "src/commands/x.ts: imports '../create-api/internal.js', a file inside src/create-api; enter create-api through its public module, src/create-api/index.ts",
      ],
    },
    {
      name: 'a folder on no floor is reported',
      given: [{ file: 'src/extra/x.ts', text: '' }],
      want: [
        'src/extra/x.ts: src/extra is on no floor of the table in test/repository/layering.test.ts; place it there',
      ],
    },
  ];
  it.each(cases)('$name', ({ given, want }) => {
    expect(layeringViolations(given)).toEqual(want);
  });

  it('finds an import circle inside one folder', () => {
    const given: SourceFile[] = [
      { file: 'src/commands/index.ts', text: "import * as init from './init.js';" },
      { file: 'src/commands/init.ts', text: "import type { MakeContext } from './index.js';" },
      { file: 'src/commands/version.ts', text: "import type { MakeContext } from './command-module.js';" },
      { file: 'src/commands/command-module.ts', text: "import type { Context } from '../base/context.js';" },
    ];
    expect(importCircles(given)).toEqual(['src/commands/index.ts -> src/commands/init.ts -> src/commands/index.ts']);
  });

  it('src/ has no import circle between files, on either side', () => {
    expect(importCircles(sourceFiles())).toEqual([]);
  });

  it('every import in src/ runs down the floor plan and enters another folder through its public module', () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(50);
    expect(layeringViolations(files)).toEqual([]);
  });
});
