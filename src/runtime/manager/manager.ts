import type { Client } from '../client/client.js';
import type { ResourceType } from '../client/resource/options.js';
import type { RestClient, RestClientOptions } from '../client/rest/rest-client.js';
import type { KubernetesObject, KubernetesObject as AnyObject } from '../client/types/meta.js';
import type { Informer, InformerOptions } from '../cache/informer.js';
import type { Lister } from '../cache/lister.js';
import { Cluster, type ClusterOptions } from '../cluster/index.js';
import { Controller } from '../controller/controller.js';
import { ControllerBuilder, type ControllerHost } from '../controller/builder.js';
import { EventRecorder } from '../controller/event-recorder.js';
import type { Logger } from '../util/logger.js';
import { createLogger } from '../util/logger.js';
import { ConversionBuilder, WebhookBuilder, type WebhookRegistrar } from '../webhook/builder.js';
import { ConversionRegistry, type SpokeConversion } from '../webhook/conversion.js';
import type { WebhookHandler } from '../webhook/webhook-handler.js';
import { WebhookServer, type WebhookServerOptions } from '../webhook/webhook-server.js';
import { ControllerRunnable, type AbandonedReconciles } from './controller-runnable.js';
import { answerHealthChecks, type HealthCheck } from './health-checks.js';
import { ProbeServer, parseBindAddress } from './http-server.js';
import { LeaderElector } from './leader-election.js';
import { MetricsAccessFilter } from './metrics-auth.js';
import { MetricsServer, type MetricsServerOptions } from './metrics-server.js';
import { ManagerMetrics } from './metrics.js';
import { CacheMemoryBudget, type CacheMemoryBudgetOptions } from './cache-budget.js';
import v8 from 'node:v8';
import { observeRestCalls } from '../client/rest/instrumentation.js';
import { RunnableGroup, type Runnable } from './runnable-group.js';
import { ServerRunnable } from './server-runnable.js';
import { Sharding, type ShardingOptions } from '../sharding/sharding.js';

export type { HealthCheck } from './health-checks.js';
export type { Runnable } from './runnable-group.js';

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
  /**
   * With leader election: every replica lists and watches the kinds its controllers read before
   * it competes for the lease, so a standby that takes over reconciles from a full cache at once
   * instead of listing every object first (a second cache's memory, bought for a fast failover).
   * A standby never reconciles: its controllers' workers start once it leads, and every cached
   * object is queued then, so nothing that changed while it stood by is missed. Default false: a
   * standby holds no cache of its controllers' kinds, which it lists when it wins the lease.
   * Manager-wide rather than per controller: failover waits for the slowest controller's list.
   */
  warmStandby?: boolean;
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
  /**
   * Warn, naming the largest informers, when the estimated bytes of all caches pass `bytes` or
   * the heap passes `heapFraction` (default 0.85) of its limit: once per crossing, checked every
   * `checkIntervalMs` (default 5 s) from the start. Unset: no checks. The figures are on /metrics
   * (`kop_informer_cached_bytes`) and /debug/cache either way.
   */
  cacheMemoryBudget?: CacheMemoryBudgetOptions;
  /** How long start waits for caches to sync before failing; default 2 min. */
  cacheSyncTimeoutMs?: number;
  /**
   * Keep `metadata.managedFields` in cached objects; default false: they are dropped (see
   * stripManagedFields), which roughly halves the cache's memory.
   */
  cacheManagedFields?: boolean;
  /**
   * What the cache holds per kind (controller-runtime's `cache.Options.ByObject`): a label or
   * field selector, one namespace, a transform, keeping managedFields. Objects outside are not
   * cached, so a cached `get` of one answers "not found" (saying the cache holds only the
   * selected objects) and a list leaves it out; `{ live: true }` reads ask the apiserver. Example:
   * `byObject: [{ type: coreV1SecretType, labelSelector: { 'app.kubernetes.io/managed-by': 'my-operator' } }]`.
   */
  byObject?: ClusterOptions['byObject'];
  /**
   * Informer defaults (silent-watch timeout, ...). `resyncPeriodMs` defaults to 10 hours plus up
   * to 10% jitter per informer, controller-runtime's SyncPeriod: every object is reconciled again
   * that often, a safety net for drift no event reports; 0 turns it off. `streamingList` defaults
   * to true: caches fill from a streaming list where the apiserver serves one, from pages elsewhere.
   */
  informerDefaults?: Pick<
    InformerOptions<KubernetesObject>,
    'resyncPeriodMs' | 'silentWatchTimeoutMs' | 'watchTimeoutSeconds' | 'listPageSize' | 'streamingList'
  >;
  /**
   * The webhook server (admission and conversion webhooks): where it listens (default all
   * interfaces, port 9443) and where the serving certificate is (default
   * `/tmp/k8s-webhook-server/serving-certs/tls.crt` and `tls.key`). It starts only when a webhook
   * or conversion is registered.
   */
  webhookServer?: WebhookServerOptions;
  /**
   * Share the objects of some kinds among the replicas (see the sharding how-to): each replica
   * caches and reconciles only the objects labelled for it; a sharder on the leader labels them
   * over a consistent-hash ring of the replicas' membership Leases, and moves them (drain, then
   * reassign) when a replica joins or leaves, never letting two replicas reconcile one object at
   * once. Example: `sharding: { name: 'my-operator', types: [widgetType] }` with leader election on.
   */
  sharding?: ShardingOptions;
  logger?: Logger;
  metrics?: ManagerMetrics;
}

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

