import { type ManifestObject, splitImage } from '../deploy/index.js';
import type { ConfigVariants } from './render-variants.js';
import { ANNOTATIONS_SIZE_LIMIT, formatKiB, LARGE_CRD_INSTALL_HINT } from '../schema/index.js';
import { TemplatedYaml } from './templated-yaml.js';

/** One file under the chart's templates/. */
export interface ChartTemplate {
  /** Relative to templates/, e.g. `rbac/manager-role.yaml`. */
  path: string;
  content: string;
}

/** The defaults the chart's values.yaml starts from, read off what `kop deploy` installs. */
export interface ChartDefaults {
  image: { repository: string; tag: string };
  replicas: number;
  leaderElection: boolean;
  resources: unknown;
  podSecurityContext: unknown;
  securityContext: unknown;
  terminationGracePeriodSeconds?: number;
  metrics: { enable: boolean; port: number; secure: boolean };
  webhook: { enable: boolean; available: boolean };
  certManager: boolean;
  prometheus: boolean;
  networkPolicy: boolean;
  rbacHelpers: boolean;
  crds: boolean;
}

const MANAGED_BY = 'app.kubernetes.io/managed-by';
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
const HELPER_ROLE = /-(admin|editor|viewer)-role$/;

/** `.Values.a.b` paths the templates test, by what they switch. */
const V = {
  crd: '.Values.crd.enable',
  rbac: '.Values.rbac.enable',
  helpers: '.Values.rbac.helpers.enable',
  metrics: '.Values.metrics.enable',
  prometheus: '.Values.prometheus.enable',
  networkPolicy: '.Values.networkPolicy.enable',
  certManager: '.Values.certManager.enable',
  webhook: '.Values.webhook.enable',
} as const;

