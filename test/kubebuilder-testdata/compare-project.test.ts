import { describe, expect, it } from 'vitest';
import { compareProject, defaultWebhookPath, normaliseProject } from './compare-project.mjs';
import {
  commandScore,
  failureGroupKey,
  firstErrorLine,
  formatTable,
  kopArgs,
  loadExpectedProject,
  type ScriptResult,
} from './run-script.mjs';
import { KUBEBUILDER_SCRIPTS, PROJECT_NAMES } from './scripts.mjs';

// A PROJECT as kop writes it, agreeing with the expectation below.
const kopProject = `
version: "1"
layout: [kop.dev/typescript/v1]
domain: testproject.org
projectName: demo
namespaced: false
kopSource: file:.kop/kop-0.1.0.tgz
plugins:
  deploy-image/v1-alpha:
    resources:
      - { group: example.com, version: v1alpha1, kind: Busybox, domain: testproject.org, options: { image: busybox:1.36.1 } }
resources:
  - group: crew
    version: v1
    kind: Captain
    plural: captains
    domain: testproject.org
    path: api/crew/v1/captain.types.ts
    api: { crdVersion: v1, namespaced: true }
    controllers: [{ name: captain-backup }, { name: captain }]
    webhooks: { defaulting: true, defaultingPath: /mutate-crew-testproject-org-v1-captain, validation: true, validationPath: /custom-validate-captain, webhookVersion: v1 }
  - { group: core, version: v1, kind: Pod, plural: pods, domain: "", core: true, webhooks: { defaulting: true, webhookVersion: v1 } }
`;

const expectation = {
  domain: 'testproject.org',
  projectName: 'demo',
  multigroup: false,
  namespaced: false,
  plugins: { 'deploy-image': { 'example.com/v1alpha1/Busybox': { image: 'busybox:1.36.1' } } },
  resources: [
    {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      domain: 'testproject.org',
      plural: 'captains',
      api: { namespaced: true },
      controllers: ['captain', 'captain-backup'],
      webhooks: { defaulting: true, validation: true, validationPath: '/custom-validate-captain' },
    },
    { group: 'core', version: 'v1', kind: 'Pod', core: true, webhooks: { defaulting: true } },
  ],
};

