import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The root of the kop package that is running: two levels above this module both in
 * src/base (tests) and dist/base (the built CLI).
 */
export function kopPackageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
}

/** Where handlebars templates live: `<kop root>/templates`. */
export function templatesRoot(): string {
  return path.join(kopPackageRoot(), 'templates');
}

let cachedVersion: string | undefined;

/** kop's own version from its package.json. */
export function kopVersion(): string {
  cachedVersion ??= (
    JSON.parse(readFileSync(path.join(kopPackageRoot(), 'package.json'), 'utf8')) as { version: string }
  ).version;
  return cachedVersion;
}
