import { describe, expect, it } from 'vitest';
import { commentMarkersInText } from '../../src/markers/collect.js';
import { MarkerPlacementError, MarkerSyntaxError } from '../../src/schema/errors.js';
import {
  buildWebhookConfigurations,
  formatWebhookConfigurations,
} from '../../src/webhook-manifests/webhook-configuration.js';
import {
  parseWebhookConfigurationMarker,
  parseWebhookMarker,
  parseWebhookMarkers,
  WEBHOOK_SCAN_PREFIX,
} from '../../src/webhook-manifests/webhook-markers.js';

const at = { file: 'src/webhooks/rediscluster.webhook.ts', line: 7 };
const BASE =
  'groups=cache.example.com,resources=redisclusters,verbs=create;update,versions=v1alpha1,admissionReviewVersions=v1';
const webhook = (args: string) => parseWebhookMarker(`+kubebuilder:webhook:${args}`, at);
const mutating = (name: string, extra = '') =>
  webhook(`path=/mutate,mutating=true,failurePolicy=fail,sideEffects=None,${BASE},name=${name}${extra}`);
const validating = (name: string, extra = '') =>
  webhook(`path=/validate,mutating=false,failurePolicy=fail,sideEffects=None,${BASE},name=${name}${extra}`);

describe('webhook markers', () => {
  it('reads every argument and spells values as the API does (case-insensitive, core is "")', () => {
    const marker = webhook(
      'path=/mutate-pods,mutating=true,failurePolicy=ignore,sideEffects=noneondryrun,groups=core;apps,resources=pods;pods/status,' +
        'verbs=Create;UPDATE;delete;connect,versions=v1,name=pods.example.com,admissionReviewVersions={v1,v1beta1},' +
        'matchPolicy=exact,timeoutSeconds=5,reinvocationPolicy=ifneeded,serviceName=hooks,serviceNamespace=ops,servicePort=9443,webhookVersions=v1',
    );
    expect(marker).toEqual({
      name: 'pods.example.com',
      mutating: true,
      failurePolicy: 'Ignore',
      sideEffects: 'NoneOnDryRun',
      matchPolicy: 'Exact',
      timeoutSeconds: 5,
      reinvocationPolicy: 'IfNeeded',
      groups: ['', 'apps'],
      resources: ['pods', 'pods/status'],
      versions: ['v1'],
      operations: ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'],
      admissionReviewVersions: ['v1', 'v1beta1'],
      path: '/mutate-pods',
      serviceName: 'hooks',
      serviceNamespace: 'ops',
      servicePort: 9443,
      location: at,
    });
  });

  it('treats timeoutSeconds=0 as unset, like controller-gen', () => {
    expect(validating('v.example.com', ',timeoutSeconds=0').timeoutSeconds).toBeUndefined();
  });

  it('refuses unknown, missing and invalid arguments with file:line', () => {
    const cases: [string, RegExp][] = [
      [',bogus=1', /unknown argument "bogus"/],
      [',name=again.example.com', /argument name is given twice/],
      [',timeoutSeconds=31', /timeoutSeconds 31 is not between 1 and 30/],
      [',timeoutSeconds=-1', /timeoutSeconds -1 is not between 1 and 30/],
      [',matchPolicy=Fuzzy', /matchPolicy "Fuzzy" is not one of Exact, Equivalent/],
      [',reinvocationPolicy=IfNeeded', /reinvocationPolicy applies only to mutating webhooks/],
      [',url="https://hooks.example.com/v"', /exactly one of path .* and url/],
      [',servicePort=0', /servicePort 0 is not between 1 and 65535/],
    ];
    for (const [extra, message] of cases) {
      expect(() => validating('v.example.com', extra), extra).toThrow(message);
      expect(() => validating('v.example.com', extra), extra).toThrow(
        /\(src\/webhooks\/rediscluster\.webhook\.ts:7\)$/,
      );
    }
    expect(() => webhook(`path=/v,mutating=false,sideEffects=None,${BASE},name=v.example.com`)).toThrow(
      /missing argument failurePolicy/,
    );
    expect(() => webhook(`path=/v,mutating=false,failurePolicy=fail,${BASE},name=v.example.com`)).toThrow(
      /missing argument sideEffects/,
    );
    expect(() =>
      webhook(`path=/v,mutating=false,failurePolicy=fail,sideEffects=Some,${BASE},name=v.example.com`),
    ).toThrow(/sideEffects "Some" is not one of None, NoneOnDryRun/);
    expect(() =>
      webhook(`path=/v,mutating=false,failurePolicy=never,sideEffects=None,${BASE},name=v.example.com`),
    ).toThrow(/failurePolicy "never" is not one of Fail, Ignore/);
    expect(() =>
      webhook(`path=/v,mutating=True,failurePolicy=fail,sideEffects=None,${BASE},name=v.example.com`),
    ).toThrow(/argument mutating: "True" is not true or false/);
    expect(() => webhook(`mutating=false,failurePolicy=fail,sideEffects=None,${BASE},name=v.example.com`)).toThrow(
      /exactly one of path/,
    );
    expect(() =>
      webhook(`path=v,mutating=false,failurePolicy=fail,sideEffects=None,${BASE},name=v.example.com`),
    ).toThrow(/path "v" must start with "\/"/);
    expect(() => validating('v.example')).toThrow(/at least three segments/);
    expect(() => validating('V.example.com')).toThrow(/lower-case domain/);
    expect(() =>
      webhook(
        `path=/v,mutating=false,failurePolicy=fail,sideEffects=None,${BASE.replace('verbs=create;update', 'verbs=get')},name=v.example.com`,
      ),
    ).toThrow(/verb "get" is not one of create, update, delete, connect/);
    expect(() =>
      webhook(
        `path=/v,mutating=false,failurePolicy=fail,sideEffects=None,${BASE.replace('versions=v1alpha1', 'versions=')},name=v.example.com`,
      ),
    ).toThrow(/argument versions is empty/);
    for (const [from, to, message] of [
      ['verbs=create;update', 'verbs=*;create', /verbs: "\*" already matches everything/],
      ['groups=cache.example.com', 'groups=*;apps', /groups: "\*" already matches everything; give it alone/],
      ['resources=redisclusters', 'resources=*/*;pods', /resources: "\*\/\*" already matches everything/],
      ['versions=v1alpha1', 'versions=v1;*', /versions: "\*" already matches everything/],
      [
        'resources=redisclusters',
        'resources=*;pods',
        /resources: "\*" already matches every resource; only subresources/,
      ],
      ['versions=v1alpha1', 'versions={v1,""}', /versions: a version must not be empty/],
    ] as const) {
      expect(
        () =>
          webhook(
            `path=/v,mutating=false,failurePolicy=fail,sideEffects=None,${BASE.replace(from, to)},name=v.example.com`,
          ),
        to,
      ).toThrow(message);
    }
    expect(() => validating('v.example.com', ',webhookVersions=v1beta1')).toThrow(
      /webhookVersions "v1beta1" is not supported/,
    );
    expect(() =>
      webhook(
        `url="https://h.example.com/v",servicePort=443,mutating=false,failurePolicy=fail,sideEffects=None,${BASE},name=v.example.com`,
      ),
    ).toThrow(/apply only with path/);
    expect(() => validating('v.example.com')).not.toThrow();
    expect(validating('v.example.com').resources).toEqual(['redisclusters']);
    expect(() =>
      webhook(
        `path=/v,mutating=false,failurePolicy=fail,sideEffects=None,${BASE.replace('resources=redisclusters', 'resources=*;pods/status')},name=v.example.com`,
      ),
    ).not.toThrow();
    expect(() => validating('v.example.com', ',bogus=1')).toThrow(MarkerSyntaxError);
  });

  it('reads webhookconfiguration markers', () => {
    expect(
      parseWebhookConfigurationMarker('+kubebuilder:webhookconfiguration:mutating=true,name=my-hooks', at),
    ).toEqual({ mutating: true, name: 'my-hooks', location: at });
    expect(parseWebhookConfigurationMarker('+kubebuilder:webhookconfiguration:mutating=false', at)).toEqual({
      mutating: false,
      location: at,
    });
    expect(() => parseWebhookConfigurationMarker('+kubebuilder:webhookconfiguration:name=x', at)).toThrow(
      /missing argument mutating/,
    );
  });

  it('finds both kinds of marker in line and block comments, not in code', () => {
    const text = [
      `// +kubebuilder:webhook:path=/m,mutating=true,failurePolicy=fail,sideEffects=None,${BASE},name=m.example.com`,
      '/**',
      ` * +kubebuilder:webhook:path=/v,mutating=false,failurePolicy=fail,sideEffects=None,${BASE},name=v.example.com`,
      ' * +kubebuilder:webhookconfiguration:mutating=false,name=checks',
      ' */',
      `const s = "+kubebuilder:webhook:path=/x";`,
    ].join('\n');
    const { webhooks, configurations } = parseWebhookMarkers(
      commentMarkersInText(text, 'f.ts', [WEBHOOK_SCAN_PREFIX]).get(WEBHOOK_SCAN_PREFIX)!,
    );
    expect(webhooks.map((w) => [w.name, w.location.line])).toEqual([
      ['m.example.com', 1],
      ['v.example.com', 3],
    ]);
    expect(configurations.map((c) => [c.name, c.location.line])).toEqual([['checks', 4]]);
  });
  it('reports every bad webhook marker of a run, not only the first', () => {
    const text = [
      '// +kubebuilder:webhooks:path=/m,mutating=true',
      '// +kubebuilder:webhookconfiguration:mutating=maybe',
    ].join('\n');
    let error: unknown;
    try {
      parseWebhookMarkers(commentMarkersInText(text, 'f.ts', [WEBHOOK_SCAN_PREFIX]).get(WEBHOOK_SCAN_PREFIX)!);
    } catch (e) {
      error = e;
    }
    const lines = String((error as Error).message).split('\n');
    expect(lines[0]).toBe('2 problems in the webhook markers:');
    expect(lines[1]).toMatch(
      /^  \+kubebuilder:webhooks: kop does not know this marker; did you mean \+kubebuilder:webhook:\.\.\.\?.*\(f\.ts:1\)$/,
    );
    expect(lines[2]).toMatch(
      /^  \+kubebuilder:webhookconfiguration: argument mutating: "maybe" is not true or false.*\(f\.ts:2\)$/,
    );
  });
  it('refuses misspelt webhook markers instead of skipping them', () => {
    const text = `// +kubebuilder:webhooks:path=/m,mutating=true\n`;
    expect(() =>
      parseWebhookMarkers(commentMarkersInText(text, 'f.ts', [WEBHOOK_SCAN_PREFIX]).get(WEBHOOK_SCAN_PREFIX)!),
    ).toThrow(
      /^\+kubebuilder:webhooks: kop does not know this marker; did you mean \+kubebuilder:webhook:\.\.\.\? kop never ignores a marker silently \(f\.ts:1\)$/,
    );
  });
});

