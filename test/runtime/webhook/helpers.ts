import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { CertificateAuthority } from '../../../src/testing/certificates.js';

/** A certificate directory holding tls.crt and tls.key for 127.0.0.1 and localhost, signed by a fresh CA. */
export interface CertDir {
  dir: string;
  ca: CertificateAuthority;
  /** Writes a new serving pair from a new CA (as a rotation would); returns the new CA. */
  rotate(): Promise<CertificateAuthority>;
  remove(): Promise<void>;
}

/** Writes the pair with a rename per file, as a careful writer would (no half-written file is read). */
export async function writePair(dir: string, ca: CertificateAuthority): Promise<void> {
  const leaf = await ca.issue({ commonName: 'webhook', hosts: ['127.0.0.1', 'localhost'], usage: 'server' });
  await writeFile(path.join(dir, '.tls.crt.tmp'), leaf.certPem);
  await writeFile(path.join(dir, '.tls.key.tmp'), leaf.keyPem);
  await rename(path.join(dir, '.tls.crt.tmp'), path.join(dir, 'tls.crt'));
  await rename(path.join(dir, '.tls.key.tmp'), path.join(dir, 'tls.key'));
}

export async function makeCertDir(): Promise<CertDir> {
  const dir = await mkdtemp(path.join(tmpdir(), 'kop-webhook-certs-'));
  const cert: CertDir = {
    dir,
    ca: await CertificateAuthority.create('kop-webhook-test-ca'),
    async rotate() {
      const ca = await CertificateAuthority.create('kop-webhook-test-ca-2');
      await writePair(dir, ca);
      cert.ca = ca;
      return ca;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  await writePair(dir, cert.ca);
  return cert;
}

/** An HTTPS answer. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs `body` (JSON-encoded unless a string or Buffer) to `https://<address><path>`, trusting `caPem`. */
export function post(
  address: string,
  requestPath: string,
  body: unknown,
  options: { ca: string; headers?: Record<string, string>; method?: string; agent?: https.Agent },
): Promise<Answer> {
  const { hostname, port } = new URL(`https://${address}`);
  const data = typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: hostname.replace(/^\[|\]$/g, ''),
        port,
        path: requestPath,
        method: options.method ?? 'POST',
        ca: options.ca,
        agent: options.agent ?? false,
        headers: { 'content-type': 'application/json', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
