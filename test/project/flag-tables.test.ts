import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { controllerNamesToReplay } from '../../src/alpha/project-features.js';
import { register as registerCreateApi } from '../../src/commands/create-api.js';
import { register as registerCreateWebhook } from '../../src/commands/create-webhook.js';
import { register as registerInit } from '../../src/commands/init.js';
import type { MakeContext } from '../../src/commands/command-module.js';
import { CREATE_API_FLAGS } from '../../src/create-api/create-api-flags.js';
import { CREATE_WEBHOOK_FLAGS } from '../../src/create-webhook/create-webhook-flags.js';
import { INIT_FLAGS } from '../../src/init/init-flags.js';
import { CREATE_API_PLUGIN_FLAGS } from '../../src/plugins/deploy-image/deploy-image-flags.js';
import {
  fieldOf,
  recordedOptions,
  recordFlags,
  replayArgv,
  type AnyFlagSpec,
  type OptionsOf,
} from '../../src/project/command-flags.js';
import {
  formatProjectFile,
  LAYOUT,
  parseProjectFile,
  type ProjectFile,
  type ProjectResource,
} from '../../src/project/project-file.js';

const noContext: MakeContext = () => {
  throw new Error('the flag tests never run a command');
};

/**
 * One command's table and how its run is recorded: `record` writes the values into a fresh
 * PROJECT, `readBack` reads the written file's flags back as `kop alpha generate` does.
 */
interface TableCase {
  command: string[];
  table: readonly AnyFlagSpec[];
  register: (program: Command, makeContext: MakeContext) => void;
  /** A value for every flag that both records into PROJECT and reads back from it. */
  samples: Record<string, unknown>;
  /** A fresh PROJECT with `values` recorded by the table. */
  record(values: Record<string, unknown>): ProjectFile;
  readBack(project: ProjectFile): OptionsOf<readonly AnyFlagSpec[]>;
}

const baseProject = (): ProjectFile => ({
  version: '1',
  layout: [LAYOUT],
  domain: 'example.com',
  projectName: 'demo',
  namespaced: false,
  resources: [],
});

/** A PROJECT file as written and read again: what the flags recorded is in the file, not only in memory. */
const written = (project: ProjectFile) => parseProjectFile(formatProjectFile(project));

const kindSource = (project: ProjectFile) => {
  const resource = project.resources[0]!;
  return { resource, project, controllers: controllerNamesToReplay(resource, project.multigroup === true) };
};

const CASES: Record<string, TableCase> = {
  init: {
    command: ['init'],
    table: INIT_FLAGS,
    register: registerInit,
    samples: { domain: 'tutorial.kop.dev', projectName: 'guestbook', namespaced: true, multigroup: true },
    record: (values) => {
      const project = { version: '1', layout: [LAYOUT], resources: [] } as unknown as ProjectFile;
      recordFlags(INIT_FLAGS, project, values);
      return project;
    },
    readBack: (project) => recordedOptions(INIT_FLAGS, { project, boilerplate: { license: 'apache2' } }),
  },
  'create api': {
    command: ['create', 'api'],
    table: CREATE_API_FLAGS,
    register: registerCreateApi,
    samples: {
      group: 'cache',
      version: 'v2',
      kind: 'Memcached',
      plural: 'memcacheds',
      namespaced: false,
      resource: true,
      controller: true,
      controllerName: 'memcached-backup',
      conversion: false,
      ssa: true,
    },
    record: (values) => {
      const resource = { domain: 'example.com' } as ProjectResource;
      recordFlags(CREATE_API_FLAGS, resource, values);
      return { ...baseProject(), resources: [resource] };
    },
    readBack: (project) => recordedOptions(CREATE_API_FLAGS, kindSource(project)),
  },
  'create webhook': {
    command: ['create', 'webhook'],
    table: CREATE_WEBHOOK_FLAGS,
    register: registerCreateWebhook,
    samples: {
      defaulting: true,
      programmaticValidation: true,
      conversion: true,
      spoke: ['v1', 'v2'],
      defaultingPath: '/default-memcached',
      validationPath: '/check-memcached',
    },
    record: (values) => {
      const resource: ProjectResource = {
        group: 'cache',
        version: 'v3',
        kind: 'Memcached',
        plural: 'memcacheds',
        domain: 'x.io',
      };
      recordFlags(CREATE_WEBHOOK_FLAGS, resource, values);
      return { ...baseProject(), resources: [resource] };
    },
    readBack: (project) => recordedOptions(CREATE_WEBHOOK_FLAGS, kindSource(project)),
  },
};

