import { describe, expect, it } from 'vitest';
import { installOrder } from '../../src/deploy/apply-manifests.js';
import {
  overrideFor,
  parseImageReference,
  setImages,
  splitImage,
  transformImage,
} from '../../src/deploy/image-reference.js';
import type { ManifestObject } from '../../src/deploy/render-kustomization.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('image references', () => {
  it.each([
    { given: 'controller', want: { name: 'controller', tag: undefined, digest: undefined } },
    { given: 'controller:latest', want: { name: 'controller', tag: 'latest', digest: undefined } },
    { given: 'localhost:5000/op', want: { name: 'localhost:5000/op', tag: undefined, digest: undefined } },
    {
      given: 'localhost:5000/team/op:v1.2.3',
      want: { name: 'localhost:5000/team/op', tag: 'v1.2.3', digest: undefined },
    },
    { given: `ghcr.io/o/op:v1@${DIGEST}`, want: { name: 'ghcr.io/o/op', tag: 'v1', digest: DIGEST } },
  ])('splits $given', ({ given, want }) => {
    expect(splitImage(given)).toEqual(want);
    expect(parseImageReference(given)).toEqual(want);
  });

  it.each([
    { given: '', want: /is not an image reference/ },
    { given: 'Op:v1', want: /"Op" in "Op:v1" is not a valid repository name part/ },
    { given: 'op:v1 ', want: /is not an image reference/ },
    { given: 'op:-bad', want: /the tag "-bad"/ },
    { given: 'op@sha256:short', want: /the digest "sha256:short"/ },
    { given: 'bad_host.example.com/op', want: /the registry "bad_host.example.com"/ },
  ])('refuses $given', ({ given, want }) => {
    expect(parseImageReference(given)).toMatch(want);
  });

  it.each([
    // kustomize's `images:` semantics: match the name, replace name/tag/digest; a digest drops the tag and a tag the digest.
    {
      image: 'controller:latest',
      override: { name: 'controller', newName: 'r.io/op', newTag: 'v1' },
      want: 'r.io/op:v1',
    },
    { image: 'controller:latest', override: { name: 'controller', newName: 'r.io/op' }, want: 'r.io/op:latest' },
    { image: 'controller:latest', override: { name: 'controller', digest: DIGEST }, want: `controller@${DIGEST}` },
    { image: `controller@${DIGEST}`, override: { name: 'controller', newTag: 'v2' }, want: 'controller:v2' },
    {
      image: 'controller-other:latest',
      override: { name: 'controller', newTag: 'v2' },
      want: 'controller-other:latest',
    },
    { image: 'r.io/controller:latest', override: { name: 'controller', newTag: 'v2' }, want: 'r.io/controller:latest' },
  ])('transforms $image with $override', ({ image, override, want }) => {
    expect(transformImage(image, override)).toBe(want);
  });

  it('sets every matching container, init and ephemeral container of any object, and counts them', () => {
    const objects = [
      {
        kind: 'Deployment',
        spec: {
          template: {
            spec: {
              initContainers: [{ name: 'i', image: 'controller:latest' }],
              containers: [
                { name: 'm', image: 'controller:latest' },
                { name: 's', image: 'busybox' },
              ],
            },
          },
        },
      },
      {
        kind: 'CronJob',
        spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'controller' }] } } } } },
      },
      { kind: 'ConfigMap', data: { image: 'controller:latest' } },
    ];
    const reference = parseImageReference('r.io/op:v1');
    if (typeof reference === 'string') throw new Error(reference);
    expect(setImages(objects, overrideFor('controller', reference))).toBe(3);
    expect(JSON.stringify(objects)).toBe(
      JSON.stringify([
        {
          kind: 'Deployment',
          spec: {
            template: {
              spec: {
                initContainers: [{ name: 'i', image: 'r.io/op:v1' }],
                containers: [
                  { name: 'm', image: 'r.io/op:v1' },
                  { name: 's', image: 'busybox' },
                ],
              },
            },
          },
        },
        {
          kind: 'CronJob',
          spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'r.io/op:v1' }] } } } } },
        },
        { kind: 'ConfigMap', data: { image: 'controller:latest' } },
      ]),
    );
  });
});

describe('setImages counts what it found', () => {
  it('counts a container whose image already is the one asked for: found, not missing', () => {
    const objects = [{ kind: 'Pod', spec: { containers: [{ name: 'm', image: 'controller:latest' }] } }];
    const reference = parseImageReference('controller:latest');
    if (typeof reference === 'string') throw new Error(reference);
    expect(setImages(objects, overrideFor('controller', reference))).toBe(1);
    expect(objects[0]!.spec.containers[0]!.image).toBe('controller:latest');
    expect(setImages(objects, overrideFor('other', reference))).toBe(0);
  });
});

describe('install order', () => {
  it('puts namespaces, CRDs and RBAC before workloads and webhooks last, keeping the order within a kind', () => {
    const object = (kind: string, name: string): ManifestObject => ({ apiVersion: 'v1', kind, metadata: { name } });
    const given = [
      object('ValidatingWebhookConfiguration', 'v'),
      object('Deployment', 'd'),
      object('Certificate', 'c'),
      object('ClusterRole', 'b'),
      object('ClusterRole', 'a'),
      object('CustomResourceDefinition', 'crd'),
      object('Service', 's'),
      object('Namespace', 'ns'),
    ];
    expect(installOrder(given).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/ns',
      'CustomResourceDefinition/crd',
      'ClusterRole/b',
      'ClusterRole/a',
      'Service/s',
      'Certificate/c',
      'Deployment/d',
      'ValidatingWebhookConfiguration/v',
    ]);
  });
});
