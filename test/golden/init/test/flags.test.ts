// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { parseBindAddress, parseManagerFlags } from '../src/flags.js';

describe('parseManagerFlags', () => {
  const cases = [
    {
      name: 'defaults',
      given: [],
      want: { metricsBindAddress: ':8080', healthProbeBindAddress: ':8081', leaderElect: false, kubeconfig: '', kubeApiQps: 0, kubeApiBurst: 0, webhookPort: 9443, webhookCertPath: '', webhookCertName: 'tls.crt', webhookCertKey: 'tls.key', help: false },
    },
    {
      name: 'every flag',
      given: ['--metrics-bind-address', '0', '--health-probe-bind-address=127.0.0.1:9440', '--leader-elect', '--kubeconfig', '/tmp/kc', '--kube-api-qps', '20', '--kube-api-burst=30', '--webhook-port', '10250', '--webhook-cert-path', '/certs', '--webhook-cert-name=cert.pem', '--webhook-cert-key', 'key.pem'],
      want: { metricsBindAddress: '0', healthProbeBindAddress: '127.0.0.1:9440', leaderElect: true, kubeconfig: '/tmp/kc', kubeApiQps: 20, kubeApiBurst: 30, webhookPort: 10250, webhookCertPath: '/certs', webhookCertName: 'cert.pem', webhookCertKey: 'key.pem', help: false },
    },
  ];
  for (const { name, given, want } of cases) {
    it(name, () => expect(parseManagerFlags(given)).toEqual(want));
  }

  it('rejects unknown flags and bad addresses', () => {
    expect(() => parseManagerFlags(['--leader-elec'])).toThrow(/leader-elec/);
    expect(() => parseManagerFlags(['--metrics-bind-address', 'nonsense'])).toThrow(/invalid bind address/);
    expect(() => parseManagerFlags(['--kube-api-qps', 'fast'])).toThrow(/invalid --kube-api-qps/);
    expect(() => parseManagerFlags(['--kube-api-burst=-1'])).toThrow(/invalid --kube-api-burst/);
    expect(() => parseManagerFlags(['--webhook-port', '70000'])).toThrow(/invalid --webhook-port/);
  });
});

describe('parseBindAddress', () => {
  const cases = [
    { given: ':8080', want: { host: '', port: 8080 } },
    { given: '127.0.0.1:9440', want: { host: '127.0.0.1', port: 9440 } },
    { given: '[::1]:8443', want: { host: '::1', port: 8443 } },
    { given: '0', want: undefined },
  ];
  for (const { given, want } of cases) {
    it(given, () => expect(parseBindAddress(given)).toEqual(want));
  }
});
