/**
 * `kop init`'s flags, each declared once: spelling and help (the command registers them), field
 * in {@link InitFlags}, the PROJECT key it records and how `kop alpha generate` passes it again
 * (project/command-flags.ts). Unlike create api's, init's flags record into the project itself,
 * and owner and license are read back from the license header, where init wrote them. Light:
 * `kop --help` loads it.
 */
import { type FlagSpec, type FlagType, type FlagValue, type OptionsOf } from '../project/command-flags.js';
import type { ProjectFile } from '../project/index.js';

/** What init's recorded flags are read back from: PROJECT, and the owner and license of hack/boilerplate.txt. */
export interface InitRecordedSource {
  project: ProjectFile;
  boilerplate: { owner?: string; license: 'apache2' | 'none' };
}

/** Declares one flag of `kop init`: recorded into the project, read back from {@link InitRecordedSource}. */
function initFlag<const N extends string, const T extends FlagType>(
  spec: FlagSpec<N, T, InitRecordedSource, ProjectFile>,
): FlagSpec<N, T, InitRecordedSource, ProjectFile> {
  return spec;
}

export const INIT_FLAGS = [
  initFlag({
    name: 'domain',
    type: 'value',
    arg: '<domain>',
    help: 'domain of every API group, e.g. example.com (default "my.domain")',
    recorded: ({ project }) => project.domain,
    record: (project, domain) => {
      if (domain !== undefined) project.domain = domain;
    },
  }),
  initFlag({
    name: 'project-name',
    type: 'value',
    arg: '<name>',
    help: 'project name, a DNS-1123 label (default: the folder name)',
    recorded: ({ project }) => project.projectName,
    record: (project, name) => {
      if (name !== undefined) project.projectName = name;
    },
  }),
  initFlag({
    name: 'owner',
    type: 'value',
    arg: '<owner>',
    help: 'copyright owner named in the license headers',
    recorded: ({ boilerplate }) => boilerplate.owner,
  }),
  initFlag({
    name: 'license',
    type: 'value',
    arg: '<license>',
    help: 'license of the generated project: apache2 or none (default "apache2")',
    recorded: ({ boilerplate }) => boilerplate.license,
  }),
  initFlag({
    name: 'namespaced',
    type: 'switch',
    help: 'watch only the namespace in WATCH_NAMESPACE and use namespaced Roles',
    recorded: ({ project }) => project.namespaced ?? false,
    // Always written, false too: `kop edit --namespaced` reads the project's choice from it.
    record: (project, on) => {
      project.namespaced = on === true;
    },
  }),
  initFlag({
    name: 'multigroup',
    type: 'toggle',
    help: "Kubebuilder's multigroup layout: reconcilers by API group, src/controllers/<group>/ (PROJECT multigroup: true)",
    noHelp: 'the single-group layout (the default): reconcilers in src/controllers/',
    recorded: ({ project }) => (project.multigroup === true ? true : undefined),
    record: (project, on) => {
      if (on === true) project.multigroup = true;
      else delete project.multigroup;
    },
  }),
  initFlag({
    name: 'plugins',
    type: 'list',
    arg: '<names>',
    help: "the project layout, as Kubebuilder names it: go/v4 or go.kubebuilder.io/v4 (or kop.dev/typescript/v1) all mean kop's TypeScript layout; other plugins: kop edit --plugins / kop create api --plugins",
    unrecorded: "every name it accepts means kop's one layout, which PROJECT's `layout` records whatever was given",
  }),
  initFlag({
    name: 'kop-source',
    type: 'value',
    arg: '<spec>',
    help: 'npm dependency spec for kop: a registry range, git URL or path relative to the project (default: a range when this kop came from a registry, else this kop packed into .kop/kop-<version>.tgz)',
    // The replay passes the source the rebuilt project depends on (alpha generate's choice), not the recorded one.
    record: (project, spec) => {
      if (spec === undefined) delete project.kopSource;
      else project.kopSource = spec;
    },
  }),
  initFlag({
    name: 'skip-install',
    type: 'switch',
    help: 'do not run npm install after writing the files',
    unrecorded: 'how one run ends, not what the project is (the replay always passes it)',
  }),
  initFlag({
    name: 'repo',
    type: 'value',
    arg: '<module>',
    help: "Kubebuilder's Go module path: accepted and ignored (a kop project is an npm package)",
    unrecorded: 'a Go module path, which a kop project does not have',
  }),
  initFlag({
    name: 'force',
    type: 'switch',
    help: 'write even when the folder already holds a project',
    unrecorded: 'how one run writes, not what the project is',
    replay: false,
  }),
] as const;

/** The values of {@link INIT_FLAGS}, by field; anything left undefined is asked for on a TTY or defaulted. */
export type InitFlags = OptionsOf<typeof INIT_FLAGS>;

/** A flag of {@link INIT_FLAGS}. */
export type InitFlagSpec = (typeof INIT_FLAGS)[number];

/**
 * init's flags that are the project's identity: PROJECT records them and reads them back (`record`
 * and `recorded`), so `kop init --force` keeps them and refuses a flag that contradicts them. How
 * the project depends on kop is not identity (`--kop-source` is recorded but never read back:
 * under --force it switches the source).
 */
export const INIT_IDENTITY_FLAGS: readonly InitFlagSpec[] = INIT_FLAGS.filter(
  (spec: InitFlagSpec) => 'record' in spec && 'recorded' in spec,
);

/** The value PROJECT records for an identity flag; a switch or toggle it leaves out is off (`record` removes it when off). */
export function recordedIdentity(spec: InitFlagSpec, project: ProjectFile): FlagValue<FlagType> | undefined {
  const source: InitRecordedSource = {
    project,
    get boilerplate(): never {
      throw new Error(`--${spec.name}: an identity flag is read back from PROJECT alone, not hack/boilerplate.txt`);
    },
  };
  const value = 'recorded' in spec ? spec.recorded?.(source) : undefined;
  return value ?? (spec.type === 'switch' || spec.type === 'toggle' ? false : undefined);
}
