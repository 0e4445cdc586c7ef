import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import {
  checkDomain,
  checkGroup,
  checkKind,
  checkProjectName,
  checkVersion,
  pluralOf,
  requireValid,
  singularOf,
  type NameCheck,
} from '../../src/project/resource.js';

const table: { check: NameCheck; name: string; valid: string[]; invalid: string[]; explains: RegExp }[] = [
  {
    check: checkProjectName,
    name: 'project name (DNS-1123 label)',
    valid: ['demo', 'memcached-operator', 'a', '1st', 'a'.repeat(63)],
    invalid: ['Bad_Name', '../x', 'Demo', '-x', 'x-', 'a.b', '', 'a'.repeat(64), 'a b'],
    explains: /DNS-1123 label .*lower-case letters, digits and '-'/,
  },
  {
    check: checkDomain,
    name: 'domain (DNS-1123 subdomain)',
    valid: ['example.com', 'my.domain', 'a', 'x-1.y-2.io'],
    invalid: [
      'Example.com',
      'example..com',
      '.example.com',
      'example.com.',
      'ex_ample.com',
      '',
      `${'a'.repeat(64)}.com`,
      'a/b',
    ],
    explains: /DNS-1123 subdomain/,
  },
  {
    check: checkGroup,
    name: 'group',
    valid: ['cache', 'batch.apps', 'web-app'],
    invalid: ['Cache', 'ca_che', '', 'a..b'],
    explains: /DNS-1123 subdomain/,
  },
  {
    check: checkVersion,
    name: 'version',
    valid: ['v1', 'v2', 'v1alpha1', 'v2beta3', 'v10beta12'],
    invalid: ['1', 'v0', 'V1', 'v1alpha', 'v1alpha0', 'v1gamma1', 'v1-alpha1', 'v01', ''],
    explains: /v1", "v1alpha1", "v2beta3/,
  },
  {
    check: checkKind,
    name: 'kind',
    valid: ['Memcached', 'RedisCluster', 'A', 'V1Thing'],
    invalid: ['memcached', 'Redis_Cluster', 'Redis-Cluster', '1Thing', '', 'A'.repeat(64)],
    explains: /UpperCamelCase/,
  },
];

describe('name validation', () => {
  for (const { check, name, valid, invalid, explains } of table) {
    describe(name, () => {
      for (const given of valid) it(`accepts ${JSON.stringify(given)}`, () => expect(check(given)).toBe(true));
      for (const given of invalid) {
        it(`rejects ${JSON.stringify(given)} and says what a valid one is`, () => {
          const message = check(given);
          expect(message).not.toBe(true);
          expect(message).toMatch(explains);
          expect(message).toContain(JSON.stringify(given));
        });
      }
    });
  }

  it('requireValid throws a UsageError that names the flag', () => {
    expect(requireValid(checkProjectName, 'ok', '--project-name')).toBe('ok');
    expect(() => requireValid(checkProjectName, 'Bad_Name', '--project-name')).toThrow(UsageError);
    expect(() => requireValid(checkProjectName, 'Bad_Name', '--project-name')).toThrow(
      /^--project-name: invalid project name "Bad_Name"/,
    );
  });
});

describe('pluralOf / singularOf', () => {
  const cases = [
    { given: 'Memcached', want: 'memcacheds' },
    { given: 'Policy', want: 'policies' },
    { given: 'Ingress', want: 'ingresses' },
    { given: 'Proxy', want: 'proxies' },
    { given: 'RedisCluster', want: 'redisclusters' },
    { given: 'Endpoints', want: 'endpoints' },
  ];
  for (const { given, want } of cases) it(`${given} -> ${want}`, () => expect(pluralOf(given)).toBe(want));
  it('singular is the lower-case kind', () => expect(singularOf('RedisCluster')).toBe('rediscluster'));
});
