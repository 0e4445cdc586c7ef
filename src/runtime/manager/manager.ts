import type { Client } from '../client/client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import type { ResourceType } from '../client/resource/options.js';
import type { RestClientOptions } from '../client/rest/rest-client.js';
import { RestClient } from '../client/rest/rest-client.js';
import { apiVersionOf } from '../client/resource/options.js';
import { ResourceClient } from '../client/resource/resource-client.js';
import { ApiClient } from '../client/client.js';
import { CacheReader } from '../cache/cache-reader.js';
import type { Controller } from '../controller/controller.js';
import { ControllerBuilder } from '../controller/builder.js';
import { EventRecorder } from '../controller/event-recorder.js';
import { ProbeServer, parseBindAddress } from './http-server.js';
import type { InformerOptions } from '../cache/informer.js';
import { Informer, stripManagedFields } from '../cache/informer.js';
import { LeaderElector } from './leader-election.js';
import type { Lister } from '../cache/lister.js';
import type { Logger } from '../util/logger.js';
import { createLogger } from '../util/logger.js';
import { ManagerMetrics } from './metrics.js';
import { MetricsAccessFilter } from './metrics-auth.js';
import { MetricsServer, type MetricsServerOptions } from './metrics-server.js';
import type { KubernetesObject as AnyObject } from '../client/types/meta.js';
import { ConversionBuilder, WebhookBuilder, type WebhookRegistrar } from '../webhook/builder.js';
import { ConversionRegistry, type SpokeConversion } from '../webhook/conversion.js';
import type { WebhookHandler } from '../webhook/webhook-handler.js';
import { WebhookServer, type WebhookServerOptions } from '../webhook/webhook-server.js';

import { answerHealthChecks, type HealthCheck } from './health-checks.js';

export type { HealthCheck } from './health-checks.js';

/** Options of {@link Manager}. */
export interface ManagerOptions {
  /** REST client to use; otherwise one is loaded from `kubeconfig` (or the usual loading order). */
  rest?: RestClient;
  /** Kubeconfig path (the `--kubeconfig` flag). */
  kubeconfig?: string;
  /**
   * Options of the REST client loaded from `kubeconfig` (ignored when `rest` is given), such as
   * a client-side limit (`--kube-api-qps`, `--kube-api-burst`); by default there is none.
   */
  clientOptions?: RestClientOptions;
  /** Cache only this namespace; default all namespaces. */
  namespace?: string;
  /**
   * Kinds `manager.client` always reads from the apiserver instead of the cache (controller-runtime's
   * `Client.Cache.DisableFor`): kinds with many large objects the operator reads rarely, such as Secrets.
   */
  uncachedTypes?: readonly ResourceType[];
  /** Where /metrics is served (`--metrics-bind-address`); default ':8443'; '0' disables. */
  metricsBindAddress?: string;
  /**
   * Serve /metrics over HTTPS and let only users the apiserver authorises read it (`--metrics-secure`,
   * default true): each request's bearer token is checked with a TokenReview and the user with a
   * SubjectAccessReview for `get` on the non-resource URL `/metrics`, decisions cached briefly, as
   * controller-runtime's `WithAuthenticationAndAuthorization` filter does. false: plain HTTP, no checks.
   */
  metricsSecure?: boolean;
  /**
   * The secure metrics server's certificate (`--metrics-cert-path`, `--metrics-cert-name`,
   * `--metrics-cert-key`): read from `certDir` and reloaded when it changes; without `certDir`,
   * a self-signed certificate is made in memory at start.
   */
  metricsServer?: MetricsServerOptions;
  /** Where /healthz and /readyz are served (`--health-probe-bind-address`); default ':8081'; '0' disables. */
  healthProbeBindAddress?: string;
  /** Run controllers only while holding a Lease (`--leader-elect`). */
  leaderElection?: boolean;
  /** Lease name; required for leader election (e.g. `<project>-leader`). */
  leaderElectionId?: string;
  /** Lease namespace; default the in-cluster namespace, the kubeconfig's, or `default`. */
  leaderElectionNamespace?: string;
  /** Identity of this replica in the Lease; default `<hostname>_<uuid>`. */
  leaderElectionIdentity?: string;
  /** Lease duration (default 15 s), renew deadline (10 s), retry period (2 s). */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /**
   * How long shutdown waits for reconciles in flight (`--graceful-shutdown-timeout`); default 30 s.
   * When it passes with reconciles still running, `start()` rejects with
   * {@link GracefulShutdownTimeoutError}. Keep the pod's terminationGracePeriodSeconds longer.
   */
  gracefulShutdownTimeoutMs?: number;
  /** After how long a failing list or watch makes /readyz fail (check `informers-healthy`); default 2 min. */
  informerFailureReadinessMs?: number;
  /** How long start waits for caches to sync before failing; default 2 min. */
  cacheSyncTimeoutMs?: number;
  /**
   * Keep `metadata.managedFields` in cached objects; default false: they are dropped (see
   * stripManagedFields), which roughly halves the cache's memory.
   */
  cacheManagedFields?: boolean;
  /**
   * Informer defaults (silent-watch timeout, ...). `resyncPeriodMs` defaults to 10 hours plus up
   * to 10% jitter per informer, controller-runtime's SyncPeriod: every object is reconciled again
   * that often, a safety net for drift no event reports; 0 turns it off.
   */
  informerDefaults?: Pick<
    InformerOptions<KubernetesObject>,
    'resyncPeriodMs' | 'silentWatchTimeoutMs' | 'watchTimeoutSeconds' | 'listPageSize'
  >;
  /**
   * The webhook server (admission and conversion webhooks): where it listens (default all
   * interfaces, port 9443) and where the serving certificate is (default
   * `/tmp/k8s-webhook-server/serving-certs/tls.crt` and `tls.key`). It starts only when a webhook
   * or conversion is registered.
   */
  webhookServer?: WebhookServerOptions;
  logger?: Logger;
  metrics?: ManagerMetrics;
}