/** Where a manager is in its life. */
type ManagerState = 'new' | 'starting' | 'running' | 'stopping' | 'stopped';

/**
 * Runs an operator, after controller-runtime's manager: it owns a {@link Cluster} (REST client,
 * informer cache, cache-backed client, API reader) and runs groups of {@link Runnable}s in one
 * order. `start` serves /healthz, /readyz, /metrics and the webhooks, starts and syncs the
 * caches, starts the runnables every replica runs, waits for the lease when leader election is
 * on (a standby never reconciles), then starts the controllers and the other leader-gated
 * runnables; it runs until `stop` (or SIGTERM with `handleSignals`), or until a runnable fails,
 * and stops in the reverse order: no new work, reconciles in flight finish within the deadline,
 * the lease is released, the caches and the servers stop last.
 */
export class Manager {
  readonly logger: Logger;
  readonly metrics: ManagerMetrics;
  /** The cluster this manager reconciles: its cache starts with the manager, before the controllers. */
  readonly cluster: Cluster;
  /** Bound address of the metrics server once started (`host:port`). */
  metricsAddress: string | undefined;

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
  private state: ManagerState = 'new';
  /** Started in this order, stopped in the reverse one. */
  private readonly runnables: {
    servers: RunnableGroup;
    caches: RunnableGroup;
    others: RunnableGroup;
    leaderElection: RunnableGroup;
  };
  private readonly controllers: ControllerRunnable[] = [];
  private readonly healthChecks = new Map<string, HealthCheck>([['ping', () => true]]);
  private readonly readyChecks = new Map<string, HealthCheck>();
  /** Aborted when the stop begins. */
  private readonly stopController = new AbortController();
  private stopping: Promise<void> | undefined;
  /** The first error that stopped the manager (a runnable's, a lost lease); `start()` rejects with it. */
  private failure: { error: unknown } | undefined;
  private elector: LeaderElector | undefined;
  private metricsServerInstance: MetricsServer | undefined;
  private webhooks: WebhookServer | undefined;
  private conversions: ConversionRegistry | undefined;
  private signalHandler: ((signal: NodeJS.Signals) => void) | undefined;
  /** When the graceful shutdown must be over; set when the stop begins. */
  private shutdownDeadline: number | undefined;
  /** Filled by the controllers as they stop at the deadline. */
  private readonly abandonedNow: AbandonedReconciles[] = [];
  /** Reconciles abandoned at the shutdown deadline, per controller, when that is an error (not after a lost lease). */
  private abandoned: AbandonedReconciles[] = [];
  /** Sharding across replicas, when configured. */
  private readonly sharding: Sharding | undefined;

