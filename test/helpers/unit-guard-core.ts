import { appendFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { isIP, Socket } from 'node:net';
import * as path from 'node:path';
import { expect } from 'vitest';

/** Programs a unit test may not start: the control plane, package managers, the Go toolchain. */
const REFUSED_PROGRAMS = new Set(['kube-apiserver', 'etcd', 'npm', 'npx', 'pnpm', 'yarn', 'go']);

/** The built CLI, as the end-to-end tests run it (`node bin/kop.js ...`). */
const BUILT_CLI = /(^|[/\\])(bin[/\\]kop\.js|dist[/\\]cli[/\\]main\.js)$/;

/** Why `command args` is not a unit test's to run, or undefined when it is. */
export function refusedCommand(command: string, args: readonly string[] = []): string | undefined {
  const program = path.basename(command);
  if (REFUSED_PROGRAMS.has(program)) {
    return program === 'kube-apiserver' || program === 'etcd'
      ? `starts a control plane (${program}): list the file in LIVE_TESTS (test/helpers/vitest-projects.ts)`
      : `runs ${program}: list the file in E2E_TESTS (test/helpers/vitest-projects.ts)`;
  }
  if (program === 'node' || command === process.execPath) {
    const script = args.find((arg) => !arg.startsWith('-'));
    if (script !== undefined && BUILT_CLI.test(script))
      return 'runs the built CLI: list the file in E2E_TESTS (test/helpers/vitest-projects.ts)';
  }
  return undefined;
}

/** Why connecting to `host` is not a unit test's to do, or undefined when it is (this machine). */
export function refusedHost(host: string | undefined): string | undefined {
  if (host === undefined || host === '' || host === 'localhost') return undefined;
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) === 4 && (bare.startsWith('127.') || bare === '0.0.0.0')) return undefined;
  if (isIP(bare) === 6 && (bare === '::1' || bare === '::' || bare.startsWith('::ffff:127.'))) return undefined;
  return `connects to ${host} (off this machine): list the file in E2E_TESTS (test/helpers/vitest-projects.ts)`;
}

type Reporter = (reason: string) => void;

function currentTestFile(): string {
  try {
    return expect.getState().testPath ?? 'a test file';
  } catch {
    return 'a test file';
  }
}

/**
 * Throws for a refusal; with KOP_UNIT_GUARD_REPORT=<file> it appends `<test file>\t<reason>` to
 * that file and lets the call through instead (to classify many files in one run).
 */
function defaultReporter(): Reporter {
  const reportFile = process.env['KOP_UNIT_GUARD_REPORT'];
  return (reason) => {
    const message = `${currentTestFile()} is in the vitest project \`unit\` but ${reason}`;
    if (reportFile) appendFileSync(reportFile, `${currentTestFile()}\t${reason}\n`);
    else throw new Error(message);
  };
}

/** The first word of a shell command line, and the rest split on blanks (enough to name the program). */
function splitShell(line: string): [string, string[]] {
  const words = line.trim().split(/\s+/);
  return [words[0] ?? '', words.slice(1)];
}

let installed = false;

/**
 * Wraps node:child_process (spawn, spawnSync, execFile, execFileSync, fork, exec, execSync) and
 * net.Socket#connect in this worker so that what {@link refusedCommand} and {@link refusedHost}
 * name is refused. ESM imports of node:child_process see the wrappers too (syncBuiltinESMExports),
 * so execa and kop's own modules are covered.
 */
export function installUnitGuard(report: Reporter = defaultReporter()): void {
  if (installed) return;
  installed = true;
  const require = createRequire(import.meta.url);
  const childProcess = require('node:child_process') as Record<string, unknown>;

  // The wrapper keeps the original's own properties: execFile's and exec's util.promisify.custom
  // (promisify(execFile) resolves to { stdout, stderr }, not to stdout alone).
  const wrap = (name: string, guarded: (this: unknown, ...args: unknown[]) => unknown): void => {
    const original = childProcess[name] as object;
    for (const key of Reflect.ownKeys(original)) {
      if (key === 'length' || key === 'name' || key === 'prototype') continue;
      Object.defineProperty(guarded, key, Object.getOwnPropertyDescriptor(original, key)!);
    }
    childProcess[name] = guarded;
  };
  const guardFile = (name: string): void => {
    const original = childProcess[name] as (...args: unknown[]) => unknown;
    wrap(name, function guarded(this: unknown, ...args: unknown[]): unknown {
      const [file, second] = args;
      const argv = Array.isArray(second) ? (second as unknown[]).map(String) : [];
      if (typeof file === 'string') {
        const reason = name === 'fork' ? refusedCommand('node', [file, ...argv]) : refusedCommand(file, argv);
        if (reason) report(reason);
      }
      return original.apply(this, args);
    });
  };
  const guardShell = (name: string): void => {
    const original = childProcess[name] as (...args: unknown[]) => unknown;
    wrap(name, function guarded(this: unknown, ...args: unknown[]): unknown {
      if (typeof args[0] === 'string') {
        const reason = refusedCommand(...splitShell(args[0]));
        if (reason) report(reason);
      }
      return original.apply(this, args);
    });
  };
  for (const name of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'fork']) guardFile(name);
  for (const name of ['exec', 'execSync']) guardShell(name);
  syncBuiltinESMExports();

  const connect = Socket.prototype.connect as (...args: unknown[]) => Socket;
  Socket.prototype.connect = function guardedConnect(this: Socket, ...args: unknown[]): Socket {
    const [first, second] = args;
    let host: string | undefined;
    if (Array.isArray(first)) {
      // net's internal form: [options, callback].
      const options = first[0] as { host?: string; path?: string } | undefined;
      host = options?.path === undefined ? options?.host : undefined;
    } else if (typeof first === 'object' && first !== null) {
      const options = first as { host?: string; path?: string };
      host = options.path === undefined ? options.host : undefined;
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      host = typeof second === 'string' ? second : undefined;
    }
    const reason = refusedHost(host);
    if (reason) report(reason);
    return connect.apply(this, args);
  } as typeof Socket.prototype.connect;
}
