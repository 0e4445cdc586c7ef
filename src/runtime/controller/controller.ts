import { randomUUID } from 'node:crypto';
import type { Client } from '../client/client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import { isConflict } from '../client/errors/api-error.js';
import type { Clock } from '../util/clock.js';
import type { EventRecorder } from './event-recorder.js';
import { sleep, systemClock } from '../util/clock.js';
import type { MapFunction } from './event-handlers.js';
import { requestHandler } from './event-handlers.js';
import type { Informer } from '../cache/informer.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import type { Request } from './request.js';
import { parseKey, requestKey } from './request.js';
import type { Predicate } from './predicates.js';
import type { RateLimiter } from '../queue/rate-limiter.js';
import type { WorkQueueMetrics } from '../queue/work-queue.js';
import { WorkQueue } from '../queue/work-queue.js';
import { SpanKind, SpanStatusCode, type Link, type Span } from '@opentelemetry/api';
import { activeSpanContext, inSpan, tracer } from '../util/tracing.js';

/** Watch events linked from one reconcile span at most (many events may fold into one reconcile). */
const MAX_LINKS = 8;

/** Outcome label of `controller_runtime_reconcile_total`. */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after';

/** What a controller reports about its reconciles (the manager's metrics implement it). */
export interface ControllerMetrics {
  /** `terminal` is true for an error thrown as a TerminalError (not retried). */
  reconciled(outcome: ReconcileOutcome, seconds: number, terminal?: boolean): void;
  activeWorkers(delta: number): void;
}

/**
 * What a reconcile asks for next: nothing (done until something changes), `requeue` (again,
 * with the per-key backoff), or `requeueAfter` milliseconds (again after that delay, e.g. to poll).
 */
export type ReconcileResult = void | undefined | { requeue?: boolean; requeueAfter?: number };

/**
 * Thrown by a reconcile that cannot succeed by retrying (invalid spec, a state only a person can
 * fix): it is logged and counted as an error but not requeued; the next change to the object
 * reconciles it again. Found also as the `cause` of another error.
 */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** `error.type` of a failed reconcile: terminal, conflict, the HTTP code of an API error, or the error's class. */
function errorType(err: unknown, terminal: boolean): string {
  if (terminal) return 'TerminalError';
  if (isConflict(err)) return 'Conflict';
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'number') return String(code);
  return err instanceof Error ? err.name : 'Error';
}

function isTerminal(err: unknown): boolean {
  for (let current = err, depth = 0; current instanceof Error && depth < 16; current = current.cause, depth++) {
    if (current instanceof TerminalError) return true;
  }
  return false;
}

/** Passed to every reconcile. */
export interface ReconcileContext {
  /** Logger carrying the controller name and the object's namespace, name and key. */
  logger: Logger;
  /** Aborted when the manager's shutdown deadline passes while this reconcile still runs. */
  signal: AbortSignal;
  /** Name of the controller running this reconcile. */
  controller: string;
  /**
   * The manager's client: reads of a kind come from the informer cache, writes go to the
   * apiserver. Read the object the request names with `client.get(<kind>Type, request)`.
   */
  client: Client;
  /** Records Events about objects, reporting as `<controller>-controller`. */
  recorder: EventRecorder;
}

/**
 * A reconcile function: make the world match the object named by `request`. Throw to retry with
 * backoff; throw a {@link TerminalError} to give up until the object changes.
 */
export type ReconcileFunction = (
  request: Request,
  context: ReconcileContext,
) => Promise<ReconcileResult> | ReconcileResult;

/** An object with a reconcile method (a reconciler class instance). */
export interface Reconciler {
  reconcile(request: Request, context: ReconcileContext): Promise<ReconcileResult> | ReconcileResult;
}

