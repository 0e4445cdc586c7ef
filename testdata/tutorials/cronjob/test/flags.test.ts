// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { describe, expect, it } from 'vitest';
import { parseBindAddress, parseManagerFlags } from '../src/flags.js';

describe('parseManagerFlags', () => {
  // Tables laid out by hand, a line per group of flags: Prettier leaves them as they are.
  // prettier-ignore
  const defaults = {
    metricsBindAddress: ':8443', metricsSecure: true, metricsCertPath: '', metricsCertName: 'tls.crt', metricsCertKey: 'tls.key',
    healthProbeBindAddress: ':8081', leaderElect: false, kubeconfig: '', gracefulShutdownTimeoutMs: 30_000,
    kubeApiQps: 0, kubeApiBurst: 0, webhookPort: 9443, webhookCertPath: '', webhookCertName: 'tls.crt', webhookCertKey: 'tls.key', help: false,
  };
  // prettier-ignore
  const cases = [
    {
      name: 'defaults',
      given: [],
      want: { ...defaults },
    },
    {
      name: 'every flag',
      given: [
        '--metrics-bind-address', '0', '--metrics-secure=false', '--metrics-cert-path', '/metrics-certs', '--metrics-cert-name=m.crt', '--metrics-cert-key', 'm.key',
        '--health-probe-bind-address=127.0.0.1:9440', '--leader-elect', '--kubeconfig', '/tmp/kc', '--graceful-shutdown-timeout', '1m30s',
        '--kube-api-qps', '20', '--kube-api-burst=30', '--webhook-port', '10250', '--webhook-cert-path', '/certs', '--webhook-cert-name=cert.pem', '--webhook-cert-key', 'key.pem',
      ],
      want: {
        metricsBindAddress: '0', metricsSecure: false, metricsCertPath: '/metrics-certs', metricsCertName: 'm.crt', metricsCertKey: 'm.key',
        healthProbeBindAddress: '127.0.0.1:9440', leaderElect: true, kubeconfig: '/tmp/kc', gracefulShutdownTimeoutMs: 90_000,
        kubeApiQps: 20, kubeApiBurst: 30, webhookPort: 10250, webhookCertPath: '/certs', webhookCertName: 'cert.pem', webhookCertKey: 'key.pem', help: false,
      },
    },
    { name: '--metrics-secure=true', given: ['--metrics-secure=true'], want: { ...defaults, metricsSecure: true } },
    { name: 'the last boolean value wins, as with Go flags', given: ['--metrics-secure=false', '--metrics-secure', '--leader-elect=true', '--leader-elect=false'], want: { ...defaults } },
    { name: 'durations', given: ['--graceful-shutdown-timeout=500ms'], want: { ...defaults, gracefulShutdownTimeoutMs: 500 } },
    { name: 'no graceful wait', given: ['--graceful-shutdown-timeout', '0'], want: { ...defaults, gracefulShutdownTimeoutMs: 0 } },
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
    expect(() => parseManagerFlags(['--metrics-secure=no'])).toThrow(
      /invalid --metrics-secure=no: use --metrics-secure, --metrics-secure=true or --metrics-secure=false/,
    );
    expect(() => parseManagerFlags(['--graceful-shutdown-timeout', '30'])).toThrow(
      /invalid --graceful-shutdown-timeout "30": use a duration/,
    );
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
