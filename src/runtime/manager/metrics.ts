import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { WorkQueueInFlightProbe, WorkQueueMetrics } from '../queue/work-queue.js';
import type { InformerStats, WatchRestartReason } from '../cache/informer.js';
import type { WebhookPathMetrics } from '../webhook/webhook-server.js';
import type { RestCallObserver } from '../client/rest/instrumentation.js';

import type { ControllerMetrics, ReconcileOutcome } from '../controller/controller.js';

export type { ControllerMetrics, ReconcileOutcome } from '../controller/controller.js';

/**
 * The Prometheus metrics of a manager, under the names controller-runtime uses so existing
 * dashboards and alerts keep working: reconcile totals, errors and durations per controller,
 * work-queue depth, adds, retries, queue latency, work duration, unfinished work and longest
 * running processor per queue, watch restarts, cached objects and bytes, relists and last sync
 * per informer, leader status, and webhook requests, latency and requests in flight per path;
 * and client-go's REST client metrics under its names: requests by status code, method and host,
 * call latency, client-side rate-limiter wait and retries.
 */
export class ManagerMetrics {
  readonly registry: Registry;
  private readonly reconcileTotal: Counter<'controller' | 'result'>;
  private readonly reconcileErrors: Counter<'controller'>;
  private readonly terminalErrors: Counter<'controller'>;
  private readonly reconcileTime: Histogram<'controller'>;
  private readonly workers: Gauge<'controller'>;
  private readonly maxConcurrent: Gauge<'controller'>;
  private readonly depth: Gauge<'name' | 'controller'>;
  private readonly adds: Counter<'name' | 'controller'>;
  private readonly retries: Counter<'name' | 'controller'>;
  private readonly queueDuration: Histogram<'name' | 'controller'>;
  private readonly workDuration: Histogram<'name' | 'controller'>;
  /** In-flight probes of the queues, by controller; read when /metrics is scraped. */
  private readonly inFlightProbes = new Map<string, WorkQueueInFlightProbe>();
  private readonly watchRestarts: Counter<'informer' | 'reason'>;
  private readonly informerSources: Array<() => readonly InformerStats[]> = [];
  private readonly leader: Gauge<'name'>;
  private readonly webhookRequests: Counter<'webhook' | 'code'>;
  private readonly webhookLatency: Histogram<'webhook'>;
  private readonly webhookInFlight: Gauge<'webhook'>;
  private readonly restRequests: Counter<'code' | 'method' | 'host'>;
  private readonly restDuration: Histogram<'verb' | 'host'>;
  private readonly restLimiterDuration: Histogram<'verb' | 'host'>;
  private readonly restRetries: Counter<'code' | 'verb' | 'host'>;