/** controller-runtime's default SyncPeriod. */
const DEFAULT_RESYNC_MS = 10 * 3_600_000;

/** The manager lost its lease: another replica may be reconciling now, so this one must exit. */
export class LeaderElectionLostError extends Error {
  constructor(lease: string) {
    super(`leader election lost for lease ${lease}`);
    this.name = 'LeaderElectionLostError';
  }
}

/**
 * The graceful shutdown deadline passed while reconciles were still running: their signals were
 * aborted and the manager stopped without them (controller-runtime's Start returns an error
 * then too). `abandoned` counts them per controller; the work is retried by whichever replica
 * reconciles next, since reconciles are level-based.
 */
export class GracefulShutdownTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly abandoned: ReadonlyArray<{ controller: string; reconciles: number }>,
  ) {
    const total = abandoned.reduce((sum, a) => sum + a.reconciles, 0);
    super(
      `graceful shutdown deadline of ${timeoutMs / 1000} s passed with ${total} reconcile${total === 1 ? '' : 's'} still running ` +
        `(${abandoned.map((a) => `${a.controller}: ${a.reconciles}`).join(', ')}); their signals were aborted`,
    );
    this.name = 'GracefulShutdownTimeoutError';
  }
}

/**
 * Runs an operator: one shared informer per kind, the controllers, leader election, probes and
 * metrics. `start` serves /healthz, /readyz and /metrics, starts and syncs the caches, waits for
 * the lease when leader election is on (a standby never reconciles), starts the controllers, and
 * runs until `stop` (or SIGTERM with `handleSignals`), then shuts down gracefully: no new work,
 * reconciles in flight finish within the deadline, the lease is released.
 */
export class Manager {
  readonly logger: Logger;
  readonly metrics: ManagerMetrics;
  private readonly informers = new Map<string, Informer<KubernetesObject>>();
  private readonly controllers: Controller[] = [];
  private readonly healthChecks = new Map<string, HealthCheck>([['ping', () => true]]);
  private readonly readyChecks = new Map<string, HealthCheck>();
  private readonly servers: Array<{ close(): Promise<void> }> = [];
  private readonly stopController = new AbortController();
  private elector: LeaderElector | undefined;
  private started = false;
  private startedInformers = false;
  private controllersStarted = false;
  private stopping: Promise<void> | undefined;
  private signalsHandled = false;
  /** Set when the lease was lost: another replica may already reconcile, so in-flight work is not waited for. */
  private skipGracefulShutdown = false;
  private restClient: RestClient | undefined;
  private cachedClient: Client | undefined;
  private liveClient: Client | undefined;
  /** Bound address of the metrics server once started (`host:port`). */
  metricsAddress: string | undefined;
  private metricsServerInstance: MetricsServer | undefined;
  /** Reconciles abandoned at the shutdown deadline, per controller; set by the shutdown. */
  private abandoned: Array<{ controller: string; reconciles: number }> = [];
  /**
   * The URL of the metrics endpoint once started: `https://<host>:<port>/metrics` by default,
   * `http://` with `metricsSecure: false`; undefined when metrics are off.
   */
  get metricsUrl(): string | undefined {
    const server = this.metricsServerInstance;
    if (!server?.address) return undefined;
    return `${server.scheme}://${server.address.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:')}/metrics`;
  }

