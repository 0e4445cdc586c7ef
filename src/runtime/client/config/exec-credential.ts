import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { InvalidConfigurationError } from './client-config.js';
import type { KubeconfigCluster, KubeconfigExecConfig } from './kubeconfig.js';

/** The API versions of client.authentication.k8s.io that exec plugins may speak (client-go dropped v1alpha1 in 1.24). */
export const EXEC_CREDENTIAL_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

/** The environment variable that carries the ExecCredential request to a plugin. */
export const EXEC_INFO_ENV = 'KUBERNETES_EXEC_INFO';

/** Name of the cluster extension handed to a plugin as `spec.cluster.config`. */
export const EXEC_CLUSTER_EXTENSION = 'client.authentication.k8s.io/exec';

/** How an exec plugin may use the terminal (`users[].user.exec.interactiveMode`). */
export type ExecInteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** A credential an exec plugin printed: a bearer token, a client certificate and key, or both. */
export interface ExecCredential {
  readonly token?: string;
  /** PEM of the client certificate. */
  readonly clientCertificateData?: string;
  /** PEM of the client certificate's private key. */
  readonly clientKeyData?: string;
  /** When the credential stops being valid; undefined when the plugin gave no expiry. */
  readonly expiresAt?: Date;
}

/** An exec plugin could not be run, failed, or printed something that is not a usable ExecCredential. */
export class ExecPluginError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExecPluginError';
  }
}

/** Inputs of an {@link ExecCredentialProvider}. */
export interface ExecCredentialProviderOptions {
  /** The kubeconfig user's name, for messages. */
  user: string;
  /** The user's `exec` entry (its command already resolved against the kubeconfig's folder). */
  exec: KubeconfigExecConfig;
  /** The context's cluster, described to the plugin when `provideClusterInfo` is true. */
  cluster?: KubeconfigCluster;
  /** Whether standard input is a terminal; default: whether fd 0 is a TTY now. */
  stdinIsTerminal?: () => boolean;
  /**
   * How long a non-interactive run may take before the plugin is killed (SIGKILL, with its
   * process group) and the run fails; default 60 s. A hung plugin would otherwise hold every
   * request that waits for its credential, and the next run could never start.
   */
  timeoutMs?: number;
}

/** Default of {@link ExecCredentialProviderOptions.timeoutMs}. */
export const EXEC_PLUGIN_TIMEOUT_MS = 60_000;

/**
 * Runs a kubeconfig user's exec credential plugin (client.authentication.k8s.io) the way
 * client-go does: with the command and arguments as given (no shell), the process environment
 * plus the plugin's `env` plus `KUBERNETES_EXEC_INFO`, in a child process only (the operator's
 * own environment is never touched). The credential is kept until shortly before it expires,
 * or, without an expiry, until {@link invalidate} (the transport calls it on a 401). Callers
 * that ask while the plugin runs share that run.
 */
export class ExecCredentialProvider {
  readonly apiVersion: string;
  readonly interactiveMode: ExecInteractiveMode;
  private readonly options: ExecCredentialProviderOptions;
  private cached: { credential: ExecCredential; refreshAt: number } | undefined;
  private running: Promise<ExecCredential> | undefined;

