import { isMap, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import { KopError } from '../base/index.js';
import { checkWebhookPath } from './webhook-path.js';
import {
  checkControllerName,
  checkDomain,
  checkGroup,
  checkKind,
  checkProjectName,
  checkVersion,
  isDns1123Label,
  isDns1123Subdomain,
  type NameCheck,
} from './resource.js';

/** A value at a path of the PROJECT file that kop cannot use, named with its line. */
export interface ProjectProblem {
  /** Where the line is taken from. */
  path: (string | number)[];
  /** What the message names, when not `path` (an unknown key is named by its parent). */
  subject?: (string | number)[];
  message: string;
}

// One key a line, so that commands adding keys merge without conflicts.
const TOP_LEVEL_KEYS = [
  'version',
  'layout',
  'domain',
  'projectName',
  'namespaced',
  'multigroup',
  'kopSource',
  'cliVersion',
  'crd',
  'resources',
  'plugins',
  'generated',
];
const RESOURCE_KEYS = [
  'group',
  'version',
  'kind',
  'plural',
  'domain',
  'path',
  'api',
  'controller',
  'controllers',
  'core',
  'external',
  'module',
  'webhooks',
];
const API_KEYS = ['crdVersion', 'namespaced', 'ssa', 'conversion'];
const CRD_SETTING_KEYS = ['maxDescriptionLength', 'allowDangerousTypes', 'generateEmbeddedObjectMeta'];
const WEBHOOK_KEYS = [
  'defaulting',
  'validation',
  'conversion',
  'spoke',
  'defaultingPath',
  'validationPath',
  'webhookVersion',
];

const checkPlural: NameCheck = (value) =>
  isDns1123Label(value)
    ? true
    : `invalid plural ${JSON.stringify(value)}: a plural must be a lower-case DNS-1123 label (e.g. "memcacheds")`;
const checkResourceGroup: NameCheck = (value) => (value === '' ? true : checkGroup(value));
const checkResourceDomain: NameCheck = (value) =>
  value === '' || isDns1123Subdomain(value) ? true : checkDomain(value);

/**
 * Checks a parsed PROJECT file the way kop commands rely on it: every value that ends up in
 * file names, CRD names or templates has the form `kop init` and `kop create api` give it,
 * keys are ones kop knows (a misspelt key would otherwise be dropped silently on the next
 * save), and each group/version/kind appears once. The first problem is thrown with its
 * line, because a hand-edited PROJECT is fixed by hand. `doc` is PROJECT parsed with `lineCounter`.
 */
export function validateProjectDocument(doc: Document, lineCounter: LineCounter, formatVersion: string): void {
  const problem = firstProblem(doc.toJS() as Record<string, unknown>, formatVersion);
  if (!problem) return;
  const line = lineOf(doc, problem.path, lineCounter);
  const subject = problem.subject ?? problem.path;
  const where = subject.length > 0 ? `${formatPath(subject)}: ` : '';
  throw new KopError(
    `PROJECT${line ? `:${line}` : ''}: ${where}${problem.message}`,
    'fix that line of PROJECT by hand (kop writes it), or restore PROJECT from version control',
  );
}

function checkCrdSettings(crd: unknown): ProjectProblem | undefined {
  if (crd === undefined) return undefined;
  if (typeof crd !== 'object' || crd === null || Array.isArray(crd))
    return { path: ['crd'], message: `must be a mapping (${CRD_SETTING_KEYS.join(', ')})` };
  const settings = crd as Record<string, unknown>;
  const unknown = unknownKey(settings, CRD_SETTING_KEYS, ['crd']);
  if (unknown) return unknown;
  const max = settings.maxDescriptionLength;
  if (max !== undefined && !(typeof max === 'number' && Number.isInteger(max) && max >= 0))
    return {
      path: ['crd', 'maxDescriptionLength'],
      message: `must be a whole number of bytes (0 removes descriptions), not ${JSON.stringify(max)}`,
    };
  for (const flag of ['allowDangerousTypes', 'generateEmbeddedObjectMeta']) {
    const value = settings[flag];
    if (value !== undefined && typeof value !== 'boolean')
      return { path: ['crd', flag], message: `must be true or false, not ${JSON.stringify(value)}` };
  }
  return undefined;
}

function firstProblem(project: Record<string, unknown>, formatVersion: string): ProjectProblem | undefined {
  const unknownTop = unknownKey(project, TOP_LEVEL_KEYS, []);
  if (unknownTop) return unknownTop;
  if (project.version !== formatVersion) {
    return {
      path: ['version'],
      message: `this kop reads PROJECT format ${JSON.stringify(formatVersion)}, not ${JSON.stringify(project.version)}`,
    };
  }
  const named =
    checkString(project, 'domain', checkDomain, []) ?? checkString(project, 'projectName', checkProjectName, []);
  if (named) return named;
  const flag = checkBoolean(project, 'namespaced', []) ?? checkBoolean(project, 'multigroup', []);
  if (flag) return flag;
  if (project.kopSource !== undefined && typeof project.kopSource !== 'string')
    return { path: ['kopSource'], message: 'must be an npm dependency spec (a string)' };
  if (
    project.cliVersion !== undefined &&
    (typeof project.cliVersion !== 'string' ||
      !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(project.cliVersion))
  ) {
    return { path: ['cliVersion'], message: 'must be the version of kop that scaffolded the project (e.g. 0.1.0)' };
  }
  if (project.generated !== undefined) {
    const list = project.generated;
    if (!Array.isArray(list))
      return { path: ['generated'], message: 'must be a list of the project-relative paths kop generated' };
    for (const [index, file] of list.entries()) {
      if (typeof file !== 'string' || file === '' || file.startsWith('/') || file.split('/').includes('..')) {
        return {
          path: ['generated', index],
          message: 'must be a path inside the project, relative to it (e.g. config/crd/bases/x.yaml)',
        };
      }
    }
  }
  const crd = checkCrdSettings(project.crd);
  if (crd) return crd;
  const plugins = checkPlugins(project.plugins);
  if (plugins) return plugins;
  const resources = project.resources;
  if (resources === undefined || resources === null) return undefined;
  if (!Array.isArray(resources)) return { path: ['resources'], message: 'must be a list of resources (- group: ...)' };
  const seen = new Map<string, number>();
  for (const [index, resource] of resources.entries()) {
    const at = ['resources', index];
    if (typeof resource !== 'object' || resource === null || Array.isArray(resource))
      return { path: at, message: 'must be a mapping with group, version, kind, plural and domain' };
    const entry = resource as Record<string, unknown>;
    for (const key of ['group', 'version', 'kind', 'plural', 'domain']) {
      // Kubebuilder records a built-in kind of the core or apps group without a domain.
      if (key === 'domain' && entry.core === true) continue;
      if (entry[key] === undefined) return { path: at, message: `no ${key}` };
    }
    const found =
      unknownKey(entry, RESOURCE_KEYS, at) ??
      checkString(entry, 'group', checkResourceGroup, at) ??
      checkString(entry, 'version', checkVersion, at) ??
      checkString(entry, 'kind', checkKind, at) ??
      checkString(entry, 'plural', checkPlural, at) ??
      checkString(entry, 'domain', checkResourceDomain, at) ??
      checkBoolean(entry, 'controller', at) ??
      checkBoolean(entry, 'external', at) ??
      checkBoolean(entry, 'core', at) ??
      checkControllers(entry.controllers, [...at, 'controllers']);
    if (found) return found;
    if (entry.module !== undefined && typeof entry.module !== 'string')
      return { path: [...at, 'module'], message: 'must be an npm dependency spec or a CRD file path (a string)' };
    if (entry.path !== undefined && typeof entry.path !== 'string')
      return { path: [...at, 'path'], message: 'must be a file path (a string)' };
    const api = entry.api;
    if (api !== undefined) {
      if (typeof api !== 'object' || api === null || Array.isArray(api))
        return { path: [...at, 'api'], message: 'must be a mapping (crdVersion, namespaced, ssa, conversion)' };
      const apiEntry = api as Record<string, unknown>;
      const apiProblem =
        unknownKey(apiEntry, API_KEYS, [...at, 'api']) ??
        checkBoolean(apiEntry, 'namespaced', [...at, 'api']) ??
        checkBoolean(apiEntry, 'ssa', [...at, 'api']);
      if (apiProblem) return apiProblem;
      if (apiEntry.conversion !== undefined && apiEntry.conversion !== 'None')
        return {
          path: [...at, 'api', 'conversion'],
          message: `must be None (a conversion webhook is recorded under webhooks), not ${JSON.stringify(apiEntry.conversion)}`,
        };
      if (apiEntry.crdVersion !== 'v1')
        return {
          path: [...at, 'api', 'crdVersion'],
          message: `must be v1, not ${JSON.stringify(apiEntry.crdVersion)}`,
        };
    }
    const webhooks = entry.webhooks;
    if (webhooks !== undefined) {
      if (typeof webhooks !== 'object' || webhooks === null || Array.isArray(webhooks))
        return { path: [...at, 'webhooks'], message: 'must be a mapping' };
      const hooks = webhooks as Record<string, unknown>;
      const hookProblem =
        unknownKey(hooks, WEBHOOK_KEYS, [...at, 'webhooks']) ??
        checkBoolean(hooks, 'defaulting', [...at, 'webhooks']) ??
        checkBoolean(hooks, 'validation', [...at, 'webhooks']) ??
        checkBoolean(hooks, 'conversion', [...at, 'webhooks']) ??
        checkSpokes(hooks.spoke, [...at, 'webhooks', 'spoke']) ??
        checkString(hooks, 'defaultingPath', checkWebhookPath, [...at, 'webhooks']) ??
        checkString(hooks, 'validationPath', checkWebhookPath, [...at, 'webhooks']);
      if (hookProblem) return hookProblem;
      if (hooks.webhookVersion !== undefined && hooks.webhookVersion !== 'v1') {
        return {
          path: [...at, 'webhooks', 'webhookVersion'],
          message: `must be v1, not ${JSON.stringify(hooks.webhookVersion)}`,
        };
      }
    }
    // Strings by now: firstProblem checked every field's type before duplicates are looked for.
    const domain = typeof entry.domain === 'string' ? entry.domain : '';
    const group = String(entry.group);
    const key = `${String(entry.kind)} ${group === '' || (entry.core === true && group === 'core') ? domain : domain === '' ? group : `${group}.${domain}`}/${String(entry.version)}`;
    const first = seen.get(key);
    if (first !== undefined)
      return { path: at, message: `${key} is listed twice (also resources[${first}]); keep one entry` };
    seen.set(key, index);
  }
  return undefined;
}

const DEPLOY_IMAGE_KEY = 'deploy-image.go.kubebuilder.io/v1-alpha';
const DEPLOY_IMAGE_OPTIONS = ['image', 'containerCommand', 'containerPort', 'runAsUser'];

/** `plugins`: a mapping of plugin key to a mapping; deploy-image's resources as it records them. */
function checkPlugins(value: unknown): ProjectProblem | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    return { path: ['plugins'], message: 'must be a mapping of plugin key to its configuration' };
  for (const [key, config] of Object.entries(value as Record<string, unknown>)) {
    const at = ['plugins', key];
    if (config === null) continue;
    if (typeof config !== 'object' || Array.isArray(config)) return { path: at, message: 'must be a mapping (or {})' };
    if (key !== DEPLOY_IMAGE_KEY) continue;
    const resources = (config as Record<string, unknown>).resources;
    if (!Array.isArray(resources))
      return { path: [...at, 'resources'], message: 'must be a list of the kinds the plugin scaffolded' };
    for (const [index, resource] of resources.entries()) {
      const where = [...at, 'resources', index];
      if (typeof resource !== 'object' || resource === null || Array.isArray(resource))
        return { path: where, message: 'must be a mapping with domain, group, version, kind and options' };
      const entry = resource as Record<string, unknown>;
      const found =
        checkString(entry, 'group', checkResourceGroup, where) ??
        checkString(entry, 'version', checkVersion, where) ??
        checkString(entry, 'kind', checkKind, where) ??
        checkString(entry, 'domain', checkResourceDomain, where);
      if (found) return found;
      const options = entry.options;
      if (typeof options !== 'object' || options === null || Array.isArray(options))
        return { path: [...where, 'options'], message: 'must be a mapping with at least image' };
      const optionProblem = unknownKey(options as Record<string, unknown>, DEPLOY_IMAGE_OPTIONS, [...where, 'options']);
      if (optionProblem) return optionProblem;
      for (const [name, option] of Object.entries(options as Record<string, unknown>)) {
        if (typeof option !== 'string')
          return { path: [...where, 'options', name], message: `must be a string, not ${JSON.stringify(option)}` };
      }
      if (typeof (options as Record<string, unknown>).image !== 'string')
        return { path: [...where, 'options'], message: 'no image' };
    }
  }
  return undefined;
}

