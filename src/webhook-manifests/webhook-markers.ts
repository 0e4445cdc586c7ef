/**
 * `+kubebuilder:webhook:...` markers (one admission webhook each) and
 * `+kubebuilder:webhookconfiguration:...` markers (the name of the Mutating/Validating
 * configuration object) in the operator's source, read from comment lines of src/**\/*.ts
 * like the rbac markers. Arguments are controller-gen's; values are checked here, with
 * file:line, against what admissionregistration.k8s.io/v1 accepts — controller-gen passes
 * some unknown values through (failurePolicy, verbs) or drops them (reinvocationPolicy),
 * and the apiserver or the user finds out later.
 */
import type { JSONValue } from '../base/index.js';
import {
  type CommentMarker,
  MarkerSyntaxError,
  parseEach,
  type SourceLocation,
  type ArgumentSpecs,
  markerRegistry,
  markerUsage,
  type MarkerDefinition,
} from '../markers/index.js';

/** The text every webhook marker line starts with. */
export const WEBHOOK_PREFIX = '+kubebuilder:webhook:';
/** The text every webhook-configuration marker line starts with. */
export const WEBHOOK_CONFIGURATION_PREFIX = '+kubebuilder:webhookconfiguration:';
/** What to scan comments for: both markers, and misspellings such as `+kubebuilder:webhooks:`, which are errors. */
export const WEBHOOK_SCAN_PREFIX = '+kubebuilder:webhook';

/** An admission operation as the API spells it. */
export type WebhookOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*';

/** One webhook marker, checked and with its values in the API's spelling. */
export interface WebhookMarker {
  name: string;
  mutating: boolean;
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: 'None' | 'NoneOnDryRun';
  matchPolicy?: 'Exact' | 'Equivalent';
  timeoutSeconds?: number;
  reinvocationPolicy?: 'Never' | 'IfNeeded';
  /** API groups, `core` already turned into the core group "". */
  groups: string[];
  resources: string[];
  versions: string[];
  operations: WebhookOperation[];
  admissionReviewVersions: string[];
  /** Exactly one of `path` (served by the webhook Service) and `url` (an external endpoint) is set. */
  path?: string;
  url?: string;
  serviceName?: string;
  serviceNamespace?: string;
  servicePort?: number;
  location: SourceLocation;
}

/** One webhookconfiguration marker: the name of the mutating or the validating configuration. */
export interface WebhookConfigurationMarker {
  mutating: boolean;
  /** Absent: the default name (`mutating-webhook-configuration` / `validating-webhook-configuration`). */
  name?: string;
  location: SourceLocation;
}

const WEBHOOK_ARGS: ArgumentSpecs = {
  path: { type: 'string', optional: true },
  url: { type: 'string', optional: true },
  mutating: { type: 'bool' },
  failurePolicy: { type: 'string' },
  sideEffects: { type: 'string', optional: true },
  matchPolicy: { type: 'string', optional: true },
  groups: { type: 'stringList' },
  resources: { type: 'stringList' },
  verbs: { type: 'stringList' },
  versions: { type: 'stringList' },
  name: { type: 'string' },
  admissionReviewVersions: { type: 'stringList' },
  timeoutSeconds: { type: 'int', optional: true },
  reinvocationPolicy: { type: 'string', optional: true },
  serviceName: { type: 'string', optional: true },
  serviceNamespace: { type: 'string', optional: true },
  servicePort: { type: 'int', optional: true },
  webhookVersions: { type: 'stringList', optional: true },
};

const CONFIGURATION_ARGS: ArgumentSpecs = {
  mutating: { type: 'bool' },
  name: { type: 'string', optional: true },
};

/** The webhook vocabulary: both markers are package-level and repeatable, with controller-gen's arguments. */
export const WEBHOOK_MARKER: MarkerDefinition = {
  name: 'kubebuilder:webhook',
  targets: ['package'],
  args: WEBHOOK_ARGS,
  repeatable: true,
};
export const WEBHOOK_CONFIGURATION_MARKER: MarkerDefinition = {
  name: 'kubebuilder:webhookconfiguration',
  targets: ['package'],
  args: CONFIGURATION_ARGS,
  repeatable: true,
};
markerRegistry.register('webhook', [WEBHOOK_MARKER, WEBHOOK_CONFIGURATION_MARKER]);