describe('buildWebhookConfigurations', () => {
  it('writes nothing without markers', () => {
    expect(buildWebhookConfigurations([])).toEqual([]);
  });

  it('puts the mutating configuration first and sorts webhooks by name', () => {
    const objects = buildWebhookConfigurations([
      validating('b.example.com'),
      mutating('z.example.com', ',reinvocationPolicy=Never'),
      validating('a.example.com'),
      mutating('m.example.com'),
    ]);
    expect(objects.map((o) => [o.kind, o.metadata.name, o.webhooks.map((w) => w.name)])).toEqual([
      ['MutatingWebhookConfiguration', 'mutating-webhook-configuration', ['m.example.com', 'z.example.com']],
      ['ValidatingWebhookConfiguration', 'validating-webhook-configuration', ['a.example.com', 'b.example.com']],
    ]);
    expect(buildWebhookConfigurations([validating('a.example.com')]).map((o) => o.kind)).toEqual([
      'ValidatingWebhookConfiguration',
    ]);
  });

  it('emits the webhook the way controller-gen does', () => {
    const text = formatWebhookConfigurations(buildWebhookConfigurations([validating('v.example.com')]));
    expect(text).toBe(
      [
        '# Code generated by kop. DO NOT EDIT.',
        '---',
        'apiVersion: admissionregistration.k8s.io/v1',
        'kind: ValidatingWebhookConfiguration',
        'metadata:',
        '  name: validating-webhook-configuration',
        'webhooks:',
        '- admissionReviewVersions:',
        '  - v1',
        '  clientConfig:',
        '    service:',
        '      name: webhook-service',
        '      namespace: system',
        '      path: /validate',
        '  failurePolicy: Fail',
        '  name: v.example.com',
        '  rules:',
        '  - apiGroups:',
        '    - cache.example.com',
        '    apiVersions:',
        '    - v1alpha1',
        '    operations:',
        '    - CREATE',
        '    - UPDATE',
        '    resources:',
        '    - redisclusters',
        '  sideEffects: None',
        '',
      ].join('\n'),
    );
  });

  it('names configurations from webhookconfiguration markers and refuses duplicates', () => {
    const named = parseWebhookConfigurationMarker(
      '+kubebuilder:webhookconfiguration:mutating=true,name=my-mutating',
      at,
    );
    expect(
      buildWebhookConfigurations([mutating('m.example.com'), validating('v.example.com')], [named]).map(
        (o) => o.metadata.name,
      ),
    ).toEqual(['my-mutating', 'validating-webhook-configuration']);
    expect(() =>
      buildWebhookConfigurations([mutating('m.example.com')], [named, { ...named, location: { ...at, line: 9 } }]),
    ).toThrow(/a second mutating configuration \(the first is at src\/webhooks\/rediscluster\.webhook\.ts:7\).*:9\)$/);
    expect(() =>
      buildWebhookConfigurations([
        validating('v.example.com'),
        { ...validating('v.example.com'), location: { ...at, line: 12 } },
      ]),
    ).toThrow(MarkerPlacementError);
    // The same name in a mutating and a validating configuration is fine: they are different objects.
    expect(buildWebhookConfigurations([validating('x.example.com'), mutating('x.example.com')])).toHaveLength(2);
  });
});