describe('compareProject', () => {
  it('finds no difference where only the keys that differ by design differ', () => {
    expect(compareProject(kopProject, expectation)).toEqual([]);
  });

  it.each([
    {
      change: (t: string) =>
        t.replace('controllers: [{ name: captain-backup }, { name: captain }]', 'controller: true'),
      want: 'crew/v1/Captain: controllers: want ["captain","captain-backup"], got true',
    },
    {
      change: (t: string) =>
        t.replace(
          'validationPath: /custom-validate-captain',
          'validationPath: /validate-crew-testproject-org-v1-captain',
        ),
      want: 'crew/v1/Captain: webhooks: want {"defaulting":true,"validation":true,"validationPath":"/custom-validate-captain"}, got {"defaulting":true,"validation":true}',
    },
    {
      change: (t: string) => t.replace('plural: captains', 'plural: captainz'),
      want: 'crew/v1/Captain: plural: want "captains", got "captainz"',
    },
    {
      change: (t: string) => t.replace('namespaced: true }', 'namespaced: false }'),
      want: 'crew/v1/Captain: api: want {"namespaced":true}, got {"namespaced":false}',
    },
    { change: (t: string) => t.replace(/ {2}- \{ group: core.*\n/, ''), want: 'core/v1/Pod: missing' },
    { change: (t: string) => t.replace('core: true, ', ''), want: 'core/v1/Pod: core: want true, got (none)' },
    {
      change: (t: string) => t.replace('image: busybox:1.36.1', 'image: busybox:1.37'),
      want: 'plugins: deploy-image: want {"example.com/v1alpha1/Busybox":{"image":"busybox:1.36.1"}}, got {"example.com/v1alpha1/Busybox":{"image":"busybox:1.37"}}',
    },
    {
      change: (t: string) => t.replace('namespaced: false\n', 'namespaced: true\nmultigroup: true\n'),
      want: ['multigroup: want false, got true', 'namespaced: want false, got true'],
    },
  ])('reports $want', ({ change, want }) => {
    const changed = change(kopProject);
    expect(changed).not.toBe(kopProject);
    expect(compareProject(changed, expectation)).toEqual(Array.isArray(want) ? want : [want]);
  });

  it('reports a resource nobody expects, and a plugin missing', () => {
    const extra = kopProject
      .replace(/plugins:[\s\S]*?resources:\n {6}- .*\n/, '')
      .replace(
        '\nresources:\n',
        '\nresources:\n  - { group: crew, version: v2, kind: Captain, plural: captains, domain: testproject.org }\n',
      );
    expect(compareProject(extra, expectation)).toEqual([
      'plugins: deploy-image missing',
      'crew/v2/Captain: not expected',
    ]);
  });

  it("gives Kubebuilder's default webhook paths, core kinds without a group", () => {
    expect(
      defaultWebhookPath('mutate', { group: 'crew', version: 'v1', kind: 'Captain', domain: 'testproject.org' }),
    ).toBe('/mutate-crew-testproject-org-v1-captain');
    expect(defaultWebhookPath('validate', { group: 'core', version: 'v1', kind: 'Pod', core: true })).toBe(
      '/validate--v1-pod',
    );
    expect(defaultWebhookPath('mutate', { group: 'apps', version: 'v1', kind: 'Deployment', core: true })).toBe(
      '/mutate-apps-v1-deployment',
    );
  });

  it('reads each expectation file into the normalised form unchanged', async () => {
    for (const name of PROJECT_NAMES) {
      const expected = await loadExpectedProject(name);
      expect(normaliseProject(expected).resources.length).toBe((expected.resources as unknown[]).length);
      expect(normaliseProject(expected).projectName).toBe(name);
    }
  });
});

describe("Kubebuilder's scripts as data", () => {
  it('has the commands of each project, init first, each spelt with kop', () => {
    const counts = Object.fromEntries(
      PROJECT_NAMES.map((name) => [name, KUBEBUILDER_SCRIPTS[name].filter(Array.isArray).length]),
    );
    expect(counts).toEqual({ 'project-v4': 21, 'project-v4-multigroup': 29, 'project-v4-with-plugins': 11 });
    for (const name of PROJECT_NAMES) {
      const [first] = KUBEBUILDER_SCRIPTS[name];
      expect(first).toEqual(expect.arrayContaining(['kop', 'init', '--plugins=go/v4']));
      for (const step of KUBEBUILDER_SCRIPTS[name]) if (Array.isArray(step)) expect(step[0]).toBe('kop');
    }
  });

  it("passes cert-manager's Go module and package path as Kubebuilder spells them", () => {
    for (const name of ['project-v4', 'project-v4-multigroup'] as const) {
      const external = KUBEBUILDER_SCRIPTS[name]
        .filter(Array.isArray)
        .filter((argv) => argv.some((a) => a.startsWith('--external-api-module=')));
      expect(external.map((argv) => argv[1])).toEqual(['create', 'create']);
      for (const argv of external) {
        expect(argv).toContain('--external-api-module=github.com/cert-manager/cert-manager@v1.20.2');
        expect(argv).toContain('--external-api-path=github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1');
      }
    }
  });

  it('adds only --skip-install, and only to init', () => {
    expect(kopArgs(['kop', 'init', '--domain', 'x.org'])).toEqual(['init', '--domain', 'x.org', '--skip-install']);
    expect(kopArgs(['kop', 'create', 'api', '--make=false'])).toEqual(['create', 'api', '--make=false']);
  });

  it("takes kop's error line, else the first line that looks like an error", () => {
    expect(firstErrorLine("note: x\nerror: unknown option '--ssa'\nhint: y")).toBe("error: unknown option '--ssa'");
    expect(firstErrorLine('', '> tsc\nsrc/a.ts(1,2): error TS2304: Cannot find name')).toBe(
      'src/a.ts(1,2): error TS2304: Cannot find name',
    );
    expect(failureGroupKey("error: unknown option '--controller-name=captain'")).toBe(
      "error: unknown option '--controller-name=…'",
    );
  });

  it('scores commands and tabulates steps, marking failures that follow an earlier one', () => {
    const result: ScriptResult = {
      projectName: 'project-v4',
      dir: '/tmp/x',
      bootstrap: [],
      kopMs: 1,
      projectDifferences: ['crew/v1/Captain: missing'],
      commands: [
        { argv: ['kop', 'init'], ok: true, exitCode: 0, ms: 1 },
        { argv: ['kop', 'create', 'api'], ok: false, exitCode: 2, ms: 1, firstError: "error: unknown option '--ssa'" },
        {
          argv: ['kop', 'create', 'webhook'],
          ok: false,
          exitCode: 1,
          ms: 1,
          firstError: 'error: not in PROJECT',
          afterFailure: true,
        },
      ],
      steps: [
        { name: 'generate', ok: true, ms: 1 },
        { name: 'test', ok: false, ms: 1, firstError: 'FAIL x' },
      ],
    };
    expect(commandScore(result)).toBe('1/3 (1 after an earlier failure)');
    expect(formatTable([result]).split('\n')).toEqual([
      '| project    | commands                         | generate | test | PROJECT       |',
      '| ---------- | -------------------------------- | -------- | ---- | ------------- |',
      '| project-v4 | 1/3 (1 after an earlier failure) | pass     | FAIL | 1 differences |',
    ]);
  });
});