  constructor(private readonly options: ManagerOptions = {}) {
    this.logger = options.logger ?? createLogger();
    this.metrics = options.metrics ?? new ManagerMetrics();
    this.sharding = options.sharding && this.shardingFor(options.sharding);
    this.cluster = new Cluster({
      rest: options.rest,
      kubeconfig: options.kubeconfig,
      clientOptions: options.clientOptions,
      namespace: options.namespace,
      uncachedTypes: options.uncachedTypes,
      cacheManagedFields: options.cacheManagedFields,
      byObject: this.sharding ? this.sharding.byObject(options.byObject) : options.byObject,
      informerDefaults: options.informerDefaults,
      cacheSyncTimeoutMs: options.cacheSyncTimeoutMs,
      logger: this.logger,
      onWatchRestart: (informer, reason) => this.metrics.watchRestarted(informer, reason),
      onRestClient: (rest) => observeRestCalls(rest, this.metrics.restClient()),
    });
    const group = (name: string): RunnableGroup => new RunnableGroup(name, (err) => this.fail(err), this.logger);
    this.runnables = {
      servers: group('servers'),
      caches: group('caches'),
      others: group('others'),
      leaderElection: group('leader election'),
    };
    this.add(this.cluster);
    if (this.sharding) {
      this.runnables.others.add(this.sharding.member.runnable);
      this.runnables.leaderElection.add(this.sharding.sharder);
    }
    this.metrics.informers(() => this.cluster.informers.map((i) => i.stats));
    if (options.cacheMemoryBudget) {
      const budget = new CacheMemoryBudget(
        options.cacheMemoryBudget,
        () => this.cluster.informers.map((i) => i.stats),
        this.logger.child({ component: 'cache-budget' }),
      );
      // With the caches: the initial sync is when memory peaks.
      this.runnables.caches.add(budget);
    }
    // A standby without warmStandby is ready without its controllers' caches; it lists them once it leads.
    this.readyChecks.set('informers-synced', () => {
      const pending = this.cluster.informers
        .filter((i) => !i.hasSynced() && !this.cluster.isDeferred(i))
        .map((i) => i.name);
      if (pending.length > 0) throw new Error(`caches not synced: ${pending.join(', ')}`);
    });
    // Retries hide a watch that keeps failing (malformed events, a list that never ends, an
    // apiserver gone): readiness says so after a while. Liveness stays a plain ping.
    const failingAfterMs = options.informerFailureReadinessMs ?? 120_000;
    this.readyChecks.set('informers-healthy', () => {
      const failing = this.cluster.informers.filter((i) => i.failingForMs >= failingAfterMs);
      if (failing.length > 0) {
        throw new Error(
          `list or watch failing for over ${failingAfterMs / 1000} s: ${failing.map((i) => `${i.name} (${errorText(i.lastError)})`).join(', ')}`,
        );
      }
    });
  }

  /**
   * The REST client of this manager's cluster: the one given, or one loaded from `kubeconfig`
   * (then KUBECONFIG, in-cluster, ~/.kube/config) on first use, so a manager without controllers
   * can serve its probes with no cluster configured.
   */
  get rest(): RestClient {
    return this.cluster.rest;
  }

  /**
   * The client reconcilers use, as controller-runtime's `manager.GetClient()`: reads of a kind
   * come from the shared informer cache (the first read of a kind starts its informer and waits
   * for it to sync; before the manager starts, and for `uncachedTypes`, reads go to the
   * apiserver), writes go to the apiserver.
   */
  get client(): Client {
    return this.cluster.client;
  }

  /** A client that always reads from the apiserver (controller-runtime's `GetAPIReader()`), for reads that must not be stale. */
  get apiReader(): Client {
    return this.cluster.apiReader;
  }

  /** True while the cache runs (from the start of the manager until it stops): cached reads are served then. */
  get informersStarted(): boolean {
    return this.cluster.started;
  }

  /** The shared informer of a kind (created on first use; started with the manager). */
  informerFor<T extends KubernetesObject>(type: ResourceType<T>): Informer<T> {
    return this.cluster.informerFor(type);
  }

  /** Cached read access to a kind. */
  lister<T extends KubernetesObject>(type: ResourceType<T>): Lister<T> {
    return this.cluster.lister(type);
  }