/** What to write when a scanned line is neither webhook marker. */
const UNKNOWN_HINT = `write ${WEBHOOK_PREFIX}... or ${WEBHOOK_CONFIGURATION_PREFIX}...`;

const OPERATIONS: readonly WebhookOperation[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'];
/** A DNS-1123 subdomain: what object names and webhook names must be. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** `text` matched case-insensitively against `allowed` (as controller-gen reads these), in the API's spelling. */
function canonical<T extends string>(text: string, allowed: readonly T[]): T | undefined {
  return allowed.find((value) => value.toLowerCase() === text.toLowerCase());
}

function failer(location: SourceLocation, definition: MarkerDefinition): (problem: string) => never {
  return (problem) => {
    throw new MarkerSyntaxError(location, `+${definition.name}`, problem, `write it as ${markerUsage(definition)}`);
  };
}

/** The named arguments of a line that must be the marker `definition` (its own checks follow). */
function argumentsOf(text: string, location: SourceLocation, definition: MarkerDefinition): Record<string, JSONValue> {
  const marker = markerRegistry.parse(text, location, 'webhook', UNKNOWN_HINT);
  if (marker.name !== definition.name) failer(location, definition)(`this is +${marker.name}, not +${definition.name}`);
  return marker.args;
}

/** Parses and checks one `+kubebuilder:webhook:...` line. */
export function parseWebhookMarker(text: string, location: SourceLocation): WebhookMarker {
  const fail = failer(location, WEBHOOK_MARKER);
  const args = argumentsOf(text, location, WEBHOOK_MARKER);
  const str = (key: string): string | undefined => (args[key] === undefined ? undefined : String(args[key]));
  const list = (key: string): string[] => {
    const values = ((args[key] as string[] | undefined) ?? []).map(String);
    if (WEBHOOK_ARGS[key]!.optional !== true && values.length === 0) fail(`argument ${key} is empty`);
    return values;
  };
  const oneOf = <T extends string>(key: string, allowed: readonly T[], extra = ''): T | undefined => {
    const value = str(key);
    if (value === undefined) return undefined;
    const found = canonical(value, allowed);
    if (found === undefined) fail(`${key} "${value}" is not one of ${allowed.join(', ')}${extra}`);
    return found;
  };

  const name = str('name')!;
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name) || name.split('.').length < 3) {
    fail(
      `name "${name}" must be a lower-case domain with at least three segments, like redisclusters.cache.example.com`,
    );
  }
  const mutating = args.mutating === true;
  const failurePolicy = oneOf('failurePolicy', ['Fail', 'Ignore'] as const)!;
  const sideEffectsText = str('sideEffects');
  if (sideEffectsText === undefined)
    fail('missing argument sideEffects (admissionregistration.k8s.io/v1 needs None or NoneOnDryRun)');
  const sideEffects = oneOf(
    'sideEffects',
    ['None', 'NoneOnDryRun'] as const,
    ' (v1 webhook configurations refuse Some and Unknown)',
  )!;
  const matchPolicy = oneOf('matchPolicy', ['Exact', 'Equivalent'] as const);
  const reinvocationPolicy = oneOf('reinvocationPolicy', ['Never', 'IfNeeded'] as const);
  if (reinvocationPolicy !== undefined && !mutating)
    fail('reinvocationPolicy applies only to mutating webhooks (mutating=true)');

  let timeoutSeconds = args.timeoutSeconds as number | undefined;
  // 0 means "not set", as in controller-gen; the apiserver then defaults to 10 seconds.
  if (timeoutSeconds === 0) timeoutSeconds = undefined;
  if (timeoutSeconds !== undefined && (timeoutSeconds < 1 || timeoutSeconds > 30))
    fail(`timeoutSeconds ${timeoutSeconds} is not between 1 and 30`);

  const operations = list('verbs').map((verb) => {
    const operation = canonical(verb, OPERATIONS);
    if (operation === undefined)
      fail(`verb "${verb}" is not one of create, update, delete, connect, * (admission webhooks see only changes)`);
    return operation!;
  });
  const groups = list('groups').map((group) => (group === 'core' ? '' : group));
  const versions = list('versions');
  const resources = list('resources');
  // The apiserver's rules for a RuleWithOperations: "*" stands alone, nothing is empty.
  for (const [key, values] of [
    ['groups', groups],
    ['versions', versions],
    ['verbs', operations],
  ] as const) {
    if (values.length > 1 && values.includes('*')) fail(`${key}: "*" already matches everything; give it alone`);
  }
  if (versions.includes('')) fail('versions: a version must not be empty');
  if (resources.includes('')) fail('resources: a resource must not be empty');
  if (resources.length > 1 && resources.includes('*/*'))
    fail('resources: "*/*" already matches everything; give it alone');
  if (resources.includes('*') && resources.some((r) => r !== '*' && !r.includes('/'))) {
    fail(
      'resources: "*" already matches every resource; only subresources (like */status or pods/log) may go beside it',
    );
  }

  const admissionReviewVersions = list('admissionReviewVersions');
  if (!admissionReviewVersions.some((v) => v === 'v1' || v === 'v1beta1'))
    fail('admissionReviewVersions must include v1 (or v1beta1)');
  for (const version of list('webhookVersions')) {
    if (version !== 'v1')
      fail(`webhookVersions "${version}" is not supported; admissionregistration.k8s.io/v1 is the only version`);
  }

  const path = str('path');
  const url = str('url');
  if ((path === undefined) === (url === undefined))
    fail('give exactly one of path (served by the webhook Service) and url');
  if (path !== undefined && !path.startsWith('/')) fail(`path "${path}" must start with "/"`);
  if (url !== undefined && !url.startsWith('https://')) fail(`url "${url}" must start with https://`);
  const servicePort = args.servicePort as number | undefined;
  if (url !== undefined && ['serviceName', 'serviceNamespace', 'servicePort'].some((key) => key in args)) {
    fail('serviceName, serviceNamespace and servicePort apply only with path, not with url');
  }
  if (servicePort !== undefined && (servicePort < 1 || servicePort > 65535))
    fail(`servicePort ${servicePort} is not between 1 and 65535`);

  const marker: WebhookMarker = {
    name,
    mutating,
    failurePolicy,
    sideEffects,
    groups,
    resources,
    versions,
    operations,
    admissionReviewVersions,
    location,
  };
  if (matchPolicy !== undefined) marker.matchPolicy = matchPolicy;
  if (timeoutSeconds !== undefined) marker.timeoutSeconds = timeoutSeconds;
  if (reinvocationPolicy !== undefined) marker.reinvocationPolicy = reinvocationPolicy;
  if (path !== undefined) marker.path = path;
  if (url !== undefined) marker.url = url;
  if (str('serviceName') !== undefined) marker.serviceName = str('serviceName');
  if (str('serviceNamespace') !== undefined) marker.serviceNamespace = str('serviceNamespace');
  if (servicePort !== undefined) marker.servicePort = servicePort;
  return marker;
}

