/**
 * Go module paths and versions as the module proxy protocol spells them: `path@version` split and
 * checked, upper-case letters escaped as `!` + lower case (the proxy serves case-insensitive file
 * systems), and the glob patterns of GOPRIVATE / GONOSUMDB matched against a path.
 */
import { UsageError } from '../../base/index.js';

/** A module and a version, or no version (then the proxy's latest). */
export interface ModuleVersion {
  path: string;
  version?: string;
}

/** Characters a module path element may hold (golang.org/x/mod/module, CheckPath, plus `~`). */
const PATH_ELEMENT = /^[A-Za-z0-9._~+-]+$/;
/** A semantic version with Go's `v` prefix (pseudo-versions and `+incompatible` included). */
const SEMVER = /^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** `github.com/cert-manager/cert-manager@v1.20.2` -> path and version; `@latest` or none -> no version. */
export function parseModuleVersion(given: string): ModuleVersion {
  const at = given.lastIndexOf('@');
  const modulePath = at === -1 ? given : given.slice(0, at);
  const version = at === -1 ? undefined : given.slice(at + 1);
  const elements = modulePath.split('/');
  const problem =
    elements.length < 2 || !elements[0]!.includes('.')
      ? 'its first element must be a host name with a dot (github.com/owner/repo)'
      : elements.find((e) => !PATH_ELEMENT.test(e) || e.startsWith('.') || e.endsWith('.'))
        ? 'an element is empty or holds characters a module path cannot'
        : version !== undefined && version !== 'latest' && !SEMVER.test(version)
          ? `version ${JSON.stringify(version)} is not a semantic version (v1.2.3) or latest`
          : undefined;
  if (problem !== undefined)
    throw new UsageError(
      `--external-api-module ${given}: not a Go module path@version: ${problem}`,
      'spell it as go get does, e.g. github.com/cert-manager/cert-manager@v1.20.2',
    );
  return { path: modulePath, version: version === 'latest' ? undefined : version };
}

/** Case-encoding of the proxy protocol: `github.com/Azure/x` -> `github.com/!azure/x`. */
export function escapeModulePath(value: string): string {
  return value.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);
}

/**
 * Whether `modulePath` matches a comma-separated list of glob patterns (GOPRIVATE, GONOSUMDB):
 * a pattern matches a path whose leading elements, as many as the pattern has, match it.
 */
export function matchesGlobList(patterns: string, modulePath: string): boolean {
  const elements = modulePath.split('/');
  return patterns
    .split(',')
    .map((p) => p.trim().replace(/\/+$/, ''))
    .filter((p) => p !== '')
    .some((pattern) => {
      const n = pattern.split('/').length;
      return n <= elements.length && globRegExp(pattern).test(elements.slice(0, n).join('/'));
    });
}

/** path.Match's syntax (`*`, `?`, `[...]`, `\x`) as a regular expression; `*` and `?` stop at `/`. */
function globRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\' && i + 1 < pattern.length) out += escapeRegExp(pattern[++i]!);
    else if (c === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close === -1) return /(?!)/; // a malformed pattern matches nothing, as path.Match reports ErrBadPattern
      const body = pattern
        .slice(i + 1, close)
        .replace(/^\^/, '^')
        .replace(/\\/g, '\\\\');
      out += `[${body}]`;
      i = close;
    } else out += escapeRegExp(c);
  }
  return new RegExp(`^${out}$`);
}

function escapeRegExp(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