/** Options of {@link Controller}. */
export interface ControllerOptions {
  name: string;
  /** The client handed to each reconcile (the manager's cache-backed client). */
  client: Client;
  /** The event recorder handed to each reconcile. */
  recorder: EventRecorder;
  /** Reconciles that may run at once, for different keys; default 1. */
  maxConcurrentReconciles?: number;
  /** Backoff of failed and `requeue: true` keys; default per-key 5 ms…1000 s plus 10 qps / 100 burst overall. */
  rateLimiter?: RateLimiter;
  logger?: Logger;
  metrics?: ControllerMetrics;
  queueMetrics?: WorkQueueMetrics;
  clock?: Clock;
}

interface Source {
  informer: Informer<KubernetesObject>;
  map: MapFunction<KubernetesObject>;
  predicates: Predicate<KubernetesObject>[];
  remove?: () => void;
}

/**
 * Runs a reconciler over a work queue fed by informers. Keys are de-duplicated, one key is never
 * reconciled twice at once, failures back off per key, and `done` is always called. Usually built
 * with `ControllerBuilder` and started by the manager.
 */
export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  private readonly reconcileFunction: ReconcileFunction;
  private readonly sources: Source[] = [];
  private readonly workers: Promise<void>[] = [];
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly maxConcurrent: number;
  private readonly abortInFlight = new AbortController();
  private started = false;
  /** The spans (watch events, lists) that queued each key since its last reconcile began; filled only when traced. */
  private readonly origins = new Map<string, Link[]>();

  constructor(
    reconciler: Reconciler | ReconcileFunction,
    private readonly options: ControllerOptions,
  ) {
    this.name = options.name;
    this.reconcileFunction =
      typeof reconciler === 'function' ? reconciler : (request, context) => reconciler.reconcile(request, context);
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ controller: options.name });
    this.maxConcurrent = Math.max(1, options.maxConcurrentReconciles ?? 1);
    this.queue = new WorkQueue({ rateLimiter: options.rateLimiter, clock: this.clock, metrics: options.queueMetrics });
  }

  /** Feeds the queue from `informer`: each passing event enqueues the requests `map` returns. Call before `start`. */
  watch<T extends KubernetesObject>(informer: Informer<T>, map: MapFunction<T>, predicates: Predicate<T>[] = []): void {
    const source = { informer, map, predicates } as unknown as Source;
    this.sources.push(source);
    if (this.started)
      source.remove = source.informer.addEventHandler(
        requestHandler(source.map, source.predicates, (r) => this.enqueue(r)),
      );
  }

  /** The informers this controller reads; the manager waits for them to sync before `start`. */
  get informers(): Informer<KubernetesObject>[] {
    return [...new Set(this.sources.map((s) => s.informer))];
  }

  /** Queues a reconcile of `request`. */
  enqueue(request: Request): void {
    const key = requestKey(request);
    const origin = activeSpanContext();
    if (origin) {
      const links = this.origins.get(key);
      if (!links) this.origins.set(key, [{ context: origin }]);
      else if (links.length < MAX_LINKS) links.push({ context: origin });
    }
    this.queue.add(key);
  }

  /** Queues a reconcile of `request` after `delayMs`. */
  enqueueAfter(request: Request, delayMs: number): void {
    this.queue.addAfter(requestKey(request), delayMs);
  }

  /** Connects the sources and starts the workers. Cached objects are delivered as adds. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const source of this.sources) {
      source.remove = source.informer.addEventHandler(
        requestHandler(source.map, source.predicates, (r) => this.enqueue(r)),
      );
    }
    for (let i = 0; i < this.maxConcurrent; i++) this.workers.push(this.work());
    this.logger.info('controller started', { workers: this.maxConcurrent });
  }

  /**
   * Stops taking work and waits up to `timeoutMs` for reconciles in flight; after that their
   * signal aborts and stop returns anyway. Resolves true when everything finished in time.
   */
  async stop(timeoutMs = 30_000): Promise<boolean> {
    for (const source of this.sources) source.remove?.();
    const drained = this.queue.shutDownWithDrain().then(() => true);
    const timer = new AbortController();
    const finished = await Promise.race([
      drained,
      sleep(timeoutMs, timer.signal, this.clock).then(
        () => false,
        () => true,
      ),
    ]);
    timer.abort();
    if (!finished) {
      this.logger.warn('reconciles still running at the shutdown deadline', { inFlight: this.queue.processingCount });
      this.abortInFlight.abort(new Error('shutdown deadline passed'));
    } else {
      await Promise.all(this.workers);
    }
    return finished;
  }

  /** Reconciles in progress now. */
  get inFlight(): number {
    return this.queue.processingCount;
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      await this.process(key);
    }
  }

  /**
   * One reconcile in a span (when an SDK records): linked to the watch events that queued the key,
   * with its queue wait, result and error; the client's calls and cache reads are its children.
   */
  private process(key: string): Promise<void> {
    const links = this.origins.get(key);
    if (links) this.origins.delete(key);
    if (!tracer()) return this.reconcileKey(key, undefined);
    return inSpan(`reconcile ${this.name}`, { kind: SpanKind.INTERNAL, links }, (span) => this.reconcileKey(key, span));
  }

  private async reconcileKey(key: string, span: Span | undefined): Promise<void> {
    const request = parseKey(key);
    const reconcileID = randomUUID();
    const logger = this.logger.child({
      key,
      namespace: request.namespace || undefined,
      name: request.name,
      reconcileID,
    });
    if (span) {
      const waited = this.queue.queueWaitMs(key);
      span.setAttributes({
        'kop.controller.name': this.name,
        'kop.k8s.object.name': request.name,
        'kop.reconcile.id': reconcileID,
        ...(request.namespace ? { 'k8s.namespace.name': request.namespace } : {}),
        ...(waited !== undefined ? { 'kop.queue.wait_ms': waited } : {}),
        ...(this.queue.numRequeues(key) > 0 ? { 'kop.reconcile.retries': this.queue.numRequeues(key) } : {}),
      });
    }
    const started = this.clock.now();
    let outcome: ReconcileOutcome = 'success';
    let terminal = false;
    this.options.metrics?.activeWorkers(1);
    try {
      const result = await this.reconcileFunction(request, {
        logger,
        signal: this.abortInFlight.signal,
        controller: this.name,
        client: this.options.client,
        recorder: this.options.recorder,
      });
      if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) {
        outcome = 'requeue_after';
        this.queue.forget(key);
        this.queue.addAfter(key, result.requeueAfter);
      } else if (result && result.requeue) {
        outcome = 'requeue';
        this.queue.addRateLimited(key);
      } else {
        this.queue.forget(key);
      }
      logger.debug('reconciled', { result: outcome });
      if (span) {
        span.setAttribute('kop.reconcile.result', outcome);
        if (outcome === 'requeue_after') span.setAttribute('kop.reconcile.requeue_after_ms', result!.requeueAfter!);
      }
    } catch (err) {
      outcome = 'error';
      terminal = isTerminal(err);
      if (span) {
        // The error is handled here (requeued or given up on), so the span records it rather than inSpan.
        span.setAttributes({ 'kop.reconcile.result': 'error', 'error.type': errorType(err, terminal) });
        if (err instanceof Error) span.recordException(err);
        span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      }
      if (terminal) {
        logger.error('reconcile failed with a terminal error, not retrying', { err });
      } else if (isConflict(err)) {
        // The object changed after this reconcile read it (often the cache lagging a write of the
        // reconcile before): routine for an optimistic writer, so retried with backoff like any
        // error, and counted as one, but not logged as a failure.
        this.queue.addRateLimited(key);
        logger.info('the object changed since it was read (409 Conflict); retrying with the newer version', {
          retries: this.queue.numRequeues(key),
        });
      } else {
        this.queue.addRateLimited(key);
        logger.error('reconcile failed', { err, retries: this.queue.numRequeues(key) });
      }
    } finally {
      this.queue.done(key);
      this.options.metrics?.activeWorkers(-1);
      this.options.metrics?.reconciled(outcome, (this.clock.now() - started) / 1000, terminal);
    }
  }
}
