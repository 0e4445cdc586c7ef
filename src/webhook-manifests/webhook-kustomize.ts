/**
 * The kustomize side of webhooks, as Kubebuilder lays it out: the conversion patch of a CRD
 * (config/crd/patches/webhook_in_<plural>.yaml), the kustomizeconfig that lets namePrefix rename
 * the Service the patch names, config/webhook's kustomization, and config/default's
 * replacements that give cert-manager's Certificate the webhook Service's DNS names and inject
 * its CA into every webhook configuration and converting CRD.
 */
import { KopError } from '../base/index.js';
import type { GeneratedCrd } from '../schema/index.js';
import { generatedYaml } from '../scaffold/index.js';
import { WEBHOOK_SERVICE, type WebhookConfigurationObject } from './webhook-configuration.js';

/** The certificate config/certmanager scaffolds for the webhook server. */
export const SERVING_CERTIFICATE = 'serving-cert';

export const CRD_KUSTOMIZE_CONFIG = 'config/crd/kustomizeconfig.yaml';
export const WEBHOOK_KUSTOMIZATION = 'config/webhook/kustomization.yaml';
export const WEBHOOK_REPLACEMENTS = 'config/default/webhook_replacements.yaml';

/** A kind that converts through a webhook: its hub and spokes, from PROJECT. */
export interface ConvertingKind {
  group: string;
  kind: string;
  hub: string;
  spokes: readonly string[];
}

/**
 * The CRD of each converting kind, checked: the CRD exists, has the hub and every spoke as
 * versions, and the hub is the storage version (a conversion webhook converts to and from it).
 */
export function convertingCrds(kinds: readonly ConvertingKind[], crds: readonly GeneratedCrd[]): GeneratedCrd[] {
  return kinds.map((wanted) => {
    const found = crds.find((c) => c.crd.spec.group === wanted.group && c.crd.spec.names.kind === wanted.kind);
    const where = `${wanted.kind} ${wanted.group}`;
    if (found === undefined) {
      throw new KopError(
        `PROJECT records a conversion webhook for ${where}, but the API types have no such kind`,
        'restore its types, or remove `webhooks.conversion` from its PROJECT entry',
      );
    }
    const versions = found.crd.spec.versions.map((v) => v.name);
    if (versions.length < 2) {
      throw new KopError(
        `${where} converts through a webhook but has only the version ${versions.join(', ')}: conversion needs two versions or more`,
        'add a version with `kop create api`, or remove `webhooks.conversion` from its PROJECT entry',
      );
    }
    for (const version of [wanted.hub, ...wanted.spokes]) {
      if (!versions.includes(version)) {
        throw new KopError(
          `${where} converts with ${version}, which its types do not declare (they declare ${versions.join(', ')})`,
          `restore ${version}, or remove it from the conversion in PROJECT`,
        );
      }
    }
    const storage = found.crd.spec.versions.find((v) => v.storage)?.name;
    if (storage !== wanted.hub) {
      throw new KopError(
        `${where}: the hub of its conversion is ${wanted.hub}, but ${storage} is the storage version`,
        `mark ${wanted.hub} +kubebuilder:storageversion (the hub is the version etcd stores)`,
      );
    }
    return found;
  });
}

/** Kubebuilder's webhook_in_<plural>.yaml: spec.conversion through the webhook Service's /convert. */
export function formatConversionPatch(crdName: string): string {
  const patch = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: crdName },
    spec: {
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: {
            service: { namespace: WEBHOOK_SERVICE.namespace, name: WEBHOOK_SERVICE.name, path: '/convert' },
          },
          conversionReviewVersions: ['v1'],
        },
      },
    },
  };
  return generatedYaml(patch, [
    'Enables the conversion webhook of the CRD; the CA comes from cert-manager (config/default).',
  ]);
}

/** Teaches kustomize that a CRD's conversion webhook names a Service, so namePrefix renames it there too. */
export function formatCrdKustomizeConfig(): string {
  const config = {
    nameReference: [
      {
        kind: 'Service',
        version: 'v1',
        fieldSpecs: [
          {
            kind: 'CustomResourceDefinition',
            version: 'v1',
            group: 'apiextensions.k8s.io',
            path: 'spec/conversion/webhook/clientConfig/service/name',
          },
        ],
      },
    ],
    namespace: [
      {
        kind: 'CustomResourceDefinition',
        version: 'v1',
        group: 'apiextensions.k8s.io',
        path: 'spec/conversion/webhook/clientConfig/service/namespace',
        create: false,
      },
    ],
  };
  return generatedYaml(config);
}

/** config/webhook/kustomization.yaml: the generated configurations (when there are any) and the Service. */
export function formatWebhookKustomization(hasManifests: boolean): string {
  const resources = [...(hasManifests ? ['manifests.yaml'] : []), 'service.yaml'];
  return generatedYaml({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources });
}

interface Replacement {
  source: { kind: string; version: string; group?: string; name: string; fieldPath: string };
  targets: {
    select: { kind: string; group?: string; version?: string; name?: string };
    fieldPaths: string[];
    options: { delimiter: string; index: number; create: boolean };
  }[];
}

/**
 * config/default/webhook_replacements.yaml: kustomize replacements that run after namePrefix and
 * namespace, so the Certificate names the Service as it is finally called, and cert-manager's
 * CA injector finds `cert-manager.io/inject-ca-from: <namespace>/<certificate>` on every
 * webhook configuration and converting CRD.
 */
export function formatWebhookReplacements(
  configurations: readonly WebhookConfigurationObject[],
  convertingCrdNames: readonly string[],
): string {
  const certificate = { kind: 'Certificate', group: 'cert-manager.io', version: 'v1', name: SERVING_CERTIFICATE };
  const dnsNames = ['.spec.dnsNames.0', '.spec.dnsNames.1'];
  const service = (fieldPath: string, index: number): Replacement => ({
    source: { kind: 'Service', version: 'v1', name: WEBHOOK_SERVICE.name, fieldPath },
    targets: [{ select: certificate, fieldPaths: dnsNames, options: { delimiter: '.', index, create: true } }],
  });
  const caTargets = [
    ...[...new Set(configurations.map((c) => c.kind))].sort().map((kind) => ({ kind })),
    ...[...convertingCrdNames].sort().map((name) => ({ kind: 'CustomResourceDefinition', name })),
  ];
  const injection = (fieldPath: string, index: number): Replacement => ({
    source: { ...certificate, fieldPath },
    targets: caTargets.map((select) => ({
      select,
      fieldPaths: ['.metadata.annotations.[cert-manager.io/inject-ca-from]'],
      options: { delimiter: '/', index, create: true },
    })),
  });
  const replacements = [
    service('.metadata.name', 0),
    service('.metadata.namespace', 1),
    ...(caTargets.length > 0 ? [injection('.metadata.namespace', 0), injection('.metadata.name', 1)] : []),
  ];
  return generatedYaml(replacements);
}
