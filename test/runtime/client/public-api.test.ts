import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleImports } from '../../helpers/module-imports.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const clientDir = path.join(repo, 'src/runtime/client');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

describe('kop/runtime client public API', () => {
  // That it declares no `any` is checked by test/api/public-api-report.test.ts, with the program it builds anyway.

  it('loads nothing from outside src/runtime at run time (kop/api types are imported type-only), and client-node only on demand', () => {
    const problems: string[] = [];
    for (const file of sources(clientDir)) {
      for (const { specifier: target, typeOnly } of moduleImports(file)) {
        if (target.startsWith('.')) {
          const resolved = path.resolve(path.dirname(file), target);
          if (!resolved.startsWith(path.join(repo, 'src/runtime') + path.sep) && !typeOnly)
            problems.push(`${path.relative(repo, file)} imports ${target}`);
        } else if (target.startsWith('@kubernetes/client-node')) {
          // client-node's index costs ~65 MB of memory once loaded: it is imported only through
          // import() when an auth provider needs it (the transport's pluginAuthenticator). Of its
          // modules, only the small kubeconfig entry parser is loaded up front.
          if (!typeOnly && target !== '@kubernetes/client-node/dist/config_types.js') {
            problems.push(`${path.relative(repo, file)} loads ${target} eagerly`);
          }
        } else if (target === '@opentelemetry/api') {
          // The tracing API alone (no SDK): a few kB whose calls are no-ops until an application
          // registers an SDK, so a process that does not trace pays nothing for it.
          continue;
        } else if (!target.startsWith('node:') && target !== 'js-yaml') {
          problems.push(`${path.relative(repo, file)} imports package ${target}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
