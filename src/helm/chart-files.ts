import { stringify } from 'yaml';
import type { ChartDefaults } from './chart-templates.js';

/** A YAML value as lines indented by `indent` spaces under a key (`key:` then the lines). */
function block(value: unknown, indent: number): string {
  const text = stringify(value, { lineWidth: 0 }).replace(/\n$/, '');
  return text
    .split('\n')
    .map((line) => ' '.repeat(indent) + line)
    .join('\n');
}

function inline(value: unknown): string {
  return stringify(value, { lineWidth: 0 }).trim();
}

/** Chart.yaml: the chart is named after the project; version and appVersion start at the project's version. */
export function chartYaml(name: string, version: string): string {
  return [
    'apiVersion: v2',
    `name: ${inline(name)}`,
    `description: ${inline(`A Helm chart to install ${name}, a Kubernetes operator`)}`,
    'type: application',
    `version: ${inline(version)}`,
    `appVersion: ${inline(version)}`,
    'keywords:',
    '  - kubernetes',
    '  - operator',
    'annotations:',
    '  kop.dev/generated-by: kop',
    '',
  ].join('\n');
}

/** values.yaml as kop writes it, with a comment on each setting. */
export function valuesYaml(defaults: ChartDefaults): string {
  const lines = [
    '# Settings of the chart. `kop edit --plugins helm` regenerates the templates and merges new',
    '# settings into this file: a value you changed stays; a default you left alone follows kop.',
    '',
    "# Object names start with <release>-<chart> (once, when the release name holds the chart's);",
    "# nameOverride replaces the chart's part, fullnameOverride the whole.",
    '# nameOverride: ""',
    '# fullnameOverride: ""',
    '',
    '# The manager Deployment.',
    'manager:',
    '  replicas: ' + inline(defaults.replicas),
    '  image:',
    `    repository: ${inline(defaults.image.repository)}`,
    `    tag: ${inline(defaults.image.tag)}`,
    '    # A digest (sha256:...) pins the image; with one, the tag is only informative.',
    '    digest: ""',
    '    pullPolicy: IfNotPresent',
    '  # imagePullSecrets: [{ name: my-registry }]',
    '  imagePullSecrets: []',
    '  # Only one replica reconciles at a time, holding a Lease; keep on with more than one replica.',
    `  leaderElection: ${inline(defaults.leaderElection)}`,
    '  # More arguments for the manager (see `npm start -- --help`).',
    '  extraArgs: []',
    '  # More environment variables for the manager container. Traces are exported once',
    '  # OTEL_EXPORTER_OTLP_ENDPOINT names an OpenTelemetry collector (OTLP/HTTP), for example:',
    '  # env:',
    '  #   - name: OTEL_EXPORTER_OTLP_ENDPOINT',
    '  #     value: http://otel-collector.observability.svc:4318',
    '  env: []',
    '  resources:',
    block(defaults.resources, 4),
    '  # The container and pod security contexts meet the restricted Pod Security Standard.',
    '  securityContext:',
    block(defaults.securityContext, 4),
    '  podSecurityContext:',
    block(defaults.podSecurityContext, 4),
    ...(defaults.terminationGracePeriodSeconds !== undefined
      ? [
          "  # Keep longer than the manager's --graceful-shutdown-timeout.",
          `  terminationGracePeriodSeconds: ${inline(defaults.terminationGracePeriodSeconds)}`,
        ]
      : []),
    '  podAnnotations: {}',
    '  nodeSelector: {}',
    '  tolerations: []',
    '  affinity: {}',
    '',
    "# The manager's RBAC: its Role/ClusterRole and bindings, leader election, metrics authorisation.",
    'rbac:',
    '  enable: true',
    '  # Admin, editor and viewer ClusterRoles for each kind, for people (the manager does not use them).',
    '  helpers:',
    `    enable: ${inline(defaults.rbacHelpers)}`,
    '',
    '# The CustomResourceDefinitions.',
    'crd:',
    `  enable: ${inline(defaults.crds)}`,
    '  # Keep the CRDs (and so every object of their kinds) when the release is uninstalled.',
    '  keep: true',
    '',
    '# The metrics endpoint and its Service.',
    'metrics:',
    `  enable: ${inline(defaults.metrics.enable)}`,
    `  port: ${inline(defaults.metrics.port)}`,
    "  # HTTPS, each scrape's token checked with the apiserver (TokenReview + SubjectAccessReview);",
    '  # false serves plain HTTP to anyone who reaches the port.',
    `  secure: ${inline(defaults.metrics.secure)}`,
    '',
    '# A ServiceMonitor for the Prometheus Operator (its CRDs must be installed); needs metrics.',
    'prometheus:',
    `  enable: ${inline(defaults.prometheus)}`,
    '',
    '# NetworkPolicies: metrics only from namespaces labelled `metrics: enabled`, webhooks from anywhere.',
    'networkPolicy:',
    `  enable: ${inline(defaults.networkPolicy)}`,
    '',
    "# cert-manager's Issuer and Certificates: the webhook serving certificate and, with metrics, the",
    '# metrics certificate (instead of a self-signed one). cert-manager must be installed.',
    'certManager:',
    `  enable: ${inline(defaults.certManager)}`,
    '',
    ...(defaults.webhook.available
      ? [
          '# The admission and conversion webhooks. They need a serving certificate in the Secret',
          '# webhook-server-cert: from cert-manager (certManager.enable) or made by you.',
          'webhook:',
          `  enable: ${inline(defaults.webhook.enable)}`,
        ]
      : ['# The project has no webhooks (`kop create webhook` adds them).', 'webhook:', '  enable: false']),
    '',
  ];
  return lines.join('\n');
}

/** templates/_helpers.tpl: the names and labels every template uses. */
export function helpersTpl(name: string): string {
  return `{{/* Code generated by kop. DO NOT EDIT. */}}

{{/* The chart's name, or nameOverride. */}}
{{- define "${name}.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The release's name joined with the chart's (once), or fullnameOverride: what every object name starts with. */}}
{{- define "${name}.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* An object's name: the full name and the suffix config/ gives it, cut so the whole fits in 63 characters. */}}
{{- define "${name}.resourceName" -}}
{{- $suffix := .suffix }}
{{- $room := int (sub 62 (len $suffix)) }}
{{- $prefix := include "${name}.fullname" .context | trunc $room | trimSuffix "-" }}
{{- printf "%s-%s" $prefix $suffix | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The labels Helm's conventions put on every object. */}}
{{- define "${name}.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
`;
}

/** .helmignore: what `helm package` leaves out. */
export const HELMIGNORE = [
  '# Code generated by kop. DO NOT EDIT.',
  '.DS_Store',
  '.git/',
  '*.swp',
  '*.bak',
  '*.tmp',
  '*.orig',
  '*~',
  '.kop-values-base.yaml',
  '',
].join('\n');