  /** Checks the exec entry as client-go's kubeconfig validation does; throws InvalidConfigurationError. */
  constructor(options: ExecCredentialProviderOptions) {
    this.options = options;
    const { exec, user } = options;
    const where = `user "${user}"`;
    if (typeof exec.command !== 'string' || exec.command === '') {
      throw new InvalidConfigurationError(`${where}: exec.command is missing; name the credential plugin to run`);
    }
    const apiVersion = exec.apiVersion;
    if (!apiVersion) {
      throw new InvalidConfigurationError(
        `${where}: exec.apiVersion is missing; write apiVersion: ${EXEC_CREDENTIAL_API_VERSIONS[0]} (or v1beta1, if the plugin only speaks that)`,
      );
    }
    if (apiVersion === 'client.authentication.k8s.io/v1alpha1') {
      throw new InvalidConfigurationError(
        `${where}: exec.apiVersion ${apiVersion} is no longer supported (client-go removed it in Kubernetes 1.24); write apiVersion: ${EXEC_CREDENTIAL_API_VERSIONS[0]} (or v1beta1) and update the plugin if it only prints v1alpha1`,
      );
    }
    if (!(EXEC_CREDENTIAL_API_VERSIONS as readonly string[]).includes(apiVersion)) {
      throw new InvalidConfigurationError(
        `${where}: exec.apiVersion "${apiVersion}" is not one of ${EXEC_CREDENTIAL_API_VERSIONS.join(', ')}`,
      );
    }
    this.apiVersion = apiVersion;
    const mode = exec.interactiveMode;
    if (mode === undefined || mode === '') {
      // v1 made the field required; v1beta1 plugins predate it and get client-go's default.
      if (apiVersion.endsWith('/v1')) {
        throw new InvalidConfigurationError(
          `${where}: exec.interactiveMode is required with ${apiVersion}; write interactiveMode: Never (an operator has no terminal), IfAvailable or Always`,
        );
      }
      this.interactiveMode = 'IfAvailable';
    } else if (mode === 'Never' || mode === 'IfAvailable' || mode === 'Always') {
      this.interactiveMode = mode;
    } else {
      throw new InvalidConfigurationError(
        `${where}: exec.interactiveMode "${String(mode)}" is not one of Never, IfAvailable, Always`,
      );
    }
    if (exec.args !== undefined && (!Array.isArray(exec.args) || exec.args.some((a) => typeof a !== 'string'))) {
      throw new InvalidConfigurationError(`${where}: exec.args must be a list of strings`);
    }
    for (const [i, entry] of (exec.env ?? []).entries()) {
      if (!entry || typeof entry.name !== 'string' || entry.name === '') {
        throw new InvalidConfigurationError(`${where}: exec.env[${i}] has no name`);
      }
    }
  }