/** The command a table's flags are registered on, as `kop` registers it (its action never runs here). */
function registered(testCase: TableCase): Command {
  const program = new Command().exitOverride();
  testCase.register(program, noContext);
  let command = program;
  for (const name of testCase.command) command = command.commands.find((c) => c.name() === name)!;
  return command.exitOverride().action(() => {});
}

describe.each(Object.entries(CASES))('the flags of kop %s, each declared once', (_, testCase) => {
  const { table, samples } = testCase;
  const both = table.filter((spec) => spec.record !== undefined && spec.recorded !== undefined);

  it('say how PROJECT keeps each flag, or why it does not', () => {
    const silent = table.filter(
      (spec) => spec.recorded === undefined && spec.record === undefined && !spec.unrecorded?.trim(),
    );
    expect(silent.map((spec) => `--${spec.name}`)).toEqual([]);
  });

  it('have a sample here for each flag that writes PROJECT and reads it back (add one with a new flag)', () => {
    expect(both.map((spec) => fieldOf(spec.name)).filter((field) => !(field in samples))).toEqual([]);
  });

  it('are the options of the command kop registers, each with its help', () => {
    const command = registered(testCase);
    const help = command.helpInformation();
    for (const spec of table) {
      const option = command.options.find((o) => o.long === `--${spec.name}`);
      expect(option?.description, `--${spec.name}`).toBe(spec.help);
      expect(help).toContain(`--${spec.name}`);
      if (spec.type === 'toggle') expect(help).toContain(`--no-${spec.name}`);
    }
  });

  it('write PROJECT, read it back and replay it into the same typed options', () => {
    const options = testCase.readBack(written(testCase.record(samples)));
    for (const spec of both)
      expect((options as Record<string, unknown>)[fieldOf(spec.name)], `--${spec.name}`).toEqual(
        samples[fieldOf(spec.name)],
      );
    // The replay's command line, parsed by the command kop registers, gives the options back.
    const argv = replayArgv(testCase.command, table, options);
    expect(argv.slice(0, testCase.command.length)).toEqual(testCase.command);
    expect(argv.at(-1)).toBe('--yes');
    const command = registered(testCase);
    command.parse(argv.slice(testCase.command.length, -1), { from: 'user' });
    expect(command.opts()).toEqual(options);
  });

  it('each write their own part of PROJECT', () => {
    for (const spec of table.filter((s) => s.record !== undefined)) {
      const field = fieldOf(spec.name);
      const sample = samples[field] ?? (spec.type === 'value' ? 'sample' : true);
      const { [field]: _left, ...others } = { ...samples, [field]: sample };
      expect(formatProjectFile(testCase.record({ ...others, [field]: sample })), `--${spec.name}`).not.toBe(
        formatProjectFile(testCase.record(others)),
      );
    }
  });
});

describe("kop init's flags", () => {
  it('record the project as kop init wrote it before the table', () => {
    const project = CASES.init!.record({
      domain: 'example.com',
      projectName: 'demo',
      namespaced: false,
      multigroup: false,
      kopSource: 'file:../kop',
    });
    expect(formatProjectFile({ ...project, cliVersion: '0.1.0' })).toBe(
      [
        '# Code generated by kop. DO NOT EDIT.',
        '# kop reads and records the project here; it is the source of truth for kop commands.',
        'version: "1"',
        'layout:',
        '  - kop.dev/typescript/v1',
        'domain: example.com',
        'projectName: demo',
        'namespaced: false',
        'kopSource: file:../kop',
        'cliVersion: 0.1.0',
        'resources: []',
        '',
      ].join('\n'),
    );
  });

  it('replay owner and license from the license header, and the kop source the replay chooses', () => {
    const project = written(
      CASES.init!.record({ domain: 'example.com', projectName: 'demo', kopSource: 'file:old.tgz' }),
    );
    const options = {
      ...recordedOptions(INIT_FLAGS, { project, boilerplate: { owner: 'Example Corp', license: 'none' } }),
      kopSource: 'file:../kop',
      skipInstall: true,
    };
    expect(replayArgv(['init'], INIT_FLAGS, options).join(' ')).toBe(
      'init --domain example.com --project-name demo --owner Example Corp --license none --kop-source file:../kop --skip-install --yes',
    );
  });
});

describe("create api's flags with the deploy-image plugin's", () => {
  it('register on the one create api command', () => {
    const command = registered(CASES['create api']!);
    for (const spec of CREATE_API_PLUGIN_FLAGS)
      expect(command.options.some((o) => o.long === `--${spec.name}`)).toBe(true);
  });
});