  constructor(options: { registry?: Registry; processMetrics?: boolean } = {}) {
    this.registry = options.registry ?? new Registry();
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    const latencyBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.terminalErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Reconciles per controller that failed with a TerminalError and were not retried',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: latencyBuckets,
      registers,
    });
    this.workers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.maxConcurrent = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.depth = new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.adds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Total number of adds handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames: ['name', 'controller'],
      registers,
    });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name', 'controller'],
      buckets: latencyBuckets,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name', 'controller'],
      buckets: latencyBuckets,
      registers,
    });
    const probes = this.inFlightProbes;
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: 'Seconds of work in progress not yet reported in workqueue_work_duration_seconds, summed over the keys in flight; a value that keeps growing means a stuck worker',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [controller, probe] of probes)
          this.set({ name: controller, controller }, probe.unfinishedWorkSeconds());
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'Seconds the key that has been in flight longest has been processed so far',
      labelNames: ['name', 'controller'],
      registers,
      collect() {
        for (const [controller, probe] of probes)
          this.set({ name: controller, controller }, probe.longestRunningProcessorSeconds());
      },
    });
    this.watchRestarts = new Counter({
      name: 'kop_informer_watch_restarts_total',
      help: 'Times an informer replaced its watch, by reason (closed, gone, silent, error)',
      labelNames: ['informer', 'reason'],
      registers,
    });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      help: 'Whether this manager currently holds the leader lease (1) or not (0)',
      labelNames: ['name'],
      registers,
    });
    this.webhookRequests = new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    });
    this.webhookLatency = new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      buckets: latencyBuckets,
      registers,
    });
    this.webhookInFlight = new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
    });
    // client-go's buckets for its request and rate-limiter latencies.
    const clientBuckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'Number of HTTP requests to the apiserver, partitioned by status code, method, and host.',
      labelNames: ['code', 'method', 'host'],
      registers,
    });
    this.restDuration = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'Request latency in seconds (the whole call, retries and rate-limiter waits included), by verb and host.',
      labelNames: ['verb', 'host'],
      buckets: clientBuckets,
      registers,
    });
    this.restLimiterDuration = new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Client-side rate limiter latency in seconds, by verb and host (only while a limiter is on).',
      labelNames: ['verb', 'host'],
      buckets: clientBuckets,
      registers,
    });
    this.restRetries = new Counter({
      name: 'rest_client_request_retries_total',
      help: 'Number of request retries, partitioned by status code, verb, and host.',
      labelNames: ['code', 'verb', 'host'],
      registers,
    });
  }

  /**
   * The observer of the REST client's calls that feeds the rest_client_* metrics. Requests count
   * once per attempt (code `<error>` when no answer came), as client-go counts them; the latency
   * is the whole call's, its retries and limiter waits included; watches count only their answer.
   */
  restClient(): RestCallObserver {
    // Children bound once per method and host (one host per client, a handful of methods and
    // codes), so a request does no label validation and builds no label object or key.
    const byHost = new Map<string, Map<string, RestMethodChildren>>();
    const childrenOf = (method: string, host: string): RestMethodChildren => {
      let byMethod = byHost.get(host);
      if (!byMethod) byHost.set(host, (byMethod = new Map<string, RestMethodChildren>()));
      let children = byMethod.get(method);
      if (!children) {
        children = new RestMethodChildren(this.restRequests, this.restRetries, method, host, {
          duration: this.restDuration.labels({ verb: method, host }),
          limiter: this.restLimiterDuration.labels({ verb: method, host }),
        });
        byMethod.set(method, children);
      }
      return children;
    };
    return { start: ({ method, host, watch }) => new RestCallMetrics(childrenOf(method, host), watch) };
  }

  /** Hooks for the requests of the webhook served on `path` (label-bound children; one per status code seen). */
  webhook(path: string): WebhookPathMetrics {
    const inFlight = this.webhookInFlight.labels({ webhook: path });
    inFlight.set(0);
    const latency = this.webhookLatency.labels({ webhook: path });
    const byCode = new Map<number, ReturnType<Counter<'webhook' | 'code'>['labels']>>();
    return {
      inFlight: (delta) => inFlight.inc(delta),
      served: (code, seconds) => {
        let counter = byCode.get(code);
        if (!counter) {
          counter = this.webhookRequests.labels({ webhook: path, code: String(code) });
          byCode.set(code, counter);
        }
        counter.inc();
        latency.observe(seconds);
      },
    };
  }

  /**
   * Hooks for the work queue of `controller`. Children bound to the labels once: every reconcile
   * reports several observations, and binding skips prom-client's label checks and hashing.
   */
  queue(controller: string): WorkQueueMetrics {
    const labels = { name: controller, controller };
    const depth = this.depth.labels(labels);
    const adds = this.adds.labels(labels);
    const retries = this.retries.labels(labels);
    const queueDuration = this.queueDuration.labels(labels);
    const workDuration = this.workDuration.labels(labels);
    depth.set(0);
    adds.inc(0);
    retries.inc(0);
    return {
      depth: (n) => depth.set(n),
      added: () => adds.inc(),
      retried: () => retries.inc(),
      queueLatency: (s) => queueDuration.observe(s),
      workDuration: (s) => workDuration.observe(s),
      inFlight: (probe) => this.inFlightProbes.set(controller, probe),
    };
  }

  /** Hooks for the reconciles of `controller` (label-bound children, as for the queue). */
  controller(controller: string, maxConcurrentReconciles: number): ControllerMetrics {
    this.maxConcurrent.set({ controller }, maxConcurrentReconciles);
    const workers = this.workers.labels({ controller });
    workers.set(0);
    const totals = {
      success: this.reconcileTotal.labels({ controller, result: 'success' }),
      error: this.reconcileTotal.labels({ controller, result: 'error' }),
      requeue: this.reconcileTotal.labels({ controller, result: 'requeue' }),
      requeue_after: this.reconcileTotal.labels({ controller, result: 'requeue_after' }),
    } satisfies Record<ReconcileOutcome, unknown>;
    for (const total of Object.values(totals)) total.inc(0);
    const errors = this.reconcileErrors.labels({ controller });
    errors.inc(0);
    const terminalErrors = this.terminalErrors.labels({ controller });
    terminalErrors.inc(0);
    const time = this.reconcileTime.labels({ controller });
    return {
      reconciled: (outcome, seconds, terminal) => {
        totals[outcome].inc();
        if (outcome === 'error') errors.inc();
        if (terminal) terminalErrors.inc();
        time.observe(seconds);
      },
      activeWorkers: (delta) => workers.inc(delta),
    };
  }

  /**
   * Reports what the informers that `stats` returns hold, read at each scrape: objects, estimated
   * bytes, relists and the time of the last full list, per informer (the kind, e.g. `ConfigMap.core`).
   * controller-runtime has no such metrics; these follow the `kop_informer_` names of the watch restarts.
   */
  informers(source: () => readonly InformerStats[]): void {
    // Several managers may share one ManagerMetrics: the metrics are registered once, over all sources.
    this.informerSources.push(source);
    if (this.informerSources.length > 1) return;
    const sources = this.informerSources;
    const stats = (): InformerStats[] => sources.flatMap((s) => s());
    const registers = [this.registry];
    const labelNames = ['informer'] as const;
    new Gauge({
      name: 'kop_informer_cached_objects',
      help: 'Objects held in an informer cache',
      labelNames,
      registers,
      collect() {
        for (const s of stats()) this.set({ informer: s.name }, s.objects);
      },
    });
    new Gauge({
      name: 'kop_informer_cached_bytes',
      help: 'Estimated size of the objects held in an informer cache, as JSON after the cache transform; the heap they take is a few times more',
      labelNames,
      registers,
      collect() {
        for (const s of stats()) this.set({ informer: s.name }, s.bytes);
      },
    });
    new Counter({
      name: 'kop_informer_relists_total',
      help: 'Full lists an informer made after its first one (after its watch expired with 410 Gone)',
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const s of stats()) this.inc({ informer: s.name }, s.relists);
      },
    });
    new Gauge({
      name: 'kop_informer_last_sync_timestamp_seconds',
      help: 'When an informer last completed a full list (its first sync or a relist), in seconds since the epoch',
      labelNames,
      registers,
      collect() {
        for (const s of stats())
          if (s.lastSyncTime !== undefined) this.set({ informer: s.name }, s.lastSyncTime / 1000);
      },
    });
  }

  /** Counts a replaced watch of `informer`. */
  watchRestarted(informer: string, reason: WatchRestartReason): void {
    this.watchRestarts.inc({ informer, reason });
  }

  /** Records whether this manager leads under lease `name`. */
  setLeader(name: string, leading: boolean): void {
    this.leader.set({ name }, leading ? 1 : 0);
  }

  /** The exposition text served on /metrics. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** Content-Type of {@link render}'s output. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

type CounterChild = ReturnType<Counter<string>['labels']>;
type HistogramChild = ReturnType<Histogram<string>['labels']>;

/** The rest_client_* children of one method and host; the children per status code are bound as codes are seen. */
class RestMethodChildren {
  private readonly requests = new Map<number | undefined, CounterChild>();
  private readonly retries = new Map<number | undefined, CounterChild>();

