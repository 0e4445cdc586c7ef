/**
 * One declaration per command flag (Kubebuilder binds each plugin's flags in one place): from a
 * table of {@link FlagSpec}s come the commander options (commands/flag-options.ts), the typed
 * options of the command's run ({@link OptionsOf}), the value PROJECT records for it (written by
 * `record` through {@link recordFlags}, read back by `recorded`) and the command line that replays it (`kop alpha generate`, {@link replayArgv}).
 * Adding a flag is one entry in its command's table.
 *
 * This module stays light (types and pure functions): every command module imports its table
 * when `kop --help` loads them.
 */
import type { ProjectFile, ProjectResource } from './project-file.js';

/**
 * How a flag is spelled and what value it gives:
 * - `value`: `--name <arg>`, a string;
 * - `list`: `--name <arg>`, repeatable (`--name a --name b`), a list of strings;
 * - `switch`: `--name`, true when given;
 * - `toggle`: `--name` and `--no-name`, true or false when given, undefined when not (ask or default).
 */
export type FlagType = 'value' | 'list' | 'switch' | 'toggle';

/** What a recorded flag is read back from: a PROJECT entry, its project, and its reconcilers as `--controller-name` takes them. */
export interface RecordedSource {
  resource: ProjectResource;
  project: ProjectFile;
  /** The kind's reconcilers in replay order, each as `--controller-name` takes it (undefined: the unnamed one). */
  controllers: readonly (string | undefined)[];
}

/** The value a flag of type `T` gives. */
export type FlagValue<T extends FlagType> = T extends 'value' ? string : T extends 'list' ? string[] : boolean;

/**
 * One flag of one command. `S` is what its recorded value is read back from and `R` what `record`
 * writes it into: a kind's PROJECT entry for create api and create webhook (the defaults), the
 * project itself for init (init/init-flags.ts).
 */
export interface FlagSpec<
  N extends string = string,
  T extends FlagType = FlagType,
  S = RecordedSource,
  R = ProjectResource,
> {
  /** The flag without dashes, as the command line spells it: `controller-name`. Its options field is the camelCase (`controllerName`), as commander names it. */
  readonly name: N;
  readonly type: T;
  /** The argument's placeholder in help, for `value` and `list` flags: `<group>`. */
  readonly arg?: string;
  /** Help for the flag (for a toggle, for `--name`). */
  readonly help: string;
  /** Help for `--no-name` (toggles only). */
  readonly noHelp?: string;
  /**
   * The value PROJECT records for this flag, read back for the replay; undefined leaves the flag
   * out. Absent: the flag is not recorded (it is never replayed from PROJECT).
   */
  readonly recorded?: (source: S) => FlagValue<T> | undefined;
  /**
   * Writes the value the run settled for this flag into PROJECT (the kind's entry, or the
   * project), the inverse of `recorded` (undefined removes it). Commands record their flags
   * through {@link recordFlags}.
   */
  readonly record?: (target: R, value: FlagValue<T> | undefined) => void;
  /**
   * Why PROJECT does not record this flag, for one that declares neither `recorded` nor `record`
   * (how one run writes, a value the replay chooses itself): every flag says how PROJECT keeps it
   * or why it does not (test/project/command-flags.test.ts checks each table).
   */
  readonly unrecorded?: string;
  /** False for a flag the replay's command line never carries (`--force`). */
  readonly replay?: false;
}

/** `controller-name` -> `controllerName`, as commander names an option's field. */
export type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/** The typed options of a command: one optional field per flag of its table, named and typed by it. */
export type OptionsOf<Table extends readonly AnyFlagSpec[]> = {
  [F in Table[number] as CamelCase<F['name']>]?: FlagValue<F['type']>;
};

/** A flag of any table, whatever it records into and reads back from. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tables' sources and targets differ; each function below takes them from its table
export type AnyFlagSpec = FlagSpec<string, FlagType, any, any>;

/** What the flags of `Table` read their recorded values back from. */
export type SourceOf<Table extends readonly AnyFlagSpec[]> = Parameters<NonNullable<Table[number]['recorded']>>[0];

/** What the flags of `Table` record their values into. */
export type TargetOf<Table extends readonly AnyFlagSpec[]> = Parameters<NonNullable<Table[number]['record']>>[0];

/** Declares one flag of a kind's command (create api, create webhook), keeping its name and type for {@link OptionsOf}. */
export function flag<const N extends string, const T extends FlagType>(spec: FlagSpec<N, T>): FlagSpec<N, T> {
  return spec;
}

/** The options field of a flag: its name in camelCase. */
export function fieldOf(name: string): string {
  return name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The command line of one flag and its value: nothing when the value is undefined (or false for a switch). */
export function flagArgv(spec: AnyFlagSpec, value: unknown): string[] {
  if (value === undefined) return [];
  switch (spec.type) {
    case 'value':
      return [`--${spec.name}`, value as string];
    case 'list':
      return (value as readonly string[]).flatMap((item) => [`--${spec.name}`, item]);
    case 'switch':
      return value === true ? [`--${spec.name}`] : [];
    case 'toggle':
      return [value === true ? `--${spec.name}` : `--no-${spec.name}`];
  }
}

/** The command line that runs `command` with `options`: its flags in the table's order, then `--yes`. */
export function replayArgv<Table extends readonly AnyFlagSpec[]>(
  command: readonly string[],
  table: Table,
  options: OptionsOf<Table>,
): string[] {
  const values = options as Record<string, unknown>;
  const flags = table
    .filter((spec) => spec.replay !== false)
    .flatMap((spec) => flagArgv(spec, values[fieldOf(spec.name)]));
  return [...command, ...flags, '--yes'];
}

/** The options PROJECT records for one entry: every recorded flag of the table whose value is there. */
export function recordedOptions<Table extends readonly AnyFlagSpec[]>(
  table: Table,
  source: SourceOf<Table>,
): OptionsOf<Table> {
  const options: Record<string, unknown> = {};
  for (const spec of table) {
    const value = spec.recorded?.(source);
    if (value !== undefined) options[fieldOf(spec.name)] = value;
  }
  return options as OptionsOf<Table>;
}

/** Records a run in PROJECT (a kind's entry, or the project): every flag of the table that declares `record`, with its value in `values`. */
export function recordFlags<Table extends readonly AnyFlagSpec[]>(
  table: Table,
  target: TargetOf<Table>,
  values: OptionsOf<Table>,
): void {
  const given = values as Record<string, FlagValue<FlagType> | undefined>;
  for (const spec of table) spec.record?.(target, given[fieldOf(spec.name)]);
}
