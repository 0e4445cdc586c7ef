import { Command } from 'commander';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { addFlags } from '../../src/commands/flag-options.js';
import { CREATE_API_FLAGS } from '../../src/create-api/create-api-flags.js';
import { CREATE_WEBHOOK_FLAGS } from '../../src/create-webhook/create-webhook-flags.js';
import {
  flag,
  recordedOptions,
  recordFlags,
  replayArgv,
  type OptionsOf,
  type RecordedSource,
} from '../../src/project/command-flags.js';
import { LAYOUT, type ProjectFile, type ProjectResource } from '../../src/project/project-file.js';

const resource: ProjectResource = {
  group: 'cache',
  version: 'v1',
  kind: 'Memcached',
  plural: 'memcacheds',
  domain: 'example.com',
  api: { crdVersion: 'v1', namespaced: false },
  controller: true,
  webhooks: { defaulting: true, conversion: true, spoke: ['v2'], webhookVersion: 'v1' },
};
const project: ProjectFile = {
  version: '1',
  layout: [LAYOUT],
  domain: 'example.com',
  projectName: 'demo',
  resources: [resource],
};
const source: RecordedSource = { resource, project, controllers: [undefined] };

describe('one declaration per flag', () => {
  // A flag a future create api could add: declared once, everything else follows from it.
  const table = [
    ...CREATE_API_FLAGS,
    flag({
      name: 'storage-class',
      type: 'value',
      arg: '<name>',
      help: 'the storage class of the kind',
      recorded: ({ resource: r }) => (r as ProjectResource & { storageClass?: string }).storageClass,
      record: (r, value) => Object.assign(r, { storageClass: value }),
    }),
  ] as const;

  it('gives the commander option, parsed into the field its options type has', () => {
    const command = addFlags(new Command('api').exitOverride(), table);
    const option = command.options.find((o) => o.long === '--storage-class');
    expect(option?.description).toBe('the storage class of the kind');
    command.parse(['--storage-class', 'fast', '--no-namespaced'], { from: 'user' });
    expect(command.opts<OptionsOf<typeof table>>()).toEqual({ storageClass: 'fast', namespaced: false });
    expectTypeOf<OptionsOf<typeof table>['storageClass']>().toEqualTypeOf<string | undefined>();
  });

  it('reads the PROJECT field back and replays it on the command line', () => {
    const recorded = { ...resource, storageClass: 'fast' };
    const options = recordedOptions(table, { ...source, resource: recorded });
    expect(options.storageClass).toBe('fast');
    expect(replayArgv(['create', 'api'], table, options)).toEqual([
      ...['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--plural', 'memcacheds'],
      ...['--no-namespaced', '--resource', '--controller', '--storage-class', 'fast', '--yes'],
    ]);
  });

  it('leaves a flag out of the replay when PROJECT has no value for it, and never replays --force', () => {
    const options = { ...recordedOptions(table, source), force: true };
    const argv = replayArgv(['create', 'api'], table, options);
    expect(argv).not.toContain('--storage-class');
    expect(argv).not.toContain('--force');
  });

  it('replays create webhook from the same kind of table (lists repeat their flag)', () => {
    const options = recordedOptions(CREATE_WEBHOOK_FLAGS, source);
    expect(replayArgv(['create', 'webhook'], CREATE_WEBHOOK_FLAGS, options).join(' ')).toBe(
      'create webhook --group cache --version v1 --kind Memcached --defaulting --conversion --spoke v2 --yes',
    );
  });

  it('writes the PROJECT field from the same declaration, and reads back what it wrote', () => {
    const entry: ProjectResource = { ...resource };
    recordFlags(table, entry, { storageClass: 'fast' });
    expect((entry as ProjectResource & { storageClass?: string }).storageClass).toBe('fast');
    expect(recordedOptions(table, { ...source, resource: entry }).storageClass).toBe('fast');
  });

  it("records create webhook's flags in PROJECT as the replay reads them back", () => {
    const entry: ProjectResource = { ...resource, webhooks: undefined };
    const values = {
      defaulting: true,
      programmaticValidation: false,
      conversion: true,
      spoke: ['v2'],
      defaultingPath: '/default-memcached',
    };
    recordFlags(CREATE_WEBHOOK_FLAGS, entry, values);
    expect(entry.webhooks).toEqual({
      defaulting: true,
      conversion: true,
      spoke: ['v2'],
      defaultingPath: '/default-memcached',
    });
    const options = recordedOptions(CREATE_WEBHOOK_FLAGS, { ...source, resource: entry });
    expect(options).toMatchObject(values);
    // The values are the run's settled ones: off, empty or not given removes the key.
    recordFlags(CREATE_WEBHOOK_FLAGS, entry, { defaulting: false, spoke: [], conversion: true });
    expect(entry.webhooks).toEqual({ conversion: true });
  });
});