  constructor(
    private readonly requestsCounter: Counter<'code' | 'method' | 'host'>,
    private readonly retriesCounter: Counter<'code' | 'verb' | 'host'>,
    private readonly method: string,
    private readonly host: string,
    readonly histograms: { readonly duration: HistogramChild; readonly limiter: HistogramChild },
  ) {}

  requestsFor(code: number | undefined): CounterChild {
    let child = this.requests.get(code);
    if (!child) {
      child = this.requestsCounter.labels({ code: codeLabel(code), method: this.method, host: this.host });
      this.requests.set(code, child);
    }
    return child;
  }

  retriesFor(code: number | undefined): CounterChild {
    let child = this.retries.get(code);
    if (!child) {
      child = this.retriesCounter.labels({ code: codeLabel(code), verb: this.method, host: this.host });
      this.retries.set(code, child);
    }
    return child;
  }
}

/** client-go's code label: the status code, or `<error>` when no answer came. */
const codeLabel = (code: number | undefined): string => (code === undefined ? '<error>' : String(code));

/** One call as the rest_client_* metrics see it (one object per call, its hooks on the prototype). */
class RestCallMetrics {
  private readonly started: number;

  constructor(
    private readonly children: RestMethodChildren,
    private readonly watch: boolean,
  ) {
    this.started = watch ? 0 : performance.now();
  }

  answered(code: number | undefined): void {
    this.children.requestsFor(code).inc();
  }

  rateLimited(seconds: number): void {
    this.children.histograms.limiter.observe(seconds);
  }

  retrying(code: number | undefined): void {
    this.children.retriesFor(code).inc();
  }

  end(): void {
    if (!this.watch) this.children.histograms.duration.observe((performance.now() - this.started) / 1000);
  }
}
