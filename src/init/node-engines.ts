/**
 * The Node versions a scaffolded project runs on: its package.json `engines`, and the check
 * `kop init` makes against the Node it runs on. The range is the narrowest of the scaffold's
 * tools: ESLint 10 (and @eslint/js) need ^20.19.0 || ^22.13.0 || >=24; vitest 3, typescript-eslint
 * 8, esbuild, Prettier and TypeScript accept all of those. kop itself runs on Node 20.12 and later.
 */
export const PROJECT_NODE_ENGINES = '^20.19.0 || ^22.13.0 || >=24';

/**
 * Whether `version` (`20.19.1`, with or without a leading `v`) is in `range`: alternatives joined
 * by `||`, each `^major.minor.patch` (that major, at least that version) or `>=major[.minor[.patch]]`.
 */
export function nodeSatisfies(version: string, range: string = PROJECT_NODE_ENGINES): boolean {
  const have = parseVersion(version.replace(/^v/, ''));
  return range.split('||').some((alternative) => {
    const text = alternative.trim();
    const caret = /^\^(.+)$/.exec(text);
    if (caret) {
      const want = parseVersion(caret[1]!);
      return have[0] === want[0] && compare(have, want) >= 0;
    }
    const atLeast = /^>=(.+)$/.exec(text);
    if (atLeast) return compare(have, parseVersion(atLeast[1]!)) >= 0;
    throw new Error(`unsupported Node version range "${text}"`);
  });
}

/**
 * One line for `kop init` when the Node it runs on is outside the project's `engines`, or
 * undefined when it is inside.
 */
export function nodeEnginesNote(version: string = process.versions.node): string | undefined {
  if (nodeSatisfies(version)) return undefined;
  return `this is Node ${version.replace(/^v/, '')}, and the project needs Node ${PROJECT_NODE_ENGINES} (its linter, ESLint 10, does): npm install will warn (EBADENGINE) and ESLint may not run; install Node 24, the active LTS, or 22`;
}

function parseVersion(text: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = text.split('.').map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < 3; index++) if (a[index] !== b[index]) return a[index]! - b[index]!;
  return 0;
}