  /**
   * Indexes the cached objects of a kind by a field (controller-runtime's
   * `mgr.GetFieldIndexer().IndexField`), before `start`: `extract` returns the values an object is
   * found under, and `manager.client.list(type, { namespace, matchingFields: { [field]: value } })`
   * answers from the cache, per namespace or across all.
   */
  indexField<T extends KubernetesObject>(
    type: ResourceType<T>,
    field: string,
    extract: (object: T) => readonly string[],
  ): void {
    this.cluster.indexField(type, field, extract);
  }

  /** Starts building a controller named `name` (lower-case kind, by convention). */
  controller(name: string): ControllerBuilder {
    return new ControllerBuilder(this.controllerHost(), name);
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

  /**
   * Adds a runnable, as controller-runtime's `mgr.Add`: a {@link Cluster} joins the caches (the
   * controllers wait for it to sync); a runnable with `needLeaderElection: false` starts on every
   * replica once the caches are synced; any other (a controller, a runnable without the flag)
   * starts once this replica holds the lease, or with them without leader election. Added while
   * the manager runs, it starts at once if its group has started. Its failure stops the manager,
   * and `start()` rejects with the error.
   */
  add(runnable: Runnable): void {
    if (runnable instanceof Controller) return this.addController(runnable);
    if (runnable instanceof Cluster) {
      this.runnables.caches.add(runnable, { ready: (signal) => runnable.waitForCacheSync(signal) });
      return;
    }
    const group = runnable.needLeaderElection === false ? this.runnables.others : this.runnables.leaderElection;
    group.add(runnable);
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
    return this.runnables.leaderElection.running;
  }

  /** Stops gracefully on SIGTERM and SIGINT; a second signal exits at once. */
  handleSignals(): void {
    if (this.signalHandler) return;
    this.signalHandler = (signal: NodeJS.Signals): void => {
      if (this.stopping) {
        this.logger.warn('second signal, exiting immediately', { signal });
        process.exit(1);
      }
      this.logger.info('shutting down', { signal });
      void this.stop();
    };
    process.on('SIGTERM', this.signalHandler);
    process.on('SIGINT', this.signalHandler);
  }

  /**
   * Runs the manager until stopped. Resolves after a graceful shutdown; rejects when a server
   * cannot listen, caches do not sync in time, a runnable fails or the leader lease is lost (the
   * process should then exit and restart), or when reconciles outlived the shutdown deadline.
   */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('a manager can be started once');
    this.state = 'starting';
    const signal = this.stopController.signal;
    let lease: Promise<'lost' | 'stopped'> | undefined;
    try {
      this.addServers();
      // Servers first: every replica answers probes and the apiserver's webhook calls, leader or not.
      await this.runnables.servers.start();
      if (!signal.aborted) await this.runnables.caches.start();
      if (!signal.aborted) {
        this.logger.info('caches synced', { informers: this.cluster.informers.map((i) => i.name) });
        await this.runnables.others.start();
      }
      if (!signal.aborted && this.options.leaderElection) lease = (await this.acquireLease(signal)).holdLease(signal);
      if (!signal.aborted) {
        this.state = 'running';
        await this.runnables.leaderElection.start();
      }
    } catch (err) {
      // Stopping meanwhile aborts what start waited for; anything else is a failure to start.
      if (!signal.aborted) this.fail(err);
    }
    const stopped = untilAborted(signal).then(() => 'stopped' as const);
    if ((await Promise.race([stopped, ...(lease ? [lease] : [])])) === 'lost') {
      this.metrics.setLeader(this.leaderMetricName, false);
      this.fail(new LeaderElectionLostError(this.leaseName));
    }
    await this.stop();
    if (this.failure) throw this.failure.error;
    if (this.abandoned.length > 0)
      throw new GracefulShutdownTimeoutError(this.options.gracefulShutdownTimeoutMs ?? 30_000, this.abandoned);
  }

  /**
   * Stops the runnables in the reverse order of their start: the controllers and other leader-gated
   * runnables (reconciles in flight finish, up to the deadline), then the lease is released, then
   * the other runnables, the caches, and the servers last. One deadline bounds it all.
   */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  /** Stops the manager because of `error` (the first one wins): `start()` rejects with it. */
  private fail(error: unknown): void {
    if (this.failure || this.stopping) {
      this.logger.error('a runnable failed while the manager stopped', { err: error });
      return;
    }
    this.failure = { error };
    void this.stop();
  }

