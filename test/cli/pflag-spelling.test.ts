import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, createProgram } from '../../src/cli/main.js';
import { respellKubebuilderFlags } from '../../src/cli/pflag-spelling.js';
import { parseProjectFile } from '../../src/project/project-file.js';
import { runInit } from '../../src/init/run-init.js';
import { tempDir, testContext } from '../helpers/fake-context.js';

const io = {
  stdout: { write: () => true, isTTY: false },
  stderr: { write: () => true, isTTY: false },
  stdin: { isTTY: false },
  env: {},
  cwd: process.cwd(),
};

describe("Kubebuilder's flag spellings", () => {
  const program = createProgram(io);
  const api = ['create', 'api', '--group', 'ship', '--version', 'v1', '--kind', 'Frigate'];
  const cases: { name: string; given: string[]; want: string[]; notes?: number }[] = [
    {
      name: '--x=true and --x=false of a flag with both spellings',
      given: [...api, '--controller=true', '--resource=false'],
      want: [...api, '--controller', '--no-resource'],
    },
    {
      name: "pflag's other boolean spellings",
      given: [...api, '--namespaced=False', '--controller=1', '--force=t'],
      want: [...api, '--no-namespaced', '--controller', '--force'],
    },
    { name: 'a flag with only --x: false is leaving it out', given: [...api, '--force=false'], want: api },
    {
      name: 'a global flag with only --no-x: true is the default',
      given: ['--color=true', ...api, '--color=false'],
      want: [...api, '--no-color'],
    },
    {
      name: '--make and --make=false are dropped with a note',
      given: [...api, '--make=false', '--make'],
      want: api,
      notes: 2,
    },
    {
      name: 'value flags and plain booleans pass unchanged',
      given: ['create', 'webhook', '--version=v1', '--defaulting', '--spoke=v2'],
      want: ['create', 'webhook', '--version=v1', '--defaulting', '--spoke=v2'],
    },
    {
      name: 'nothing after -- is touched',
      given: ['init', '--', '--force=false'],
      want: ['init', '--', '--force=false'],
    },
    {
      name: 'an unknown flag is left for commander to refuse',
      given: [...api, '--no-such-flag=true'],
      want: [...api, '--no-such-flag=true'],
    },
    {
      name: '--ssa=true is --ssa, --ssa=false leaves it out',
      given: [...api, '--ssa=true', '--ssa=false'],
      want: [...api, '--ssa'],
    },
  ];
  for (const { name, given, want, notes } of cases) {
    it(name, () => {
      const respelled = respellKubebuilderFlags(program, given);
      expect(respelled.args).toEqual(want);
      expect(respelled.notes).toHaveLength(notes ?? 0);
    });
  }

  it('refuses a boolean that is not one, naming the flag', () => {
    expect(() => respellKubebuilderFlags(program, [...api, '--controller=maybe'])).toThrow(
      /--controller: invalid boolean "maybe"; use --controller=true or --controller=false/,
    );
  });

  it('runs a Kubebuilder command line as written', async () => {
    const { dir, cleanup } = await tempDir('demo');
    try {
      await runInit(
        {
          projectName: 'demo',
          domain: 'testproject.org',
          owner: 'x',
          license: 'none',
          kopSource: 'file:../kop',
          skipInstall: true,
        },
        testContext({ cwd: dir }),
      );
      let stderr = '';
      const code = await main(
        [
          'node',
          'kop',
          'create',
          'api',
          '--group',
          'crew',
          '--version',
          'v1',
          '--kind',
          'Captain',
          '--controller=true',
          '--resource=true',
          '--make=false',
        ],
        {
          ...io,
          stderr: { write: (text: string) => ((stderr += text), true), isTTY: false },
          cwd: dir,
        },
      );
      expect(code, stderr).toBe(0);
      expect(stderr).toContain('note: --make is ignored');
      const project = parseProjectFile(await readFile(path.join(dir, 'PROJECT'), 'utf8'));
      expect(project.resources[0]).toMatchObject({ kind: 'Captain', controller: true, api: { namespaced: true } });
    } finally {
      await cleanup();
    }
  });
});
