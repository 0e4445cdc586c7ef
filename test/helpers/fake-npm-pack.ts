import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { Exec } from '../../src/base/context.js';

/** What a fake `npm pack` produced, and every exec call the fake saw. */
export interface FakeNpmPack {
  exec: Exec;
  calls: { file: string; args: readonly string[]; cwd?: string }[];
  /** Changes what the next packs produce (a newer kop). */
  set(version: string, bytes: Uint8Array): void;
}

/**
 * An exec that does what `npm pack <dir> --pack-destination <dest> --json` does for kop: writes
 * `<dest>/kop-<version>.tgz` (here: the given bytes) and prints npm's JSON report. Any other
 * command succeeds without doing anything, recorded in `calls`.
 */
export function fakeNpmPack(
  version = '0.1.0',
  bytes: Uint8Array = Uint8Array.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 0xff]),
): FakeNpmPack {
  let current = { version, bytes };
  const calls: FakeNpmPack['calls'] = [];
  const exec: Exec = async (file, args, options) => {
    calls.push({ file, args, cwd: options?.cwd });
    if (file === 'npm' && args[0] === 'pack') {
      const destination = args[args.indexOf('--pack-destination') + 1]!;
      const filename = `kop-${current.version}.tgz`;
      await writeFile(path.join(destination, filename), current.bytes);
      return {
        exitCode: 0,
        stdout: JSON.stringify(
          [{ id: `kop@${current.version}`, name: 'kop', version: current.version, filename }],
          null,
          2,
        ),
        stderr: '',
      };
    }
    return { exitCode: 0, stdout: '', stderr: '' };
  };
  return { exec, calls, set: (nextVersion, nextBytes) => void (current = { version: nextVersion, bytes: nextBytes }) };
}