/** Parses one `+kubebuilder:webhookconfiguration:...` line. */
export function parseWebhookConfigurationMarker(text: string, location: SourceLocation): WebhookConfigurationMarker {
  const fail = failer(location, WEBHOOK_CONFIGURATION_MARKER);
  const args = argumentsOf(text, location, WEBHOOK_CONFIGURATION_MARKER);
  const marker: WebhookConfigurationMarker = { mutating: args.mutating === true, location };
  const name = args.name === undefined ? '' : String(args.name);
  if (name !== '') {
    if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) fail(`name "${name}" is not a lower-case DNS name`);
    marker.name = name;
  }
  return marker;
}

/** The webhook and webhookconfiguration markers among lines found by collectCommentMarkers under WEBHOOK_SCAN_PREFIX. */
export function parseWebhookMarkers(found: readonly CommentMarker[]): {
  webhooks: WebhookMarker[];
  configurations: WebhookConfigurationMarker[];
} {
  const webhooks: WebhookMarker[] = [];
  const configurations: WebhookConfigurationMarker[] = [];
  // Every bad line is reported, not only the first.
  parseEach(
    found,
    ({ text, location }) => {
      // The registry decides which marker a line is (the longest name that matches), or that it is none.
      const name = markerRegistry.lookup(text.trim().slice(1), 'webhook')?.name;
      if (name === WEBHOOK_MARKER.name) webhooks.push(parseWebhookMarker(text, location));
      else if (name === WEBHOOK_CONFIGURATION_MARKER.name)
        configurations.push(parseWebhookConfigurationMarker(text, location));
      else throw markerRegistry.unknown(text.trim().slice(1), location, 'webhook', UNKNOWN_HINT);
    },
    'the webhook markers',
  );
  return { webhooks, configurations };
}
