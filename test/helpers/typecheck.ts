import * as path from 'node:path';
import { execa } from 'execa';
import { inject } from 'vitest';
import { KOP_ROOT } from './cli-project.js';

/** What tsc printed and exited with. */
export interface TscResult {
  exitCode: number;
  stdout: string;
}

/** kop's own TypeScript, the one the generated projects link. */
const TSC = path.join(KOP_ROOT, 'node_modules/typescript/bin/tsc');

/**
 * `tsc <args>` in `cwd` (a project: `-p tsconfig.json`, `--strict`, `--noEmit`), answered by the
 * e2e run's shared type-check service (test/helpers/typecheck-server.mjs: the same TypeScript,
 * the declarations every project shares parsed once), or by a tsc process of its own outside it.
 */
export async function tsc(args: readonly string[], cwd: string): Promise<TscResult> {
  const server = inject('typecheckServer') as string | undefined;
  if (server === undefined) {
    const own = await execa(process.execPath, [TSC, ...args], { cwd, reject: false, stdin: 'ignore' });
    return { exitCode: own.exitCode ?? 1, stdout: own.stdout + own.stderr };
  }
  const response = await fetch(server, { method: 'POST', body: JSON.stringify({ cwd, args }) });
  if (!response.ok) throw new Error(`type-check service: ${await response.text()}`);
  return (await response.json()) as TscResult;
}