  /** Reads the metrics certificate files now and serves a changed valid pair (a watcher does this on its own too). */
  async reloadMetricsCertificate(): Promise<void> {
    await this.metricsServerInstance?.reloadCertificate();
  }

  /** Bound address of the probe server once started (`host:port`). */
  healthProbeAddress: string | undefined;
  /** Bound address of the webhook server once started (`host:port`); undefined when no webhook is registered. */
  webhookAddress: string | undefined;
  private webhooks: WebhookServer | undefined;
  private conversions: ConversionRegistry | undefined;

  constructor(private readonly options: ManagerOptions = {}) {
    this.restClient = options.rest;
    this.logger = options.logger ?? createLogger();
    this.metrics = options.metrics ?? new ManagerMetrics();
    this.readyChecks.set('informers-synced', () => {
      const pending = [...this.informers.values()].filter((i) => !i.hasSynced()).map((i) => i.name);
      if (pending.length > 0) throw new Error(`caches not synced: ${pending.join(', ')}`);
    });
    // Retries hide a watch that keeps failing (malformed events, a list that never ends, an
    // apiserver gone): readiness says so after a while. Liveness stays a plain ping.
    const failingAfterMs = options.informerFailureReadinessMs ?? 120_000;
    this.readyChecks.set('informers-healthy', () => {
      const failing = [...this.informers.values()].filter((i) => i.failingForMs >= failingAfterMs);
      if (failing.length > 0) {
        throw new Error(
          `list or watch failing for over ${failingAfterMs / 1000} s: ${failing.map((i) => `${i.name} (${errorText(i.lastError)})`).join(', ')}`,
        );
      }
    });
  }

  /**
   * The REST client of this manager: the one given, or one loaded from `kubeconfig` (then
   * KUBECONFIG, in-cluster, ~/.kube/config) on first use, so a manager without controllers can
   * serve its probes with no cluster configured.
   */
  get rest(): RestClient {
    this.restClient ??= RestClient.load({ kubeconfig: this.options.kubeconfig }, this.options.clientOptions);
    return this.restClient;
  }

