// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The demo authors.
// SPDX-License-Identifier: Apache-2.0

import { parseArgs } from 'node:util';

/** The manager's command-line flags. */
export interface ManagerFlags {
  /** Where /metrics is served, `host:port` or `:port`; "0" turns metrics off. */
  metricsBindAddress: string;
  /** Where /healthz and /readyz are served; "0" turns the probes off. */
  healthProbeBindAddress: string;
  /** Take a Lease before reconciling, so only one replica acts at a time. */
  leaderElect: boolean;
  /** Path of the kubeconfig; empty means $KUBECONFIG, then in-cluster, then ~/.kube/config. */
  kubeconfig: string;
  /** Client-side limit of requests per second to the apiserver; 0 (the default) sets none and leaves fairness to the apiserver. */
  kubeApiQps: number;
  /** Requests allowed at once above kubeApiQps; 0 means twice kubeApiQps. */
  kubeApiBurst: number;
  /** Port of the webhook server (HTTPS, every interface). */
  webhookPort: number;
  /** Folder of the webhook server's certificate and key; empty means kop/runtime's default, /tmp/k8s-webhook-server/serving-certs. */
  webhookCertPath: string;
  /** File name of the webhook server's certificate in webhookCertPath. */
  webhookCertName: string;
  /** File name of the webhook server's private key in webhookCertPath. */
  webhookCertKey: string;
  /** Print usage and exit. */
  help: boolean;
}

/** A `host:port` listen address; host "" means every interface. */
export interface BindAddress {
  host: string;
  port: number;
}

export const USAGE = `Usage: demo [flags]

Flags:
  --metrics-bind-address <addr>       address of the metrics endpoint, "0" to disable (default ":8080")
  --health-probe-bind-address <addr>  address of /healthz and /readyz, "0" to disable (default ":8081")
  --leader-elect                      elect a leader so only one replica reconciles (default false)
  --kubeconfig <path>                 kubeconfig to use (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  --kube-api-qps <n>                  client-side limit of requests per second to the apiserver, 0 for none (default 0)
  --kube-api-burst <n>                requests allowed at once above --kube-api-qps (default twice --kube-api-qps)
  --webhook-port <n>                  port of the webhook server, when the operator has webhooks (default 9443)
  --webhook-cert-path <dir>           folder of the webhook server's certificate (default /tmp/k8s-webhook-server/serving-certs)
  --webhook-cert-name <file>          certificate file in --webhook-cert-path (default "tls.crt")
  --webhook-cert-key <file>           private key file in --webhook-cert-path (default "tls.key")
  -h, --help                          print this help
`;

/** Parses the manager's flags; unknown flags and missing values throw with a clear message. */
export function parseManagerFlags(argv: readonly string[]): ManagerFlags {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      'metrics-bind-address': { type: 'string', default: ':8080' },
      'health-probe-bind-address': { type: 'string', default: ':8081' },
      'leader-elect': { type: 'boolean', default: false },
      kubeconfig: { type: 'string', default: '' },
      'kube-api-qps': { type: 'string', default: '0' },
      'kube-api-burst': { type: 'string', default: '0' },
      'webhook-port': { type: 'string', default: '9443' },
      'webhook-cert-path': { type: 'string', default: '' },
      'webhook-cert-name': { type: 'string', default: 'tls.crt' },
      'webhook-cert-key': { type: 'string', default: 'tls.key' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const flags: ManagerFlags = {
    metricsBindAddress: values['metrics-bind-address'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    leaderElect: values['leader-elect'],
    kubeconfig: values.kubeconfig,
    kubeApiQps: parseNonNegative('--kube-api-qps', values['kube-api-qps']),
    kubeApiBurst: parseNonNegative('--kube-api-burst', values['kube-api-burst']),
    webhookPort: parsePort('--webhook-port', values['webhook-port']),
    webhookCertPath: values['webhook-cert-path'],
    webhookCertName: values['webhook-cert-name'],
    webhookCertKey: values['webhook-cert-key'],
    help: values.help,
  };
  parseBindAddress(flags.metricsBindAddress);
  parseBindAddress(flags.healthProbeBindAddress);
  return flags;
}

function parseNonNegative(flag: string, value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < 0) {
    throw new Error(`invalid ${flag} ${JSON.stringify(value)}: use a number of 0 or more`);
  }
  return number;
}

function parsePort(flag: string, value: string): number {
  const port = Number(value);
  if (!/^\d{1,5}$/.test(value) || port < 1 || port > 65535) {
    throw new Error(`invalid ${flag} ${JSON.stringify(value)}: use a port from 1 to 65535`);
  }
  return port;
}

/** Parses `host:port`, `:port` or `[ipv6]:port`; "0" (disabled) gives undefined. */
export function parseBindAddress(address: string): BindAddress | undefined {
  if (address === '0') return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]*):(\d{1,5})$/.exec(address);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) {
    throw new Error(`invalid bind address ${JSON.stringify(address)}: use host:port, :port or "0" to disable`);
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}