function and(conditions: readonly string[]): string | undefined {
  const unique = [...new Set(conditions)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `and ${unique.map((c) => `(${c})`).join(' ')}`;
}

function groupOf(object: ManifestObject): string {
  return object.apiVersion.includes('/') ? object.apiVersion.split('/')[0]! : '';
}

/**
 * Converts config/default's objects into chart templates: every name and namespace kustomize
 * gave becomes the release's, each optional part is wrapped in the value that switches it, and
 * the manager's Deployment reads image, replicas, resources, security contexts, leader election,
 * metrics and scheduling from values.
 */
export class ChartBuilder {
  private readonly names: Map<string, string>;

  constructor(
    private readonly chartName: string,
    private readonly variants: ConfigVariants,
  ) {
    this.names = new Map();
    for (const object of variants.full) {
      const name = object.metadata.name;
      if (
        object.kind !== 'CustomResourceDefinition' &&
        object.kind !== 'Namespace' &&
        variants.namePrefix &&
        name.startsWith(variants.namePrefix)
      ) {
        this.names.set(name, name.slice(variants.namePrefix.length));
      }
    }
  }

  /** The defaults values.yaml gets, from the base variant (what `kop deploy` installs). */
  defaults(): ChartDefaults {
    const base = this.variants.base;
    const manager = this.managerOf(base);
    const container = manager ? this.containerOf(manager) : undefined;
    const args = (container?.args as string[] | undefined) ?? [];
    const metricsArg = args.find((arg) => arg.startsWith('--metrics-bind-address='))?.split('=')[1];
    const port = metricsArg && metricsArg !== '0' ? Number(/(\d+)$/.exec(metricsArg)?.[1] ?? 8443) : 8443;
    const image = splitImage(typeof container?.image === 'string' ? container.image : 'controller:latest');
    const podSpec =
      (manager?.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template?.spec ?? {};
    const has = (test: (object: ManifestObject) => boolean) => base.some(test);
    const secureFlag = args.find((arg) => arg.startsWith('--metrics-secure'));
    return {
      image: { repository: image.name, tag: image.tag ?? 'latest' },
      replicas: Number((manager?.spec as { replicas?: number } | undefined)?.replicas ?? 1),
      leaderElection: args.includes('--leader-elect') || args.includes('--leader-elect=true'),
      resources: container?.resources ?? {},
      podSecurityContext: podSpec.securityContext ?? {},
      securityContext: container?.securityContext ?? {},
      terminationGracePeriodSeconds:
        typeof podSpec.terminationGracePeriodSeconds === 'number' ? podSpec.terminationGracePeriodSeconds : undefined,
      metrics: {
        enable: metricsArg !== undefined && metricsArg !== '0',
        port,
        secure: secureFlag === undefined || secureFlag === '--metrics-secure' || secureFlag === '--metrics-secure=true',
      },
      webhook: {
        enable: has((o) => o.kind.endsWith('WebhookConfiguration')),
        available: this.variants.full.some((o) => o.kind.endsWith('WebhookConfiguration')),
      },
      certManager: has((o) => groupOf(o) === 'cert-manager.io'),
      prometheus: has((o) => o.kind === 'ServiceMonitor'),
      networkPolicy: has((o) => o.kind === 'NetworkPolicy'),
      rbacHelpers: has((o) => o.kind === 'ClusterRole' && HELPER_ROLE.test(o.metadata.name)),
      crds: true,
    };
  }

  /** Every template file, sorted by path. */
  templates(): ChartTemplate[] {
    const out: ChartTemplate[] = [];
    for (const object of this.variants.full) {
      if (object.kind === 'Namespace') continue; // Helm installs into the release's namespace
      const file = this.templateFor(object);
      if (out.some((existing) => existing.path === file.path))
        throw new Error(`two objects would both be templates/${file.path}`);
      out.push(file);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private templateFor(object: ManifestObject): ChartTemplate {
    const yaml = new TemplatedYaml();
    const suffix = this.names.get(object.metadata.name) ?? object.metadata.name;
    const conditions = this.conditionsFor(object, suffix);
    let body: ManifestObject;
    if (object.kind === 'CustomResourceDefinition') body = this.crd(object, yaml);
    else if (object === this.managerOf(this.variants.full)) body = this.manager(object, yaml);
    else body = this.templateStrings(structuredClone(object), yaml) as ManifestObject;
    this.metadata(body, object, yaml);
    const condition = and(conditions);
    const text = yaml.render(body).replace(/\n$/, '');
    const content = condition ? `{{- if ${condition} }}\n${text}\n{{- end }}\n` : `${text}\n`;
    // The manager's Deployment is manager/manager.yaml, where a chart's reader looks for it.
    const file = object === this.managerOf(this.variants.full) ? 'manager' : suffix;
    return { path: `${this.folderOf(object, suffix)}/${file}.yaml`, content };
  }

  /**
   * templates/NOTES.txt, which helm prints after install and upgrade: where the manager runs and
   * how to read its logs, and what becomes of the CRDs (upgraded with the release, kept on uninstall).
   */
  notes(): string {
    const manager = this.managerOf(this.variants.full);
    const suffix = manager ? (this.names.get(manager.metadata.name) ?? manager.metadata.name) : undefined;
    const container = manager ? String(this.containerOf(manager)?.name ?? 'manager') : 'manager';
    const crds = this.variants.full
      .filter((object) => object.kind === 'CustomResourceDefinition')
      .map((object) => object.metadata.name)
      .sort();
    const lines = [
      '{{ .Chart.Name }} {{ .Chart.AppVersion }} is installed as the release {{ .Release.Name }} in the namespace {{ .Release.Namespace }}.',
    ];
    if (suffix !== undefined) {
      const name = `{{ include "${this.chartName}.resourceName" (dict "suffix" ${JSON.stringify(suffix)} "context" $) }}`;
      lines.push(
        '',
        'The manager, and its log:',
        `  kubectl get deployment -n {{ .Release.Namespace }} ${name}`,
        `  kubectl logs -n {{ .Release.Namespace }} deployment/${name} -c ${container}`,
      );
    }
    if (crds.length > 0) {
      lines.push(
        `{{- if ${V.crd} }}`,
        '',
        'The CRDs are part of the release: `helm upgrade` with a newer chart updates their schemas.',
        ...crds.map((crd) => `  ${crd}`),
        '{{- if .Values.crd.keep }}',
        'They stay in the cluster when the release is uninstalled (crd.keep), with every object of their kinds.',
        '{{- end }}',
        '{{- else }}',
        '',
        `The chart installs no CRDs (crd.enable=false): install them with ${LARGE_CRD_INSTALL_HINT}`,
        `(client-side \`kubectl apply\` refuses a CRD over ${formatKiB(ANNOTATIONS_SIZE_LIMIT)}).`,
        '{{- end }}',
      );
    }
    return `${lines.join('\n')}\n`;
  }

  /** Which values switch an object on; empty for what is always there. */
  private conditionsFor(object: ManifestObject, suffix: string): string[] {
    const byName = [
      ...(suffix.includes('metrics') ? [V.metrics] : []),
      ...(suffix.includes('webhook') || suffix === 'serving-cert' ? [V.webhook] : []),
    ];
    if (object.kind === 'CustomResourceDefinition') return [V.crd];
    if (object.kind === 'ServiceMonitor') return [V.prometheus, V.metrics];
    if (object.kind === 'NetworkPolicy') return [V.networkPolicy, ...byName];
    if (groupOf(object) === 'cert-manager.io') return [V.certManager, ...(object.kind === 'Certificate' ? byName : [])];
    if (object.kind.endsWith('WebhookConfiguration')) return [V.webhook];
    if (object.kind === 'ClusterRole' && HELPER_ROLE.test(suffix)) return [V.rbac, V.helpers];
    if (RBAC_KINDS.has(object.kind)) return [V.rbac, ...byName];
    if (object.kind === 'Service') return byName;
    return [];
  }

  private folderOf(object: ManifestObject, suffix: string): string {
    if (object.kind === 'CustomResourceDefinition') return 'crd';
    if (object.kind === 'ServiceMonitor') return 'prometheus';
    if (object.kind === 'NetworkPolicy') return 'network-policy';
    if (groupOf(object) === 'cert-manager.io') return 'cert-manager';
    if (object.kind.endsWith('WebhookConfiguration') || (object.kind === 'Service' && suffix.includes('webhook')))
      return 'webhook';
    if (RBAC_KINDS.has(object.kind) || object.kind === 'ServiceAccount') return 'rbac';
    if (object.kind === 'Service' && suffix.includes('metrics')) return 'metrics';
    if (object.kind === 'Deployment') return 'manager';
    return 'other';
  }

  /** Labels Helm expects on every object, in place of kustomize's managed-by; the name and namespace templated. */
  private metadata(body: ManifestObject, original: ManifestObject, yaml: TemplatedYaml): void {
    const labels = { ...(original.metadata.labels ?? {}) };
    delete labels[MANAGED_BY];
    const metadata: Record<string, unknown> = { ...body.metadata };
    metadata.name =
      original.kind === 'CustomResourceDefinition'
        ? original.metadata.name
        : this.nameExpression(original.metadata.name, yaml);
    if (original.metadata.namespace !== undefined) metadata.namespace = yaml.scalar('{{ .Release.Namespace }}');
    // cert-manager's CA injection only when the chart installs cert-manager's objects; CRDs may be kept on uninstall.
    const annotations: Record<string, unknown> = {
      ...((metadata.annotations as Record<string, unknown> | undefined) ?? {}),
    };
    const inject = original.metadata.annotations?.['cert-manager.io/inject-ca-from'];
    delete annotations['cert-manager.io/inject-ca-from'];
    const lines: string[] = [];
    if (original.kind === 'CustomResourceDefinition')
      lines.push('{{- if .Values.crd.keep }}', 'helm.sh/resource-policy: keep', '{{- end }}');
    if (inject)
      lines.push(
        `{{- if ${V.certManager} }}`,
        `cert-manager.io/inject-ca-from: ${this.templateString(inject, yaml)}`,
        '{{- end }}',
      );
    if (lines.length > 0) annotations[yaml.block(lines)] = null;
    if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
    metadata.labels = { ...labels, [yaml.block([`{{- include "${this.chartName}.labels" . | nindent %+0% }}`])]: null };
    body.metadata = metadata as ManifestObject['metadata'];
  }

  private nameExpression(name: string, yaml: TemplatedYaml): string {
    const suffix = this.names.get(name);
    return suffix === undefined
      ? name
      : yaml.scalar(
          `{{ include "${this.chartName}.resourceName" (dict "suffix" ${JSON.stringify(suffix)} "context" $) }}`,
        );
  }

  /**
   * Every string that names an object kustomize prefixed, or the namespace, becomes template text
   * (whole, or as a part between `.` and `/`: DNS names, `namespace/name` references).
   */
  private templateStrings(node: unknown, yaml: TemplatedYaml): unknown {
    if (typeof node === 'string') return this.templateString(node, yaml);
    if (Array.isArray(node)) return node.map((item) => this.templateStrings(item, yaml));
    if (node && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node as Record<string, unknown>).map(([key, value]) => [key, this.templateStrings(value, yaml)]),
      );
    }
    return node;
  }

  private templateString(text: string, yaml: TemplatedYaml): string {
    const parts = text.split(/([./])/);
    let changed = false;
    const out = parts.map((part) => {
      if (part === this.variants.namespace) {
        changed = true;
        return '{{ .Release.Namespace }}';
      }
      const suffix = this.names.get(part);
      if (suffix !== undefined) {
        changed = true;
        return `{{ include "${this.chartName}.resourceName" (dict "suffix" ${JSON.stringify(suffix)} "context" $) }}`;
      }
      return part;
    });
    return changed ? yaml.scalar(out.join('')) : text;
  }

  /** A CRD: its schema as controller-gen made it; the conversion webhook's Service and the CA injection templated. */
  private crd(object: ManifestObject, yaml: TemplatedYaml): ManifestObject {
    const body = structuredClone(object);
    const spec = body.spec as Record<string, unknown>;
    if (spec.conversion) spec.conversion = this.templateStrings(spec.conversion, yaml);
    return body;
  }

  private managerOf(objects: readonly ManifestObject[]): ManifestObject | undefined {
    return objects.find(
      (o) =>
        o.kind === 'Deployment' &&
        (o.metadata.labels?.['control-plane'] === 'controller-manager' ||
          o.metadata.name.endsWith('controller-manager')),
    );
  }

  private containerOf(deployment: ManifestObject): Record<string, unknown> | undefined {
    const containers =
      (deployment.spec as { template?: { spec?: { containers?: Array<Record<string, unknown>> } } }).template?.spec
        ?.containers ?? [];
    return containers.find((c) => c.name === 'manager') ?? containers[0];
  }

  /** The manager's Deployment, with what values.yaml controls templated and the optional parts' lines switched. */
  private manager(full: ManifestObject, yaml: TemplatedYaml): ManifestObject {
    const baseManager = this.managerOf(this.variants.base);
    const baseContainer = baseManager ? this.containerOf(baseManager) : undefined;
    const body = this.templateStrings(structuredClone(full), yaml) as ManifestObject;
    const spec = body.spec as Record<string, unknown> & {
      template: { metadata?: Record<string, unknown>; spec: Record<string, unknown> };
    };
    spec.replicas = yaml.scalar('{{ .Values.manager.replicas }}');
    const pod = spec.template.spec;
    const container = this.containerOf(body)!;
    const inBase = (field: string, item: unknown) =>
      ((baseContainer?.[field] as unknown[] | undefined) ?? []).some((b) => JSON.stringify(b) === JSON.stringify(item));
    const baseVolumes = (
      (baseManager?.spec as { template?: { spec?: { volumes?: unknown[] } } } | undefined)?.template?.spec?.volumes ??
      []
    ).map((v) => JSON.stringify(v));

    // Optional lines: what only the full variant has came from a toggle the chart switches with certManager.
    const itemCondition = (field: string, item: unknown, describe: string): string | undefined => {
      const conditions: string[] = [];
      if (/webhook/.test(describe)) conditions.push(V.webhook);
      if (/metrics/.test(describe)) conditions.push(V.metrics);
      if (!inBase(field, item) && !(field === 'volumes' && baseVolumes.includes(JSON.stringify(item))))
        conditions.push(V.certManager);
      return and(conditions);
    };

    const fullContainer = this.containerOf(full)!;
    const args = (fullContainer.args as string[] | undefined) ?? [];
    const argItems: Array<{ value: unknown; condition?: string }> = [];
    for (const arg of args) {
      if (arg.startsWith('--metrics-bind-address=')) {
        argItems.push({
          value: yaml.scalar(
            `--metrics-bind-address={{ if ${V.metrics} }}:{{ .Values.metrics.port }}{{ else }}0{{ end }}`,
          ),
        });
        argItems.push({
          value: '--metrics-secure=false',
          condition: `and (${V.metrics}) (not .Values.metrics.secure)`,
        });
      } else if (arg === '--leader-elect' || arg === '--leader-elect=true') {
        argItems.push({ value: arg, condition: '.Values.manager.leaderElection' });
      } else if (!arg.startsWith('--metrics-secure') && !arg.startsWith('--leader-elect')) {
        argItems.push({ value: this.templateString(arg, yaml), condition: itemCondition('args', arg, arg) });
      }
    }
    if (!args.some((arg) => arg === '--leader-elect' || arg === '--leader-elect=true'))
      argItems.push({ value: '--leader-elect', condition: '.Values.manager.leaderElection' });
    delete container.args;
    const argsBlock = yaml.conditionalList('args', argItems, [
      '{{- range .Values.manager.extraArgs }}',
      '- {{ . }}',
      '{{- end }}',
    ]);

    // The body's lists hold the full variant's items in the same order, their strings templated.
    const listBlock = (field: 'ports' | 'volumeMounts', describe: (item: Record<string, unknown>) => string) => {
      const originals = (fullContainer[field] as Array<Record<string, unknown>> | undefined) ?? [];
      const items = ((container[field] as unknown[] | undefined) ?? []).map((value, index) => ({
        value,
        condition: itemCondition(field, originals[index], describe(originals[index]!)),
      }));
      delete container[field];
      return yaml.conditionalList(field, items);
    };
    const portsBlock = listBlock(
      'ports',
      (p) => `${String(p.name ?? '')} ${p.containerPort === 9443 ? 'webhook' : ''}`,
    );
    const mountsBlock = listBlock('volumeMounts', (m) => `${String(m.name ?? '')} ${String(m.mountPath ?? '')}`);

    container.image = yaml.scalar(
      '"{{ .Values.manager.image.repository }}{{ with .Values.manager.image.tag }}:{{ . }}{{ end }}{{ with .Values.manager.image.digest }}@{{ . }}{{ end }}"',
    );
    container.imagePullPolicy = yaml.scalar('{{ .Values.manager.image.pullPolicy }}');
    delete container.resources;
    delete container.securityContext;
    const env = container.env;
    delete container.env;
    const containerBlock = yaml.block([
      ...(env !== undefined
        ? [
            'env:',
            ...yaml
              .render(env)
              .replace(/\n$/, '')
              .split('\n')
              .map((l) => `  ${l}`),
            '  {{- with .Values.manager.env }}',
            '  {{- toYaml . | nindent %+2% }}',
            '  {{- end }}',
          ]
        : ['{{- with .Values.manager.env }}', 'env:', '  {{- toYaml . | nindent %+2% }}', '{{- end }}']),
      'resources:',
      '  {{- toYaml .Values.manager.resources | nindent %+2% }}',
      'securityContext:',
      '  {{- toYaml .Values.manager.securityContext | nindent %+2% }}',
    ]);
    container[argsBlock] = null;
    container[portsBlock] = null;
    container[mountsBlock] = null;
    container[containerBlock] = null;

    const fullVolumes =
      (full.spec as { template: { spec: { volumes?: Array<Record<string, unknown>> } } }).template.spec.volumes ?? [];
    const volumes = ((pod.volumes as unknown[] | undefined) ?? []).map((value, index) => {
      const original = fullVolumes[index]!;
      const secret = (original.secret as { secretName?: string } | undefined)?.secretName ?? '';
      return { value, condition: itemCondition('volumes', original, `${String(original.name ?? '')} ${secret}`) };
    });
    delete pod.volumes;
    pod[yaml.conditionalList('volumes', volumes)] = null;
    delete pod.securityContext;
    if (pod.terminationGracePeriodSeconds !== undefined)
      pod.terminationGracePeriodSeconds = yaml.scalar('{{ .Values.manager.terminationGracePeriodSeconds }}');
    pod[
      yaml.block([
        'securityContext:',
        '  {{- toYaml .Values.manager.podSecurityContext | nindent %+2% }}',
        '{{- with .Values.manager.imagePullSecrets }}',
        'imagePullSecrets:',
        '  {{- toYaml . | nindent %+2% }}',
        '{{- end }}',
        '{{- with .Values.manager.nodeSelector }}',
        'nodeSelector:',
        '  {{- toYaml . | nindent %+2% }}',
        '{{- end }}',
        '{{- with .Values.manager.tolerations }}',
        'tolerations:',
        '  {{- toYaml . | nindent %+2% }}',
        '{{- end }}',
        '{{- with .Values.manager.affinity }}',
        'affinity:',
        '  {{- toYaml . | nindent %+2% }}',
        '{{- end }}',
      ])
    ] = null;
    const template = spec.template;
    const podMetadata = (template.metadata ?? {}) as { annotations?: Record<string, string> };
    podMetadata.annotations = {
      ...(podMetadata.annotations ?? {}),
      [yaml.block(['{{- with .Values.manager.podAnnotations }}', '{{- toYaml . | nindent %+0% }}', '{{- end }}'])]:
        null,
    } as Record<string, string>;
    template.metadata = podMetadata as Record<string, unknown>;
    return body;
  }
}