  private async shutdown(): Promise<void> {
    this.state = 'stopping';
    this.stopController.abort(new Error('manager stopped'));
    this.shutdownDeadline = Date.now() + (this.options.gracefulShutdownTimeoutMs ?? 30_000);
    const remaining = (): number => this.shutdownRemainingMs();
    await this.runnables.leaderElection.stop(remaining());
    const abandoned = this.abandonedNow;
    if (abandoned.length > 0) {
      this.logger.warn('graceful shutdown deadline passed with reconciles in flight; their signals were aborted', {
        abandoned,
      });
      // After a lost lease the deadline is 0 on purpose and LeaderElectionLostError says why.
      if (!this.leaseLost) this.abandoned = abandoned;
    }
    if (this.elector) {
      await this.elector.release();
      this.metrics.setLeader(this.leaderMetricName, false);
    }
    await this.runnables.others.stop(remaining());
    await this.runnables.caches.stop(remaining());
    await this.runnables.servers.stop(remaining());
    this.state = 'stopped';
    this.logger.info('manager stopped');
  }

  /** What is left of the shutdown deadline (all of it before the stop begins). */
  private shutdownRemainingMs(): number {
    const timeoutMs = this.options.gracefulShutdownTimeoutMs ?? 30_000;
    return this.shutdownDeadline === undefined ? timeoutMs : Math.max(0, this.shutdownDeadline - Date.now());
  }

  private get leaseLost(): boolean {
    return this.failure?.error instanceof LeaderElectionLostError;
  }

  /** Throws when a controller named `name` is registered already: names label metrics and logs (controller-runtime refuses them too). */
  private checkControllerName(name: string): void {
    if (this.controllers.some((c) => c.controller.name === name))
      throw new Error(`a controller named "${name}" is registered already; give each controller its own name`);
  }

  private addController(controller: Controller, primary?: ResourceType): void {
    this.checkControllerName(controller.name);
    const runnable = new ControllerRunnable(controller, {
      // Lists now what a standby without warmStandby has not cached; at once when the cache is warm.
      syncSources: async (signal) => {
        const started = Date.now();
        const cold = controller.informers.filter((i) => !i.hasSynced()).map((i) => i.name);
        await this.cluster.syncInformers(controller.informers, signal);
        if (cold.length > 0)
          this.logger.info('controller caches synced', {
            controller: controller.name,
            informers: cold,
            ms: Date.now() - started,
          });
      },
      // Another replica may reconcile already once the lease is lost: in-flight work is not waited for then.
      deadlineMs: () => (this.leaseLost ? 0 : (this.options.gracefulShutdownTimeoutMs ?? 30_000)),
      onAbandoned: (abandoned) => this.abandonedNow.push(abandoned),
    });
    // A sharded kind's controller runs on every member, over its own shard.
    if (this.sharding?.covers(primary))
      this.runnables.others.add(this.sharding.controllerRunnable(runnable, primary!), { stopsByDeadline: true });
    else this.runnables.leaderElection.add(runnable, { stopsByDeadline: true });
    this.controllers.push(runnable);
  }

  /** The sharding of this manager, wired to its client, its Lease settings and its failure path. */
  private shardingFor(options: ShardingOptions): Sharding {
    return new Sharding(options, {
      rest: () => this.rest,
      apiReader: () => this.cluster.apiReader,
      leaseNamespace: () => this.leaseNamespace,
      cacheNamespace: this.options.namespace,
      leaderElection: this.options.leaderElection ?? false,
      leaseDurationMs: this.options.leaseDurationMs,
      renewDeadlineMs: this.options.renewDeadlineMs,
      retryPeriodMs: this.options.retryPeriodMs,
      logger: this.logger,
      // Like a lost leader lease: stop now, without waiting for reconciles in flight.
      onLost: (lease) => this.fail(new LeaderElectionLostError(lease)),
      syncInformers: (informers, signal) => this.cluster.syncInformers(informers, signal),
    });
  }

