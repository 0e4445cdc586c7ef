import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import tls from 'node:tls';
import type { Logger } from '../util/logger.js';

/** A serving certificate chain and its key, PEM encoded. */
export interface KeyPair {
  cert: string;
  key: string;
}

/** Options of {@link CertificateWatcher}. */
export interface CertificateWatcherOptions {
  certDir: string;
  certName: string;
  keyName: string;
  /** How often the files are read again in case no change event came (network volumes, missed events); default 10 s. */
  pollIntervalMs?: number;
  logger: Logger;
  /** Who serves with it, for messages; default `webhook server`. */
  server?: string;
  /** What to do when the pair cannot be read; default names the webhook server's options and flags. */
  missingHint?: string;
  /** Called with each new valid pair (not with the first one, which `load` returns). */
  onChange: (pair: KeyPair) => void;
}

/**
 * Keeps the serving certificate current: cert-manager (or a mounted Secret's atomic symlink
 * swap) rewrites the files in place, and the server must pick up the new pair without a restart.
 * Changes are noticed by fs.watch on the directory, and by a periodic read as a fallback. A new
 * pair that does not load (half written, key not matching) is logged and the old one kept;
 * the next change or poll tries again.
 */
export class CertificateWatcher {
  private current: KeyPair | undefined;
  private rejected: string | undefined;
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: CertificateWatcherOptions) {}

  private get server(): string {
    return this.options.server ?? 'webhook server';
  }

  get certPath(): string {
    return path.join(this.options.certDir, this.options.certName);
  }

  get keyPath(): string {
    return path.join(this.options.certDir, this.options.keyName);
  }

  /** Reads the pair once and checks it loads; throws with what to do when it does not. */
  async load(): Promise<KeyPair> {
    let pair: KeyPair;
    try {
      pair = await this.read();
    } catch (error) {
      throw new Error(
        `${this.server}: cannot read the serving certificate and key (${this.certPath}, ${this.keyPath}): ${(error as Error).message}; ` +
          (this.options.missingHint ??
            'mount them there (cert-manager Secret) or set webhookServer.certDir, certName, keyName (--webhook-cert-path, --webhook-cert-name, --webhook-cert-key)'),
        { cause: error },
      );
    }
    try {
      checkPair(pair);
    } catch (error) {
      throw new Error(
        `${this.server}: the serving certificate ${this.certPath} and key ${this.keyPath} do not load: ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.current = pair;
    return pair;
  }

  /** Starts watching the files (call after `load`). */
  start(): void {
    try {
      this.watcher = watch(this.options.certDir, { persistent: false }, () => this.schedule());
      this.watcher.on('error', (error) => {
        this.options.logger.warn('cannot watch the certificate directory; polling only', {
          dir: this.options.certDir,
          error: error.message,
        });
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch (error) {
      this.options.logger.warn('cannot watch the certificate directory; polling only', {
        dir: this.options.certDir,
        error: (error as Error).message,
      });
    }
    this.timer = setInterval(() => void this.check(), this.options.pollIntervalMs ?? 10_000);
    this.timer.unref();
  }

  /** Stops watching. */
  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    clearInterval(this.timer);
    clearTimeout(this.debounce);
  }

  /** Reads the files now and applies a changed, valid pair; resolves when done (tests and the poll use it). */
  check(): Promise<void> {
    this.reading ??= this.reload().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /** Writers touch several files in a burst (cert, then key, then the ..data symlink): read once it settles. */
  private schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.debounce);
    this.debounce = setTimeout(() => void this.check(), 50);
    this.debounce.unref();
  }

  private async reload(): Promise<void> {
    if (this.stopped) return;
    let pair: KeyPair;
    try {
      pair = await this.read();
    } catch (error) {
      this.reject(`${(error as Error).message}`, '');
      return;
    }
    if (this.current && pair.cert === this.current.cert && pair.key === this.current.key) return;
    try {
      checkPair(pair);
    } catch (error) {
      this.reject((error as Error).message, pair.cert + pair.key);
      return;
    }
    this.current = pair;
    this.rejected = undefined;
    this.options.logger.info('serving certificate reloaded', { server: this.server, cert: this.certPath });
    this.options.onChange(pair);
  }

  /** Logs a pair that does not load, once per distinct content, and keeps serving the old one. */
  private reject(reason: string, content: string): void {
    const id = `${reason}\n${content}`;
    if (this.rejected === id) return;
    this.rejected = id;
    this.options.logger.error('new serving certificate does not load; still serving the previous one', {
      cert: this.certPath,
      key: this.keyPath,
      error: reason,
    });
  }

  private async read(): Promise<KeyPair> {
    const [cert, key] = await Promise.all([readFile(this.certPath, 'utf8'), readFile(this.keyPath, 'utf8')]);
    return { cert, key };
  }
}

/**
 * Throws when the certificate or key is empty, does not parse, or the key is not the certificate's.
 * The emptiness check comes first because createSecureContext takes an empty string as "none"
 * without complaint: a file caught mid-write (truncated, not yet filled) would otherwise be
 * swapped in as a context with no key, and every handshake would fail.
 */
function checkPair(pair: KeyPair): void {
  if (!pair.cert.trim()) throw new Error('the certificate file is empty');
  if (!pair.key.trim()) throw new Error('the key file is empty');
  tls.createSecureContext({ cert: pair.cert, key: pair.key });
}
