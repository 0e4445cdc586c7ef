// Compares a PROJECT file with the resources Kubebuilder's own testdata PROJECT records, in one
// normalised form both files can be brought to. Fields that matter are compared; those that differ
// between kop and Kubebuilder by design are left out:
// - `version` ("1" in kop, "3" in Kubebuilder) and `layout` (`kop.dev/typescript/v1` against
//   `go.kubebuilder.io/v4`): each tool's own format and layout names.
// - `repo` and `cliVersion`: Go module path and Kubebuilder's binary version; kop has no Go module.
// - `kopSource` and `generated`: kop's own bookkeeping.
// - a resource's `path`: a Go import path in Kubebuilder, the project-relative types file in kop.
// - `webhookVersion` (always v1) and `api.crdVersion` (always v1).
// - plugin names are compared by their short name (`deploy-image.go.kubebuilder.io/v1-alpha` and
//   `deploy-image/v1-alpha` are both `deploy-image`), and of plugin settings only deploy-image's
//   per-kind options (image, command, port, user), which decide what its controllers run; the Helm
//   plugin's `manifests`/`output` name Kubebuilder's files.
// - `plural` is compared where the expectation gives it (kinds kop scaffolds; Kubebuilder records it
//   only when given, kop always), and a webhook path only when it is not the default path.
import { parse } from 'yaml';

/**
 * @typedef {{ namespaced: boolean, ssa?: true }} NormalisedApi
 * @typedef {{ defaulting?: true, validation?: true, conversion?: true, spoke?: string[], defaultingPath?: string, validationPath?: string }} NormalisedWebhooks
 * @typedef {{ group: string, version: string, kind: string, domain?: string, plural?: string, api?: NormalisedApi,
 *   controllers?: true | string[], webhooks?: NormalisedWebhooks, core?: true, external?: true, module?: string }} NormalisedResource
 * @typedef {{ domain: string, projectName: string, multigroup: boolean, namespaced: boolean,
 *   plugins: Record<string, Record<string, unknown>>, resources: NormalisedResource[] }} NormalisedProject
 */

/** `group/version/Kind`, the key a resource is matched by. */
export function resourceKey(resource) {
  return `${resource.group}/${resource.version}/${resource.kind}`;
}

/** A plugin key's short name: `helm.kubebuilder.io/v2-alpha` and `helm` are both `helm`. */
export function pluginShortName(key) {
  return String(key).split(/[./]/)[0];
}

/** The admission webhook path Kubebuilder (and kop) give a kind when no path is asked for. */
export function defaultWebhookPath(prefix, resource) {
  const group =
    resource.core || resource.group === 'core'
      ? resource.group === 'core'
        ? ''
        : resource.group
      : `${resource.group}.${resource.domain}`;
  return `/${prefix}-${group.replaceAll('.', '-')}-${resource.version}-${resource.kind.toLowerCase()}`;
}

function normaliseWebhooks(webhooks, resource) {
  if (!webhooks || typeof webhooks !== 'object') return undefined;
  /** @type {NormalisedWebhooks} */
  const out = {};
  if (webhooks.defaulting === true) out.defaulting = true;
  if (typeof webhooks.defaultingPath === 'string' && webhooks.defaultingPath !== defaultWebhookPath('mutate', resource))
    out.defaultingPath = webhooks.defaultingPath;
  if (webhooks.validation === true) out.validation = true;
  if (
    typeof webhooks.validationPath === 'string' &&
    webhooks.validationPath !== defaultWebhookPath('validate', resource)
  )
    out.validationPath = webhooks.validationPath;
  if (webhooks.conversion === true) out.conversion = true;
  if (Array.isArray(webhooks.spoke) && webhooks.spoke.length > 0) out.spoke = [...webhooks.spoke].map(String).sort();
  return Object.keys(out).length > 0 ? out : undefined;
}

function normaliseControllers(resource) {
  if (Array.isArray(resource.controllers) && resource.controllers.length > 0) {
    return resource.controllers.map((c) => (typeof c === 'string' ? c : String(c?.name))).sort();
  }
  return resource.controller === true || resource.controllers === true ? true : undefined;
}