  /** The current credential: the cached one while it is fresh, else the result of running the plugin (one run at a time). */
  credential(): Promise<ExecCredential> {
    const cached = this.cached;
    if (cached && Date.now() < cached.refreshAt) return Promise.resolve(cached.credential);
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /**
   * Forgets the cached credential (the server refused it), so the next call runs the plugin.
   * A run under way is kept: its credential is new anyway, and concurrent 401s then share it.
   */
  invalidate(): void {
    this.cached = undefined;
  }

  private async run(): Promise<ExecCredential> {
    const { exec, user } = this.options;
    const interactive = this.isInteractive();
    const request: Record<string, unknown> = { interactive };
    if (exec.provideClusterInfo === true && this.options.cluster) request.cluster = clusterInfo(this.options.cluster);
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const { name, value } of exec.env ?? []) env[name] = value ?? '';
    env[EXEC_INFO_ENV] = JSON.stringify({ apiVersion: this.apiVersion, kind: 'ExecCredential', spec: request });

    const { spawn } = await import('node:child_process');
    const fetchedAt = Date.now();
    let timedOut = false;
    const { stdout, stderrTail, code, signal, error } = await new Promise<PluginResult>((resolve) => {
      // Interactive: the plugin gets the terminal (it may prompt on stderr and read stdin), as
      // with kubectl. Otherwise stdin is closed, and stderr goes through a pipe: each chunk is
      // passed on to the operator's stderr, as client-go does, so the plugin's warnings reach
      // the logs, and its tail is kept for the error message, where a failure is read first.
      const child = spawn(exec.command, exec.args ?? [], {
        env,
        stdio: [interactive ? 'inherit' : 'ignore', 'pipe', interactive ? 'inherit' : 'pipe'],
        windowsHide: true,
        // Its own process group, so a timeout also ends what a wrapper script started.
        detached: !interactive && process.platform !== 'win32',
      });
      // In its own process group the plugin would outlive this process: end it when this process exits.
      const killOnExit = (): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      if (!interactive && process.platform !== 'win32') process.once('exit', killOnExit);
      const timeoutMs = this.options.timeoutMs ?? EXEC_PLUGIN_TIMEOUT_MS;
      const timer =
        interactive || timeoutMs <= 0
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              try {
                if (child.pid !== undefined && process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
                else child.kill('SIGKILL');
              } catch {
                child.kill('SIGKILL');
              }
            }, timeoutMs);
      const out: Buffer[] = [];
      let tail = '';
      let spawnError: NodeJS.ErrnoException | undefined;
      child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        process.stderr.write(chunk);
        tail = (tail + chunk).slice(-STDERR_TAIL_CHARS * 2);
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        spawnError = err;
      });
      child.on('close', (exitCode, exitSignal) => {
        if (timer) clearTimeout(timer);
        process.off('exit', killOnExit);
        resolve({
          stdout: Buffer.concat(out).toString('utf8'),
          stderrTail: tail,
          code: exitCode,
          signal: exitSignal,
          error: spawnError,
        });
      });
    });

    const name = `exec plugin "${exec.command}" of user "${user}"`;
    if (error) {
      if (error.code === 'ENOENT') {
        const hint = exec.installHint ? `\n${exec.installHint.trim()}` : '';
        throw new ExecPluginError(
          `${name}: executable not found (looked up in PATH unless it contains a path separator); install it or fix users[].user.exec.command${hint}`,
          {
            cause: error,
          },
        );
      }
      if (error.code === 'EACCES')
        throw new ExecPluginError(`${name}: permission denied; is the file executable?`, { cause: error });
      throw new ExecPluginError(`${name}: could not start: ${error.message}`, { cause: error });
    }
    if (timedOut) {
      throw new ExecPluginError(
        `${name} did not finish within ${this.options.timeoutMs ?? EXEC_PLUGIN_TIMEOUT_MS} ms and was killed; check what it waits for (a login prompt, an unreachable identity provider)`,
      );
    }
    if (code !== 0) {
      const how = signal ? `was killed by ${signal}` : `failed with exit code ${code}`;
      const said = stderrTail.trim();
      const output = interactive
        ? ' (its output is above)'
        : said
          ? `; it said:\n${said.length > STDERR_TAIL_CHARS ? '…' + said.slice(-STDERR_TAIL_CHARS) : said}`
          : ' and printed nothing on stderr';
      throw new ExecPluginError(`${name} ${how}${output}`);
    }
    const credential = parseExecCredential(stdout, this.apiVersion, name);
    const expiresAt = credential.expiresAt?.getTime();
    if (expiresAt === undefined) {
      this.cached = { credential, refreshAt: Infinity };
    } else {
      // Run again a little before the expiry, so a request never leaves with a credential that
      // lapses on its way: 10% of the lifetime, at most a minute.
      const margin = Math.min(60_000, Math.max(0, (expiresAt - fetchedAt) / 10));
      this.cached = { credential, refreshAt: expiresAt - margin };
    }
    return credential;
  }

  private isInteractive(): boolean {
    if (this.interactiveMode === 'Never') return false;
    const terminal = (this.options.stdinIsTerminal ?? stdinIsTerminal)();
    if (!terminal && this.interactiveMode === 'Always') {
      throw new ExecPluginError(
        `exec plugin "${this.options.exec.command}" of user "${this.options.user}" needs a terminal (interactiveMode: Always) but standard input is not one; use a plugin setup that runs with interactiveMode: Never in an operator`,
      );
    }
    return terminal;
  }
}

/** Characters of a failed plugin's stderr kept in the error message. */
const STDERR_TAIL_CHARS = 2000;

interface PluginResult {
  stdout: string;
  stderrTail: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  error: NodeJS.ErrnoException | undefined;
}

/** Whether fd 0 is a terminal, asked of the descriptor (reading process.stdin would open a stream on it). */
function stdinIsTerminal(): boolean {
  return isatty(0);
}