  /** What the controller builder needs of this manager: the seam through which it registers a controller. */
  private controllerHost(): ControllerHost {
    const cluster = this.cluster;
    return {
      get client() {
        return cluster.client;
      },
      logger: this.logger,
      metrics: this.metrics,
      // A replica that may stand by for long caches its controllers' kinds only with warmStandby.
      informerFor: (type) =>
        cluster.informerFor(type, { deferStart: !!this.options.leaderElection && !this.options.warmStandby }),
      eventRecorder: (component) => this.eventRecorder(component),
      checkControllerName: (name) => this.checkControllerName(name),
      add: (controller, primary) => this.addController(controller, primary),
      wrapReconcile: (primary, informer, reconcile) =>
        this.sharding?.covers(primary) ? this.sharding.gate(primary, informer, reconcile) : reconcile,
    };
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
    if (this.state !== 'new')
      throw new Error(
        'register webhooks and conversions before manager.start(): the webhook server starts with the manager',
      );
    this.webhooks ??= new WebhookServer(this.options.webhookServer, {
      logger: this.logger.child({ component: 'webhook-server' }),
      metrics: this.metrics,
    });
    return this.webhooks;
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

  /** Waits until this replica holds the lease. */
  private async acquireLease(signal: AbortSignal): Promise<LeaderElector> {
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
    await this.elector.acquire(signal);
    this.metrics.setLeader(this.leaderMetricName, true);
    return this.elector;
  }

  /** What /debug/cache answers: each informer's cache, largest first, the totals and the heap. */
  private cacheReport(): unknown {
    const informers = this.cluster.informers.map((i) => i.stats).sort((a, b) => b.bytes - a.bytes);
    const heap = v8.getHeapStatistics();
    return {
      informers: informers.map((s) => ({
        ...s,
        lastSyncTime: s.lastSyncTime === undefined ? undefined : new Date(s.lastSyncTime).toISOString(),
      })),
      objects: informers.reduce((sum, s) => sum + s.objects, 0),
      bytes: informers.reduce((sum, s) => sum + s.bytes, 0),
      budgetBytes: this.options.cacheMemoryBudget?.bytes,
      heap: { usedBytes: heap.used_heap_size, limitBytes: heap.heap_size_limit },
      rssBytes: process.memoryUsage.rss(),
    };
  }

  /** The probe, metrics and webhook servers, as runnables of the servers group. */
  private addServers(): void {
    const probes = parseBindAddress(this.options.healthProbeBindAddress ?? ':8081');
    const metrics = parseBindAddress(this.options.metricsBindAddress ?? ':8443');
    const addServer = (server: ServerRunnable, stopsByDeadline = false): void =>
      this.runnables.servers.add(server, { ready: () => server.listening, stopsByDeadline });
    if (probes) {
      const server = new ProbeServer({
        '/healthz': (url) => answerHealthChecks(this.healthChecks, '/healthz', url),
        '/healthz/*': (url) => answerHealthChecks(this.healthChecks, '/healthz', url),
        '/readyz': (url) => answerHealthChecks(this.readyChecks, '/readyz', url),
        '/readyz/*': (url) => answerHealthChecks(this.readyChecks, '/readyz', url),
      });
      const listen = async (): Promise<void> => {
        this.healthProbeAddress = await server.listen(probes);
        this.logger.info('serving health probes', {
          address: this.healthProbeAddress,
          port: portOf(this.healthProbeAddress),
        });
      };
      addServer(new ServerRunnable(listen, () => server.close()));
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
        debugEndpoints: { '/debug/cache': () => this.cacheReport() },
        logger,
      });
      this.metricsServerInstance = server;
      const listen = async (): Promise<void> => {
        this.metricsAddress = await server.listen(metrics);
        this.logger.info('serving metrics', {
          address: this.metricsAddress,
          port: portOf(this.metricsAddress),
          secure,
          ...(secure ? { certificate: server.certificate, authorization: 'TokenReview + SubjectAccessReview' } : {}),
        });
      };
      addServer(new ServerRunnable(listen, () => server.close()));
    }
    const webhooks = this.webhooks;
    if (webhooks) {
      const listen = async (): Promise<void> => {
        this.webhookAddress = await webhooks.start();
        this.readyChecks.set('webhook', () => webhooks.checkServing());
      };
      // Admission requests in flight finish within what is left of the shutdown deadline.
      addServer(new ServerRunnable(listen, () => webhooks.stop(this.shutdownRemainingMs())), true);
    }
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1));
}