/** Named controllers: a list of `- name: <DNS-1035 label>`, each name once. */
function checkControllers(value: unknown, at: (string | number)[]): ProjectProblem | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return { path: at, message: 'must be a list of controllers (- name: ...)' };
  const names: unknown[] = [];
  for (const [index, item] of value.entries()) {
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return { path: [...at, index], message: 'must be a mapping with a name' };
    const controller = item as Record<string, unknown>;
    const problem =
      unknownKey(controller, ['name'], [...at, index]) ??
      checkString(controller, 'name', checkControllerName, [...at, index]);
    if (problem) return problem;
    if (names.includes(controller.name))
      return { path: [...at, index, 'name'], message: `${String(controller.name)} is listed twice` };
    names.push(controller.name);
  }
  return undefined;
}

/** Spoke versions of a conversion: a list of API versions, each once. */
function checkSpokes(value: unknown, at: (string | number)[]): ProjectProblem | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return { path: at, message: 'must be a list of versions' };
  for (const [index, version] of value.entries()) {
    const result = typeof version === 'string' ? checkVersion(version) : 'must be a version such as v1alpha1';
    if (result !== true) return { path: [...at, index], message: result };
    if (value.indexOf(version) !== index) return { path: [...at, index], message: `${version} is listed twice` };
  }
  return undefined;
}

