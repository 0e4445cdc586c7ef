// Scaffolded by kop. This file is yours to edit; kop does not overwrite it.
// Copyright 2026 The cronjob authors.
// SPDX-License-Identifier: Apache-2.0

import { parseArgs } from 'node:util';

/** The manager's command-line flags. */
export interface ManagerFlags {
  /** Where /metrics is served, `host:port` or `:port`; "0" turns metrics off. */
  metricsBindAddress: string;
  /** HTTPS, and only users the apiserver authorises (TokenReview + SubjectAccessReview) may read; false: plain HTTP. */
  metricsSecure: boolean;
  /** Folder of the metrics server's certificate and key; empty means a self-signed certificate made at start. */
  metricsCertPath: string;
  /** File name of the metrics server's certificate in metricsCertPath. */
  metricsCertName: string;
  /** File name of the metrics server's private key in metricsCertPath. */
  metricsCertKey: string;
  /** Where /healthz and /readyz are served; "0" turns the probes off. */
  healthProbeBindAddress: string;
  /** Take a Lease before reconciling, so only one replica acts at a time. */
  leaderElect: boolean;
  /** Path of the kubeconfig; empty means $KUBECONFIG, then in-cluster, then ~/.kube/config. */
  kubeconfig: string;
  /** How long a shutdown waits for reconciles in flight, in milliseconds; keep it below the pod's terminationGracePeriodSeconds. */
  gracefulShutdownTimeoutMs: number;
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

export const USAGE = `Usage: cronjob [flags]

Flags:
  --metrics-bind-address <addr>       address of the metrics endpoint, "0" to disable (default ":8443")
  --metrics-secure[=true|false]       serve metrics over HTTPS to users the apiserver authorises; false for plain HTTP (default true)
  --metrics-cert-path <dir>           folder of the metrics server's certificate (default: a self-signed one made at start)
  --metrics-cert-name <file>          certificate file in --metrics-cert-path (default "tls.crt")
  --metrics-cert-key <file>           private key file in --metrics-cert-path (default "tls.key")
  --health-probe-bind-address <addr>  address of /healthz and /readyz, "0" to disable (default ":8081")
  --leader-elect[=true|false]         elect a leader so only one replica reconciles (default false)
  --kubeconfig <path>                 kubeconfig to use (default: $KUBECONFIG, in-cluster, ~/.kube/config)
  --graceful-shutdown-timeout <d>     how long a shutdown waits for reconciles in flight, e.g. 30s, 1m30s (default 30s);
                                      keep it below the pod's terminationGracePeriodSeconds (config/manager/manager.yaml)
  --kube-api-qps <n>                  client-side limit of requests per second to the apiserver, 0 for none (default 0)
  --kube-api-burst <n>                requests allowed at once above --kube-api-qps (default twice --kube-api-qps)
  --webhook-port <n>                  port of the webhook server, when the operator has webhooks (default 9443)
  --webhook-cert-path <dir>           folder of the webhook server's certificate (default /tmp/k8s-webhook-server/serving-certs)
  --webhook-cert-name <file>          certificate file in --webhook-cert-path (default "tls.crt")
  --webhook-cert-key <file>           private key file in --webhook-cert-path (default "tls.key")
  -h, --help                          print this help
`;

/** Boolean flags; like Go's flag package, each also takes `--name=true` and `--name=false`. */
const BOOLEAN_FLAGS = ['metrics-secure', 'leader-elect'] as const;

/** Parses the manager's flags; unknown flags and missing values throw with a clear message. */
export function parseManagerFlags(argv: readonly string[]): ManagerFlags {
  const { args, explicit } = takeBooleanValues(argv);
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      'metrics-bind-address': { type: 'string', default: ':8443' },
      'metrics-secure': { type: 'boolean', default: true },
      'metrics-cert-path': { type: 'string', default: '' },
      'metrics-cert-name': { type: 'string', default: 'tls.crt' },
      'metrics-cert-key': { type: 'string', default: 'tls.key' },
      'health-probe-bind-address': { type: 'string', default: ':8081' },
      'leader-elect': { type: 'boolean', default: false },
      kubeconfig: { type: 'string', default: '' },
      'graceful-shutdown-timeout': { type: 'string', default: '30s' },
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
    metricsSecure: explicit.get('metrics-secure') ?? values['metrics-secure'],
    metricsCertPath: values['metrics-cert-path'],
    metricsCertName: values['metrics-cert-name'],
    metricsCertKey: values['metrics-cert-key'],
    healthProbeBindAddress: values['health-probe-bind-address'],
    leaderElect: explicit.get('leader-elect') ?? values['leader-elect'],
    kubeconfig: values.kubeconfig,
    gracefulShutdownTimeoutMs: parseDuration('--graceful-shutdown-timeout', values['graceful-shutdown-timeout']),
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

/**
 * Takes `--name=true` / `--name=false` of the boolean flags out of `argv` (node:util's parseArgs
 * refuses a value on a boolean flag); the last one given wins, as with Go's flag package.
 */
function takeBooleanValues(argv: readonly string[]): { args: string[]; explicit: Map<string, boolean> } {
  const args: string[] = [];
  const explicit = new Map<string, boolean>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      args.push(...argv.slice(i));
      break;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    const name = match?.[1] as (typeof BOOLEAN_FLAGS)[number] | undefined;
    if (!match || !name || !BOOLEAN_FLAGS.includes(name)) {
      args.push(arg);
      continue;
    }
    const value = match[2];
    if (value === undefined || value === 'true') explicit.set(name, true);
    else if (value === 'false') explicit.set(name, false);
    else throw new Error(`invalid --${name}=${value}: use --${name}, --${name}=true or --${name}=false`);
  }
  return { args, explicit };
}

/** A Go duration as controller-runtime's flags take it (`30s`, `1m30s`, `500ms`, `0`), in milliseconds. */
function parseDuration(flag: string, value: string): number {
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
  if (value === '0') return 0;
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(value)) {
    throw new Error(`invalid ${flag} ${JSON.stringify(value)}: use a duration such as 30s, 1m30s or 500ms`);
  }
  let total = 0;
  for (const match of value.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) total += Number(match[1]) * units[match[2]];
  return Math.round(total);
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
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}
