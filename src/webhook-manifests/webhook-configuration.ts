/**
 * Webhook markers to config/webhook/manifests.yaml, as controller-gen's `webhook` generator
 * lays it out: a MutatingWebhookConfiguration (when any webhook is mutating) then a
 * ValidatingWebhookConfiguration (when any is validating), each with its webhooks sorted by
 * name, served by the Service `webhook-service` in `system` (Kubebuilder's config/default
 * kustomization renames both). No webhook markers: no configuration and no file.
 */
import { generatedYamlDocuments } from '../scaffold/index.js';
import { formatLocation, MarkerPlacementError } from '../markers/index.js';
import type { WebhookConfigurationMarker, WebhookMarker, WebhookOperation } from './webhook-markers.js';

/** Where generated webhook configurations go. */
export const WEBHOOK_MANIFESTS = 'config/webhook/manifests.yaml';
/** The Service a `path=` webhook is reached through, unless serviceName/serviceNamespace say otherwise. */
export const WEBHOOK_SERVICE = { name: 'webhook-service', namespace: 'system' } as const;

/** admissionregistration.k8s.io/v1 RuleWithOperations. */
export interface WebhookRule {
  apiGroups: string[];
  apiVersions: string[];
  operations: WebhookOperation[];
  resources: string[];
}

/** admissionregistration.k8s.io/v1 MutatingWebhook / ValidatingWebhook (the fields kop sets). */
export interface AdmissionWebhook {
  admissionReviewVersions: string[];
  clientConfig: { service: { name: string; namespace: string; path: string; port?: number } } | { url: string };
  failurePolicy: 'Fail' | 'Ignore';
  matchPolicy?: 'Exact' | 'Equivalent';
  name: string;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  rules: WebhookRule[];
  sideEffects: 'None' | 'NoneOnDryRun';
  timeoutSeconds?: number;
}

/** A MutatingWebhookConfiguration or ValidatingWebhookConfiguration. */
export interface WebhookConfigurationObject {
  apiVersion: 'admissionregistration.k8s.io/v1';
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  metadata: { name: string };
  webhooks: AdmissionWebhook[];
}

function toWebhook(marker: WebhookMarker): AdmissionWebhook {
  return {
    admissionReviewVersions: [...marker.admissionReviewVersions],
    clientConfig:
      marker.url !== undefined
        ? { url: marker.url }
        : {
            service: {
              name: marker.serviceName ?? WEBHOOK_SERVICE.name,
              namespace: marker.serviceNamespace ?? WEBHOOK_SERVICE.namespace,
              path: marker.path!,
              port: marker.servicePort,
            },
          },
    failurePolicy: marker.failurePolicy,
    matchPolicy: marker.matchPolicy,
    name: marker.name,
    reinvocationPolicy: marker.reinvocationPolicy,
    rules: [
      {
        apiGroups: [...marker.groups],
        apiVersions: [...marker.versions],
        operations: [...marker.operations],
        resources: [...marker.resources],
      },
    ],
    sideEffects: marker.sideEffects,
    timeoutSeconds: marker.timeoutSeconds,
  };
}

/** Code-point order, like Go's strings.Compare. */
const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The configurations for a set of markers: mutating first, then validating, each only when
 * it has webhooks. Two webhooks of one kind with the same name, or two webhookconfiguration
 * markers for one kind, are errors (the apiserver refuses the first; the second is ambiguous).
 */
export function buildWebhookConfigurations(
  webhooks: readonly WebhookMarker[],
  configurations: readonly WebhookConfigurationMarker[] = [],
): WebhookConfigurationObject[] {
  const objects: WebhookConfigurationObject[] = [];
  for (const mutating of [true, false]) {
    const kind = mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration';
    const named = configurations.filter((c) => c.mutating === mutating);
    if (named.length > 1) {
      throw new MarkerPlacementError(
        named[1]!.location,
        '+kubebuilder:webhookconfiguration',
        `a second ${mutating ? 'mutating' : 'validating'} configuration (the first is at ${formatLocation(named[0]!.location)})`,
        'keep one webhookconfiguration marker per kind of webhook',
      );
    }
    const markers = [...webhooks.filter((w) => w.mutating === mutating)].sort(byName);
    markers.forEach((marker, i) => {
      const previous = markers[i - 1];
      if (previous?.name === marker.name) {
        throw new MarkerPlacementError(
          marker.location,
          `+kubebuilder:webhook name=${marker.name}`,
          `a second ${mutating ? 'mutating' : 'validating'} webhook with this name (the first is at ${formatLocation(previous.location)})`,
          'give every webhook of one kind its own name',
        );
      }
    });
    if (markers.length === 0) continue;
    const name = named[0]?.name ?? (mutating ? 'mutating-webhook-configuration' : 'validating-webhook-configuration');
    objects.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name },
      webhooks: markers.map((marker) => {
        const webhook = toWebhook(marker);
        // Only MutatingWebhook has reinvocationPolicy (the marker parser refuses it on validating ones).
        if (!mutating) delete webhook.reinvocationPolicy;
        return webhook;
      }),
    });
  }
  return objects;
}

/** config/webhook/manifests.yaml: the generated-file header, then one document per configuration. */
export function formatWebhookConfigurations(objects: readonly WebhookConfigurationObject[]): string {
  return generatedYamlDocuments(objects);
}