function unknownKey(
  mapping: Record<string, unknown>,
  known: readonly string[],
  at: (string | number)[],
): ProjectProblem | undefined {
  const key = Object.keys(mapping).find((k) => !known.includes(k));
  return key === undefined
    ? undefined
    : {
        path: [...at, key],
        subject: at,
        message: `unknown key ${JSON.stringify(key)}; the keys here are ${known.join(', ')}`,
      };
}

function checkString(
  mapping: Record<string, unknown>,
  key: string,
  check: NameCheck,
  at: (string | number)[],
): ProjectProblem | undefined {
  const value = mapping[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    return { path: [...at, key], message: `must be a string, not ${JSON.stringify(value)}` };
  const result = check(value);
  return result === true ? undefined : { path: [...at, key], message: result };
}

function checkBoolean(
  mapping: Record<string, unknown>,
  key: string,
  at: (string | number)[],
): ProjectProblem | undefined {
  const value = mapping[key];
  if (value === undefined || typeof value === 'boolean') return undefined;
  return { path: [...at, key], message: `must be true or false, not ${JSON.stringify(value)}` };
}

/** `resources[0].api.namespaced` */
function formatPath(path: (string | number)[]): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/** The 1-based line of the key (or list item) at `path`, or of its nearest parent that exists. */
function lineOf(doc: Document, path: (string | number)[], lineCounter: LineCounter): number | undefined {
  for (let length = path.length; length > 0; length--) {
    const parentPath = path.slice(0, length - 1);
    const last = path[length - 1]!;
    const parent = parentPath.length === 0 ? doc.contents : (doc.getIn(parentPath, true) as Node | undefined);
    if (isMap(parent)) {
      const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === last);
      const range = (pair?.key as Node | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    } else if (isSeq(parent) && typeof last === 'number') {
      const range = (parent.items[last] as Node | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
  }
  return undefined;
}
