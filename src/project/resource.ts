import { pluralOfKind } from './plural.js';
import { requireValid, type NameCheck } from '../base/index.js';

// The check type and its flag-naming error live with the prompts in base/; re-exported for the name checks' users.
export { requireValid, type NameCheck };

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const VERSION = /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const UPPER_CAMEL = /^[A-Z][A-Za-z0-9]*$/;

/** Project names become the npm package name, the namespace `<name>-system` and a resource-name prefix. */
export const checkProjectName: NameCheck = (value) =>
  isDns1123Label(value)
    ? true
    : `invalid project name ${JSON.stringify(value)}: a project name must be a DNS-1123 label — at most 63 characters of lower-case letters, digits and '-', starting and ending with a letter or digit (e.g. "memcached-operator")`;

/** The domain suffixes every API group, e.g. `example.com`. */
export const checkDomain: NameCheck = (value) =>
  isDns1123Subdomain(value)
    ? true
    : `invalid domain ${JSON.stringify(value)}: a domain must be a DNS-1123 subdomain — at most 253 characters of dot-separated labels of lower-case letters, digits and '-', each starting and ending with a letter or digit (e.g. "example.com")`;

/** The group prefix of an API group (`cache` in `cache.example.com`). */
export const checkGroup: NameCheck = (value) =>
  isDns1123Subdomain(value)
    ? true
    : `invalid group ${JSON.stringify(value)}: a group must be a DNS-1123 subdomain — dot-separated labels of lower-case letters, digits and '-', each starting and ending with a letter or digit (e.g. "cache" or "batch.apps")`;

/** Kubernetes API versions: v1, v1alpha1, v2beta3. */
export const checkVersion: NameCheck = (value) =>
  VERSION.test(value)
    ? true
    : `invalid version ${JSON.stringify(value)}: a version must have the Kubernetes form v<major>, v<major>alpha<n> or v<major>beta<n>, with numbers from 1 (e.g. "v1", "v1alpha1", "v2beta3")`;

/** Kinds are UpperCamelCase identifiers, e.g. `Memcached`, `RedisCluster`. */
export const checkKind: NameCheck = (value) =>
  UPPER_CAMEL.test(value) && value.length <= 63
    ? true
    : `invalid kind ${JSON.stringify(value)}: a kind must be UpperCamelCase — an upper-case letter followed by letters and digits, at most 63 characters (e.g. "Memcached", "RedisCluster")`;

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/**
 * A controller's name (`--controller-name`): a DNS-1035 label, as Kubebuilder requires (a DNS-1123
 * label that starts with a letter), since it also names the reconciler class (captain-backup ->
 * CaptainBackupReconciler), the file src/controllers/<name>.controller.ts and the metrics label.
 */
export const checkControllerName: NameCheck = (value) =>
  value.length <= 63 && DNS1035_LABEL.test(value)
    ? true
    : `invalid controller name ${JSON.stringify(value)}: a controller name must be a DNS-1035 label — at most 63 characters of lower-case letters, digits and '-', starting with a letter and ending with a letter or digit (e.g. "captain-backup")`;

/** True for a DNS-1123 label (RFC 1123): 1-63 of [a-z0-9-], alphanumeric at both ends. */
export function isDns1123Label(value: string): boolean {
  return value.length <= 63 && DNS1123_LABEL.test(value);
}

/** True for a DNS-1123 subdomain: dot-separated labels, at most 253 characters. */
export function isDns1123Subdomain(value: string): boolean {
  return (
    value.length > 0 &&
    value.length <= 253 &&
    value.split('.').every((label) => label.length > 0 && isDns1123Label(label))
  );
}

/**
 * Lower-case plural of a kind as used in resource URLs and CRD names, exactly as controller-gen
 * derives it (Memcached -> memcacheds, Policy -> policies, Schema -> schemas, Medium -> media).
 */
export function pluralOf(kind: string): string {
  return pluralOfKind(kind);
}

/** Lower-case singular of a kind, the CRD's `singular` name and the file-name stem. */
export function singularOf(kind: string): string {
  return kind.toLowerCase();
}

/**
 * Name of a kind's typed descriptor in its generated `.client.ts` (and of the built-in ones in
 * kop/runtime): the kind with a lower-case first word, then `Type` (RedisCluster -> redisClusterType,
 * HTTPRoute -> httpRouteType).
 */
export function descriptorNameOf(kind: string): string {
  return `${lowerFirstWord(kind)}Type`;
}

/** The kind with its first word in lower case: a leading acronym is lowered as a whole (HTTPRoute -> httpRoute). */
export function lowerFirstWord(kind: string): string {
  const match = /^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/.exec(kind);
  if (!match) return kind;
  return match[0].toLowerCase() + kind.slice(match[0].length);
}
