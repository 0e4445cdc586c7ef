import { describe, expect, it } from 'vitest';
import { INIT_FLAGS, INIT_IDENTITY_FLAGS } from '../../src/init/init-flags.js';
import { identityFrom, type InitOptions } from '../../src/init/run-init.js';
import { fieldOf, recordFlags } from '../../src/project/command-flags.js';
import { LAYOUT, type ProjectFile } from '../../src/project/project-file.js';

/** What a fresh `kop init` records, for a flag of each type: the value, and one that contradicts it. */
const VALUES = {
  value: ['recorded-value', 'other-value'],
  switch: [true, false],
  toggle: [true, false],
  list: [['recorded'], ['other']],
} as const;

/** A PROJECT with every flag of init's table recorded with its value in {@link VALUES}. */
function recordedProject(): ProjectFile {
  const project = { version: '1', layout: [LAYOUT], resources: [] } as unknown as ProjectFile;
  recordFlags(INIT_FLAGS, project, Object.fromEntries(INIT_FLAGS.map((s) => [fieldOf(s.name), VALUES[s.type][0]])));
  return project;
}

describe('kop init --force keeps the identity PROJECT records', () => {
  it('treats every flag PROJECT records and reads back as identity, and only those', () => {
    const identity = INIT_FLAGS.filter((s) => 'record' in s && 'recorded' in s).map((s) => s.name);
    expect(INIT_IDENTITY_FLAGS.map((s) => s.name)).toEqual(identity);
    // The four of today, so that a flag leaving the identity is a decision this test sees.
    expect(identity).toEqual(['domain', 'project-name', 'namespaced', 'multigroup']);
  });

  it.each(INIT_IDENTITY_FLAGS.map((s) => [s.name, s] as const))(
    '--%s: keeps the recorded value and refuses a contradicting one',
    (name, spec) => {
      const project = recordedProject();
      const field = fieldOf(name);
      const [recorded, other] = VALUES[spec.type];
      expect((identityFrom(project, {}) as Record<string, unknown>)[field]).toEqual(recorded);
      expect(() => identityFrom(project, { [field]: other } as InitOptions)).toThrow(
        new RegExp(`^--${name} .* contradicts PROJECT, which records `),
      );
    },
  );

  it('reads a switch or toggle PROJECT leaves out as off', () => {
    const project = { ...recordedProject(), namespaced: undefined, multigroup: undefined };
    expect(() => identityFrom(project, { multigroup: true })).toThrow(
      /--multigroup true contradicts PROJECT, which records false/,
    );
    expect(identityFrom(project, {})).toMatchObject({ namespaced: false, multigroup: false });
  });
});
