import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { mergeValues } from '../../src/helm/merge-values.js';
import { turnOnToggles } from '../../src/helm/render-variants.js';

describe('values.yaml three-way merge', () => {
  const base = 'manager:\n  replicas: 1\n  image:\n    tag: latest\nwebhook:\n  enable: false\nold: 1\n';
  it.each([
    {
      name: 'a value the user changed stays, with its comment; one left alone follows the new default',
      ours: '# mine\nmanager:\n  # two for availability\n  replicas: 2\n  image:\n    tag: latest # pinned later\nwebhook:\n  enable: false\nold: 1\n',
      theirs: 'manager:\n  replicas: 1\n  image:\n    tag: v2\nwebhook:\n  enable: true\n',
      want: { manager: { replicas: 2, image: { tag: 'v2' } }, webhook: { enable: true } },
      text: ['# mine', '  # two for availability\n  replicas: 2', 'tag: v2 # pinned later'],
      report: {
        added: [],
        updated: ['manager.image.tag', 'webhook.enable'],
        removed: ['old'],
        kept: ['manager.replicas'],
      },
    },
    {
      name: 'new settings are added; a setting kop dropped goes unless the user changed it',
      ours: 'manager:\n  replicas: 1\n  image:\n    tag: latest\nwebhook:\n  enable: false\nold: 5\nmine: x\n',
      theirs: 'manager:\n  replicas: 1\n  image:\n    tag: latest\n  leaderElection: true\nwebhook:\n  enable: false\n',
      want: {
        manager: { replicas: 1, image: { tag: 'latest' }, leaderElection: true },
        webhook: { enable: false },
        old: 5,
        mine: 'x',
      },
      text: [],
      report: { added: ['manager.leaderElection'], updated: [], removed: [], kept: [] },
    },
    {
      name: 'a setting the user deleted stays deleted while kop writes the same default',
      ours: 'manager:\n  replicas: 1\nwebhook:\n  enable: false\nold: 1\n',
      theirs: 'manager:\n  replicas: 1\n  image:\n    tag: latest\nwebhook:\n  enable: false\nold: 1\n',
      want: { manager: { replicas: 1 }, webhook: { enable: false }, old: 1 },
      text: [],
      report: { added: [], updated: [], removed: [], kept: [] },
    },
  ])('$name', ({ ours, theirs, want, text, report }) => {
    const merged = mergeValues(ours, theirs, base);
    expect(parseYaml(merged.text)).toEqual(want);
    for (const fragment of text) expect(merged.text).toContain(fragment);
    expect({ added: merged.added, updated: merged.updated, removed: merged.removed, kept: merged.kept }).toEqual(
      report,
    );
  });

  it('without a base keeps every value the user has and adds what is new', () => {
    const merged = mergeValues(
      'manager:\n  replicas: 1\n',
      'manager:\n  replicas: 3\n  leaderElection: true\n',
      undefined,
    );
    expect(parseYaml(merged.text)).toEqual({ manager: { replicas: 1, leaderElection: true } });
  });

  it('refuses a values.yaml that is not YAML', () => {
    expect(() => mergeValues('manager: [\n', 'a: 1\n', undefined)).toThrow(/not valid YAML/);
  });
});

describe('turning on config/default toggles', () => {
  const text = [
    'resources:',
    '  - ../crd',
    "  # [PROMETHEUS] A ServiceMonitor, with its ServiceAccount's token.",
    '  #- ../prometheus',
    '  # [CERTMANAGER] cert-manager objects.',
    '  #- ../certmanager',
    '  # [OTHER] stays off.',
    '  #- ../other',
    '  - ../certmanager',
    '  # +kop:scaffold:resources',
    'patches:',
    '  # [METRICS-WITH-CERTS] mounts the certificate.',
    '  #- path: cert_patch.yaml',
    '  #  target:',
    '  #    kind: Deployment',
    '  # +kop:scaffold:patches',
  ].join('\n');

  it('uncomments the YAML under the named toggles only, and never adds an entry that is already on', () => {
    expect(turnOnToggles(text, ['PROMETHEUS', 'CERTMANAGER', 'METRICS-WITH-CERTS']).split('\n')).toEqual([
      'resources:',
      '  - ../crd',
      "  # [PROMETHEUS] A ServiceMonitor, with its ServiceAccount's token.",
      '  - ../prometheus',
      '  # [CERTMANAGER] cert-manager objects.',
      '  #- ../certmanager',
      '  # [OTHER] stays off.',
      '  #- ../other',
      '  - ../certmanager',
      '  # +kop:scaffold:resources',
      'patches:',
      '  # [METRICS-WITH-CERTS] mounts the certificate.',
      '  - path: cert_patch.yaml',
      '    target:',
      '      kind: Deployment',
      '  # +kop:scaffold:patches',
    ]);
  });
});