/**
 * Parses what an exec plugin printed: an ExecCredential of the configured API version with a
 * token and/or a client certificate and key. Throws ExecPluginError saying what is wrong.
 */
export function parseExecCredential(stdout: string, apiVersion: string, name = 'exec plugin'): ExecCredential {
  let document: unknown;
  try {
    document = JSON.parse(stdout);
  } catch (cause) {
    // Never echo the output: a plugin that prints its credential in the wrong form would have it logged.
    void cause;
    const shown = stdout.trim() === '' ? 'nothing' : `${Buffer.byteLength(stdout)} bytes that are not JSON`;
    throw new ExecPluginError(
      `${name} printed ${shown} on stdout (not shown: it may hold a credential); it must print an ExecCredential as JSON`,
    );
  }
  if (!isRecord(document))
    throw new ExecPluginError(`${name} printed JSON that is not an object; it must print an ExecCredential`);
  if (document.kind !== 'ExecCredential')
    throw new ExecPluginError(`${name} printed kind ${JSON.stringify(document.kind ?? null)}, not ExecCredential`);
  if (document.apiVersion !== apiVersion) {
    throw new ExecPluginError(
      `${name} is configured with apiVersion ${apiVersion} but printed apiVersion ${JSON.stringify(document.apiVersion ?? null)}`,
    );
  }
  const status = document.status;
  if (!isRecord(status)) throw new ExecPluginError(`${name} printed an ExecCredential without a status`);
  const field = (key: string): string | undefined => {
    const value = status[key];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') throw new ExecPluginError(`${name} printed status.${key} that is not a string`);
    return value;
  };
  const token = field('token');
  const clientCertificateData = field('clientCertificateData');
  const clientKeyData = field('clientKeyData');
  if (!token && !clientCertificateData && !clientKeyData) {
    throw new ExecPluginError(
      `${name} printed an ExecCredential with neither status.token nor status.clientCertificateData and status.clientKeyData`,
    );
  }
  if (!clientCertificateData !== !clientKeyData) {
    const missing = clientCertificateData ? 'clientKeyData' : 'clientCertificateData';
    throw new ExecPluginError(
      `${name} printed a client ${clientCertificateData ? 'certificate' : 'key'} without status.${missing}; both are needed`,
    );
  }
  const expiry = field('expirationTimestamp');
  let expiresAt: Date | undefined;
  if (expiry !== undefined) {
    expiresAt = RFC3339.test(expiry) ? new Date(expiry) : undefined;
    if (!expiresAt || Number.isNaN(expiresAt.getTime())) {
      throw new ExecPluginError(
        `${name} printed status.expirationTimestamp ${JSON.stringify(expiry)}, which is not an RFC 3339 time such as 2030-01-02T15:04:05Z`,
      );
    }
  }
  return {
    ...(token ? { token } : {}),
    ...(clientCertificateData ? { clientCertificateData, clientKeyData } : {}),
    ...(expiresAt ? { expiresAt } : {}),
  };
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `spec.cluster` of the ExecCredential a plugin is handed (client.authentication.k8s.io's Cluster). */
function clusterInfo(cluster: KubeconfigCluster): Record<string, unknown> {
  const info: Record<string, unknown> = { server: cluster.server };
  if (cluster.tlsServerName) info['tls-server-name'] = cluster.tlsServerName;
  if (cluster.skipTLSVerify) info['insecure-skip-tls-verify'] = true;
  let ca = cluster.caData;
  if (!ca && cluster.caFile) {
    try {
      ca = readFileSync(cluster.caFile).toString('base64');
    } catch (cause) {
      throw new InvalidConfigurationError(
        `cannot read certificate authority ${cluster.caFile} for the exec plugin: ${(cause as Error).message}`,
        { cause },
      );
    }
  }
  if (ca) info['certificate-authority-data'] = ca;
  if (cluster.proxyUrl) info['proxy-url'] = cluster.proxyUrl;
  const config = cluster.extensions?.[EXEC_CLUSTER_EXTENSION];
  if (config !== undefined) info.config = config;
  return info;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