  /**
   * The client reconcilers use, as controller-runtime's `manager.GetClient()`: reads of a kind
   * come from the shared informer cache (the first read of a kind starts its informer and waits
   * for it to sync; before the manager starts, and for `uncachedTypes`, reads go to the
   * apiserver), writes go to the apiserver.
   */
  get client(): Client {
    if (!this.cachedClient) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the client's callbacks name the manager they read from
      const manager = this;
      const uncached = this.options.uncachedTypes ?? [];
      const reader = new CacheReader({
        informerFor: (type) => manager.informerFor(type),
        get informersStarted() {
          return manager.startedInformers;
        },
        isUncached: (type) =>
          uncached.some((t) => t.group === type.group && t.version === type.version && t.resource === type.resource),
        live: this.apiReader,
      });
      this.cachedClient = new ApiClient(this.rest, reader);
    }
    return this.cachedClient;
  }

  /** A client that always reads from the apiserver (controller-runtime's `GetAPIReader()`), for reads that must not be stale. */
  get apiReader(): Client {
    this.liveClient ??= new ApiClient(this.rest);
    return this.liveClient;
  }

  /** True once `start` has started the informers: cached reads are served from then on. */
  get informersStarted(): boolean {
    return this.startedInformers;
  }

  /** The shared informer of a kind (created on first use; started with the manager). */
  informerFor<T extends KubernetesObject>(type: ResourceType<T>): Informer<T> {
    const id = `${apiVersionOf(type)}/${type.resource}`;
    let informer = this.informers.get(id);
    if (!informer) {
      const namespace = type.namespaced ? this.options.namespace : undefined;
      const source = new ResourceClient<KubernetesObject>(this.rest, type, namespace);
      const name = `${type.kind}.${type.group || 'core'}`;
      informer = new Informer<KubernetesObject>(source, {
        ...this.options.informerDefaults,
        resyncPeriodMs:
          this.options.informerDefaults?.resyncPeriodMs ?? Math.round(DEFAULT_RESYNC_MS * (1 + Math.random() / 10)),
        transform: this.options.cacheManagedFields ? undefined : stripManagedFields,
        namespace,
        name,
        notServedMessage: notServedMessage(type),
        logger: this.logger,
        onWatchRestart: (reason) => this.metrics.watchRestarted(name, reason),
      });
      this.informers.set(id, informer);
      if (this.startedInformers) informer.start();
    }
    return informer as unknown as Informer<T>;
  }

  /** Cached read access to a kind. */
  lister<T extends KubernetesObject>(type: ResourceType<T>): Lister<T> {
    return this.informerFor<T>(type).lister;
  }

  /** Starts building a controller named `name` (lower-case kind, by convention). */
  controller(name: string): ControllerBuilder {
    return new ControllerBuilder(this, name);
  }

  /**
   * Starts building the admission webhooks of a kind (controller-runtime's
   * `ctrl.NewWebhookManagedBy(mgr).For(obj)`): `.withDefaulter(d).withValidator(v).complete()`.
   * Register before `start`; the webhook server runs on every replica, leader or not.
   */
  webhook<T extends KubernetesObject>(type: ResourceType<T>): WebhookBuilder<T> {
    return new WebhookBuilder(type, this.webhookRegistrar);
  }

  /**
   * Starts building the conversion webhook of a kind, `hub` being its storage version:
   * `.spoke(otherVersionType, { convertTo, convertFrom }).complete()`, served on `/convert`.
   */
  conversion<Hub extends KubernetesObject>(hub: ResourceType<Hub>): ConversionBuilder<Hub> {
    return new ConversionBuilder(hub, this.webhookRegistrar);
  }

  private get webhookRegistrar(): WebhookRegistrar {
    return {
      registerWebhooks: (routes: ReadonlyArray<readonly [string, WebhookHandler]>) => {
        const server = this.webhookServerForRegistration();
        const taken = routes.filter(
          ([path], i) => server.paths.includes(path) || routes.findIndex(([p]) => p === path) !== i,
        );
        if (taken.length > 0)
          throw new Error(`webhook path ${taken[0]![0]} is registered already; give each webhook its own path`);
        for (const [path, handler] of routes) server.register(path, handler);
      },
      registerConversion: (
        hub: ResourceType,
        spokes: ReadonlyMap<ResourceType, SpokeConversion<AnyObject, AnyObject>>,
      ) => {
        const server = this.webhookServerForRegistration();
        if (!this.conversions) {
          if (server.paths.includes('/convert'))
            throw new Error('webhook path /convert is registered already; it is where conversions are served');
          const registry = new ConversionRegistry();
          registry.register(hub, spokes);
          this.conversions = registry;
          server.register('/convert', (call) => registry.handle(call));
          return;
        }
        this.conversions.register(hub, spokes);
      },
    };
  }

  private webhookServerForRegistration(): WebhookServer {
    if (this.started)
      throw new Error(
        'register webhooks and conversions before manager.start(): the webhook server starts with the manager',
      );
    this.webhooks ??= new WebhookServer(this.options.webhookServer, {
      logger: this.logger.child({ component: 'webhook-server' }),
      metrics: this.metrics,
    });
    return this.webhooks;
  }

  /** Registers a controller to start once caches are synced (and the lease is held). Names must be unique. */
  add(controller: Controller): void {
    this.checkControllerName(controller.name);
    this.controllers.push(controller);
    if (this.controllersStarted) controller.start();
  }

  /**
   * Throws when a controller named `name` is registered already: names label the metrics and
   * logs, so two controllers with one name would be indistinguishable (controller-runtime refuses them too).
   */
  checkControllerName(name: string): void {
    if (this.controllers.some((c) => c.name === name))
      throw new Error(`a controller named "${name}" is registered already; give each controller its own name`);
  }

  /** An event recorder that reports as `component` (e.g. `rediscluster-controller`). */
  eventRecorder(component: string): EventRecorder {
    return new EventRecorder({ rest: this.rest, component, logger: this.logger });
  }

  /** Adds a liveness check served on /healthz. */
  addHealthCheck(name: string, check: HealthCheck): void {
    this.healthChecks.set(name, check);
  }

  /** Adds a readiness check served on /readyz (caches synced is built in). */
  addReadyCheck(name: string, check: HealthCheck): void {
    this.readyChecks.set(name, check);
  }

  /** True while this manager's controllers may run (leader, or leader election off). */
  get isLeader(): boolean {
    return this.controllersStarted;
  }

  /** Stops gracefully on SIGTERM and SIGINT; a second signal exits at once. */
  handleSignals(): void {
    if (this.signalsHandled) return;
    this.signalsHandled = true;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (this.stopping) {
        this.logger.warn('second signal, exiting immediately', { signal });
        process.exit(1);
      }
      this.logger.info('shutting down', { signal });
      void this.stop();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }

  /**
   * Runs the manager until stopped. Resolves after a graceful shutdown; rejects when caches do
   * not sync in time or the leader lease is lost (the process should then exit and restart).
   */
  async start(): Promise<void> {
    if (this.started || this.stopping) throw new Error('a manager can be started once');
    this.started = true;
    const signal = this.stopController.signal;
    try {
      await this.startServers();
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.startedInformers = true;
    for (const informer of this.informers.values()) informer.start();
    try {
      await this.waitForCaches(signal);
      if (signal.aborted) return await this.stopping; // eslint-disable-line @typescript-eslint/await-thenable -- set by stop() meanwhile; TS keeps start()'s narrowing to undefined
      this.logger.info('caches synced', { informers: [...this.informers.values()].map((i) => i.name) });
      let lost: Promise<'lost' | 'stopped'> | undefined;
      if (this.options.leaderElection) {
        const elector = this.createElector();
        try {
          await elector.acquire(signal);
        } catch {
          return await this.stopping; // eslint-disable-line @typescript-eslint/await-thenable -- set by stop() meanwhile; TS keeps start()'s narrowing to undefined
        }
        this.metrics.setLeader(this.leaderMetricName, true);
        lost = elector.holdLease(signal);
      }
      this.controllersStarted = true;
      for (const controller of this.controllers) controller.start();
      const stopped = new Promise<'stopped'>((resolve) =>
        signal.addEventListener('abort', () => resolve('stopped'), { once: true }),
      );
      const outcome = await Promise.race([stopped, ...(lost ? [lost] : [])]);
      if (outcome === 'lost') {
        this.metrics.setLeader(this.leaderMetricName, false);
        this.skipGracefulShutdown = true;
        await this.stop();
        throw new LeaderElectionLostError(this.leaseName);
      }
      await this.stopping; // eslint-disable-line @typescript-eslint/await-thenable -- set by stop() meanwhile; TS keeps start()'s narrowing to undefined
    } catch (err) {
      await this.stop();
      throw err;
    }
    this.throwIfAbandoned();
  }

  private throwIfAbandoned(): void {
    if (this.abandoned.length > 0)
      throw new GracefulShutdownTimeoutError(this.options.gracefulShutdownTimeoutMs ?? 30_000, this.abandoned);
  }

  /** Stops taking work, waits for reconciles in flight (up to the deadline), releases the lease, stops informers and servers. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  private get leaseName(): string {
    return `${this.leaseNamespace}/${this.options.leaderElectionId ?? ''}`;
  }

  /** The `name` label of leader_election_master_status: the Lease name, as controller-runtime reports it. */
  private get leaderMetricName(): string {
    return this.options.leaderElectionId ?? '';
  }

  private get leaseNamespace(): string {
    return this.options.leaderElectionNamespace ?? this.rest.config.namespace ?? 'default';
  }

  private createElector(): LeaderElector {
    if (!this.options.leaderElectionId) throw new TypeError('leader election needs leaderElectionId (the Lease name)');
    this.elector = new LeaderElector({
      rest: this.rest,
      namespace: this.leaseNamespace,
      name: this.options.leaderElectionId,
      identity: this.options.leaderElectionIdentity,
      leaseDurationMs: this.options.leaseDurationMs,
      renewDeadlineMs: this.options.renewDeadlineMs,
      retryPeriodMs: this.options.retryPeriodMs,
      logger: this.logger,
    });
    this.metrics.setLeader(this.leaderMetricName, false);
    return this.elector;
  }

  private async shutdown(): Promise<void> {
    this.stopController.abort(new Error('manager stopped'));
    const deadline = this.skipGracefulShutdown ? 0 : (this.options.gracefulShutdownTimeoutMs ?? 30_000);
    // Admission requests do not depend on the controllers: the webhook server drains alongside them.
    const webhooksStopped = this.webhooks?.stop(this.options.gracefulShutdownTimeoutMs ?? 30_000);
    const results = await Promise.all(
      this.controllers.map(async (c) => {
        const finished = await c.stop(deadline);
        // Read at once: the aborted reconciles have not returned yet, so this is the count at the deadline.
        return { controller: c.name, finished, inFlight: c.inFlight };
      }),
    );
    const abandoned = results
      .filter((r) => !r.finished)
      .map((r) => ({ controller: r.controller, reconciles: Math.max(1, r.inFlight) }));
    if (abandoned.length > 0) {
      this.logger.warn('graceful shutdown deadline passed with reconciles in flight; their signals were aborted', {
        abandoned,
      });
      // After a lost lease the deadline is 0 on purpose and LeaderElectionLostError says why.
      if (!this.skipGracefulShutdown) this.abandoned = abandoned;
    }
    this.controllersStarted = false;
    if (this.elector) {
      await this.elector.release();
      this.metrics.setLeader(this.leaderMetricName, false);
    }
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
    await webhooksStopped;
    await Promise.all(this.servers.map((s) => s.close()));
    this.logger.info('manager stopped');
  }

  private async waitForCaches(signal: AbortSignal): Promise<void> {
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    try {
      await Promise.all([...this.informers.values()].map((i) => i.waitForSync(both)));
    } catch (err) {
      if (signal.aborted) return;
      if (timeout.aborted) {
        const pending = [...this.informers.values()].filter((i) => !i.hasSynced()).map((i) => i.name);
        throw new Error(`caches did not sync within ${timeoutMs} ms: ${pending.join(', ')}`, { cause: err });
      }
      throw err;
    }
  }

  private async startServers(): Promise<void> {
    const probes = parseBindAddress(this.options.healthProbeBindAddress ?? ':8081');
    const metrics = parseBindAddress(this.options.metricsBindAddress ?? ':8443');
    if (probes) {
      const server = new ProbeServer({
        '/healthz': (url) => answerHealthChecks(this.healthChecks, '/healthz', url),
        '/healthz/*': (url) => answerHealthChecks(this.healthChecks, '/healthz', url),
        '/readyz': (url) => answerHealthChecks(this.readyChecks, '/readyz', url),
        '/readyz/*': (url) => answerHealthChecks(this.readyChecks, '/readyz', url),
      });
      this.servers.push(server);
      this.healthProbeAddress = await server.listen(probes);
      this.logger.info('serving health probes', {
        address: this.healthProbeAddress,
        port: portOf(this.healthProbeAddress),
      });
    }
    if (metrics) {
      const secure = this.options.metricsSecure ?? true;
      const logger = this.logger.child({ component: 'metrics-server' });
      const server = new MetricsServer({
        ...this.options.metricsServer,
        secure,
        // The REST client is loaded at the first request, so a manager without a cluster still starts.
        filter: secure ? new MetricsAccessFilter(() => this.rest, { logger }) : undefined,
        render: async () => ({ contentType: this.metrics.contentType, body: await this.metrics.render() }),
        logger,
      });
      this.metricsServerInstance = server;
      this.servers.push(server);
      this.metricsAddress = await server.listen(metrics);
      this.logger.info('serving metrics', {
        address: this.metricsAddress,
        port: portOf(this.metricsAddress),
        secure,
        ...(secure ? { certificate: server.certificate, authorization: 'TokenReview + SubjectAccessReview' } : {}),
      });
    }
    // Before caches and leader election: every replica answers the apiserver's webhook calls.
    const webhooks = this.webhooks;
    if (webhooks) {
      this.webhookAddress = await webhooks.start();
      this.readyChecks.set('webhook', () => webhooks.checkServing());
    }
  }
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}

/** What a user reads when the apiserver does not serve a watched kind: built-in APIs are switched on, others come with a CRD. */
function notServedMessage(type: ResourceType): string {
  const builtIn = type.group === '' || !type.group.includes('.') || type.group.endsWith('.k8s.io');
  const fix = builtIn
    ? 'this Kubernetes version does not serve it or has it turned off'
    : 'install its CRD (kubectl apply -k config/crd)';
  return `the API ${apiVersionOf(type)} ${type.kind} is not served by this cluster: ${fix}`;
}