/** One resource entry of either tool's PROJECT, or of an expectation, in the normalised form. */
export function normaliseResource(resource) {
  /** @type {NormalisedResource} */
  const out = { group: String(resource.group ?? ''), version: String(resource.version), kind: String(resource.kind) };
  const core = resource.core === true;
  if (!core && resource.domain !== undefined) out.domain = String(resource.domain);
  if (resource.plural !== undefined) out.plural = String(resource.plural);
  if (resource.api && typeof resource.api === 'object') {
    out.api = { namespaced: resource.api.namespaced === true };
    if (resource.api.ssa === true) out.api.ssa = true;
  }
  const controllers = normaliseControllers(resource);
  if (controllers !== undefined) out.controllers = controllers;
  const webhooks = normaliseWebhooks(resource.webhooks, resource);
  if (webhooks) out.webhooks = webhooks;
  if (core) out.core = true;
  if (resource.external === true) out.external = true;
  if (resource.module !== undefined) out.module = String(resource.module);
  return out;
}

function normalisePlugins(plugins) {
  /** @type {Record<string, Record<string, unknown>>} */
  const out = {};
  if (!plugins || typeof plugins !== 'object') return out;
  for (const [key, value] of Object.entries(plugins)) {
    const name = pluginShortName(key);
    /** @type {Record<string, unknown>} */
    const settings = {};
    if (name === 'deploy-image') {
      const resources = Array.isArray(value?.resources) ? value.resources : [];
      for (const r of resources) {
        const options = {};
        for (const [option, v] of Object.entries(r.options ?? {})) options[option] = String(v);
        settings[resourceKey(r)] = options;
      }
      // An expectation writes the per-kind options directly under the plugin.
      if (!Array.isArray(value?.resources) && value && typeof value === 'object') {
        for (const [k, options] of Object.entries(value))
          settings[k] = Object.fromEntries(Object.entries(options ?? {}).map(([o, v]) => [o, String(v)]));
      }
    }
    out[name] = settings;
  }
  return out;
}

/** A PROJECT document (kop's or Kubebuilder's, parsed) or an expectation, in the normalised form. */
export function normaliseProject(document) {
  const resources = Array.isArray(document.resources) ? document.resources.map(normaliseResource) : [];
  return {
    domain: String(document.domain ?? ''),
    projectName: String(document.projectName ?? ''),
    multigroup: document.multigroup === true,
    namespaced: document.namespaced === true,
    plugins: normalisePlugins(document.plugins),
    resources: resources.sort((a, b) => resourceKey(a).localeCompare(resourceKey(b))),
  };
}

const show = (value) => (value === undefined ? '(none)' : JSON.stringify(value));

/**
 * The differences between a project's PROJECT (text) and the expected normalised project, one line
 * each (`crew/v1/Captain: controllers: want ["captain","captain-backup"], got true`); empty when
 * they agree.
 * @param {string} projectText
 * @param {NormalisedProject | Record<string, unknown>} expectation
 * @returns {string[]}
 */
export function compareProject(projectText, expectation) {
  const actual = normaliseProject(parse(projectText) ?? {});
  const want = normaliseProject(expectation);
  const differences = [];
  for (const field of ['domain', 'projectName', 'multigroup', 'namespaced']) {
    if (actual[field] !== want[field])
      differences.push(`${field}: want ${show(want[field])}, got ${show(actual[field])}`);
  }
  for (const name of new Set([...Object.keys(want.plugins), ...Object.keys(actual.plugins)])) {
    if (!(name in actual.plugins)) differences.push(`plugins: ${name} missing`);
    else if (!(name in want.plugins)) differences.push(`plugins: ${name} not expected`);
    else if (JSON.stringify(sortKeys(actual.plugins[name])) !== JSON.stringify(sortKeys(want.plugins[name]))) {
      differences.push(
        `plugins: ${name}: want ${show(sortKeys(want.plugins[name]))}, got ${show(sortKeys(actual.plugins[name]))}`,
      );
    }
  }
  const actualByKey = new Map(actual.resources.map((r) => [resourceKey(r), r]));
  const wantKeys = new Set(want.resources.map(resourceKey));
  for (const expected of want.resources) {
    const key = resourceKey(expected);
    const got = actualByKey.get(key);
    if (!got) {
      differences.push(`${key}: missing`);
      continue;
    }
    for (const field of ['domain', 'plural', 'api', 'controllers', 'webhooks', 'core', 'external', 'module']) {
      if (field === 'plural' && expected.plural === undefined) continue;
      if (field === 'domain' && expected.core) continue;
      const a = JSON.stringify(sortKeys(got[field]));
      const w = JSON.stringify(sortKeys(expected[field]));
      if (a !== w)
        differences.push(
          `${key}: ${field}: want ${show(sortKeys(expected[field]))}, got ${show(sortKeys(got[field]))}`,
        );
    }
  }
  for (const key of actualByKey.keys()) if (!wantKeys.has(key)) differences.push(`${key}: not expected`);
  return differences;
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys(value[k])]),
    );
  return value;
}
