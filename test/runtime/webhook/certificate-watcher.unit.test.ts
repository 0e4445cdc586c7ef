// The certificate watcher on its own: which pairs on disk it swaps in and which it refuses.
import { readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import tls from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { CertificateWatcher, type KeyPair } from '../../../src/runtime/webhook/certificate-watcher.js';
import { silentLogger, type Logger } from '../../../src/runtime/index.js';
import { makeCertDir, writePair, type CertDir } from './helpers.js';

let certs: CertDir | undefined;
afterEach(async () => {
  await certs?.remove();
  certs = undefined;
});

function errorsOf(lines: string[]): Logger {
  const logger: Logger = {
    ...silentLogger,
    error: (message: string, fields?: Record<string, unknown>) =>
      void lines.push(`${message} ${String(fields?.error)}`),
    child: () => logger,
  };
  return logger;
}

async function watcherOn(dir: string, lines: string[], changes: KeyPair[]): Promise<CertificateWatcher> {
  const watcher = new CertificateWatcher({
    certDir: dir,
    certName: 'tls.crt',
    keyName: 'tls.key',
    logger: errorsOf(lines),
    onChange: (pair) => void changes.push(pair),
  });
  await watcher.load();
  return watcher;
}

describe('CertificateWatcher', () => {
  // Node's createSecureContext takes an empty key as "no key" and does not throw: the watcher
  // must not take that as a valid pair, or the server would lose its key and fail every handshake.
  it.each([
    ['key', 'tls.key'],
    ['certificate', 'tls.crt'],
  ])('refuses a pair whose %s file is caught empty mid-write, and keeps the old one', async (what, file) => {
    certs = await makeCertDir();
    const lines: string[] = [];
    const changes: KeyPair[] = [];
    const watcher = await watcherOn(certs.dir, lines, changes);
    await writeFile(path.join(certs.dir, file), '');
    await watcher.check();
    expect(changes).toEqual([]);
    expect(lines).toEqual([
      `new serving certificate does not load; still serving the previous one the ${what === 'key' ? 'key' : 'certificate'} file is empty`,
    ]);
    // Written in full afterwards: taken, and the new pair makes a working context.
    await writePair(certs.dir, certs.ca);
    await watcher.check();
    expect(changes).toHaveLength(1);
    expect(() => tls.createSecureContext({ cert: changes[0]!.cert, key: changes[0]!.key })).not.toThrow();
    watcher.stop();
  });

  it('refuses at start a pair whose key is empty, saying which files', async () => {
    certs = await makeCertDir();
    await writeFile(path.join(certs.dir, 'tls.key'), '');
    await expect(watcherOn(certs.dir, [], [])).rejects.toThrow(/tls\.key do not load: the key file is empty/);
  });

  it('refuses a key of another certificate', async () => {
    certs = await makeCertDir();
    const lines: string[] = [];
    const changes: KeyPair[] = [];
    const watcher = await watcherOn(certs.dir, lines, changes);
    const other = await makeCertDir();
    try {
      await writeFile(path.join(certs.dir, 'tls.key'), await readFile(path.join(other.dir, 'tls.key'), 'utf8'));
    } finally {
      await other.remove();
    }
    await watcher.check();
    expect(changes).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/key values mismatch/);
    watcher.stop();
  });
});
