import type { KubernetesObject, ObjectList } from '../client/types/meta.js';
import type { ListOptions, WatchEvent, WatchOptions } from '../client/resource/options.js';
import { DEFAULT_LIST_PAGE_SIZE, listComplete } from '../client/resource/list-pager.js';
import { isGone, isNotFound, isTooManyRequests } from '../client/errors/api-error.js';
import type { Clock } from '../util/clock.js';
import { sleep, systemClock } from '../util/clock.js';
import type { IndexFunction } from './indexer.js';
import { Indexer, NAMESPACE_INDEX } from './indexer.js';
import { Lister } from './lister.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { metaOf, objectKey } from './object-meta.js';
import { SpanKind } from '@opentelemetry/api';
import { inSpan, tracer } from '../util/tracing.js';

/**
 * What an informer needs from the API: a paged list and a watch. The manager gives each informer
 * the kind's resource client (all namespaces, or the one it is limited to); the dynamic client's fit too.
 */
export interface ListerWatcher<T extends KubernetesObject> {
  list(options: ListOptions): Promise<ObjectList<T>>;
  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

/** Extra facts about a delete notification. */
export interface DeleteInfo {
  /**
   * True when the deletion was inferred by a relist (the watch missed it), so `object` is the
   * last state the cache saw rather than the state at deletion.
   */
  finalStateUnknown: boolean;
}

/** Callbacks for cache changes. They run synchronously in event order; keep them fast (enqueue work). */
export interface InformerEventHandler<T extends KubernetesObject> {
  /** `initialList` is true for objects delivered by the first list or when the handler is added late. */
  onAdd?(object: T, initialList: boolean): void;
  /** Also called with the same object twice on each resync. */
  onUpdate?(oldObject: T, newObject: T): void;
  /** Receives the last known state of the deleted object. */
  onDelete?(object: T, info: DeleteInfo): void;
}

/** How an informer's cache was last filled: a streaming list, or a list in pages (or in one piece, after an expired continue token). */
export type InformerListMethod = 'streaming' | 'paginated';

/** What an informer holds and how it got it (metrics, the manager's /debug/cache, the memory budget). */
export interface InformerStats {
  name: string;
  /** Objects in the cache. */
  objects: number;
  /** Estimated JSON size of the cached objects, after the transform (managedFields dropped by default). */
  bytes: number;
  /** Full lists after the first one (after a 410 Gone). */
  relists: number;
  /** When the last full list (first or relist) was complete, in ms since the epoch; undefined before. */
  lastSyncTime: number | undefined;
  /** How that list was made. */
  lastListMethod: InformerListMethod | undefined;
  synced: boolean;
}

/** Why an informer's watch was replaced; reported to {@link InformerOptions.onWatchRestart}. */
export type WatchRestartReason = 'closed' | 'gone' | 'silent' | 'error';

/** Options of {@link Informer}. */
export interface InformerOptions<T extends KubernetesObject> {
  /** Name used in logs and metrics, usually the kind. */
  name?: string;
  /**
   * What to log when the list answers 404 Not Found: the apiserver does not serve the kind (its
   * CRD is not installed, or its API version is off), which a retry alone never fixes.
   */
  notServedMessage?: string;
  /** Replays every cached object to the handlers as an update this often; 0 (default) disables. */
  resyncPeriodMs?: number;
  /**
   * A watch that delivers neither an event nor a bookmark for this long is considered stalled
   * (half-open connection, stuck proxy) and is replaced. Default 180 s: an idle watch gets a
   * bookmark about once a minute, the first one up to two minutes after it opened (measured on
   * kube-apiserver 1.36), so a healthy watch is never taken for a dead one.
   */
  silentWatchTimeoutMs?: number;
  /** Server-side watch timeout; default a random 5–10 minutes so many informers do not reconnect at once. */
  watchTimeoutSeconds?: number;
  /** Page size of the list; default 500. */
  listPageSize?: number;
  /**
   * Fill the cache with a streaming list (a watch with `sendInitialEvents=true`, ended by the
   * `k8s.io/initial-events-end` bookmark, then kept open as the watch) instead of a paged list:
   * the apiserver sends the objects one by one from its watch cache rather than building pages,
   * and the informer never holds a page it has not yet cached. When the apiserver refuses it (the
   * WatchList feature off, an old server), the informer lists in pages that time and tries the
   * stream again at the next relist (any failure of the stream but 429 and a refused connection
   * counts, as in client-go). Default false here; the manager's cache turns it on.
   */
  streamingList?: boolean;
  /** First retry delay after a failed list or watch (doubles, with jitter); default 800 ms. */
  initialBackoffMs?: number;
  /** Cap of the retry delay; default 30 s. */
  maxBackoffMs?: number;
  /**
   * Applied to every object before it is cached and handed to handlers, e.g. to drop fields
   * nobody reads (see {@link stripManagedFields}) and save memory. Must not change name or namespace.
   */
  transform?: (object: T) => T;
  /**
   * Nothing reads the objects' managedFields (the transform drops them): the watch and the list
   * may leave them out of each event's or page's text before parsing it, which saves most of the
   * parse of a large list. The transform still runs on every object.
   */
  omitManagedFields?: boolean;
  /** Custom indexes of the cache, by name. */
  indexers?: Record<string, IndexFunction<T>>;
  /**
   * The one namespace the source lists and watches, when it is limited to one (a namespaced
   * manager); the lister then refuses reads of other namespaces with a CacheScopeError.
   */
  namespace?: string;
  /** Label selector limiting what is cached. */
  labelSelector?: string;
  /** Field selector limiting what is cached. */
  fieldSelector?: string;
  logger?: Logger;
  clock?: Clock;
  /** Called each time the watch is re-established (metrics). */
  onWatchRestart?(reason: WatchRestartReason): void;
}

const SILENT = Symbol('silent');

/** The annotation of the bookmark that ends a streaming list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/**
 * Gives the items of a list the apiVersion and kind the apiserver leaves out of them (they are on
 * the list), in place: objects then look the same whether a list or a watch event brought them.
 */
function withKindOfList<T extends KubernetesObject>(list: ObjectList<T>): void {
  const kind = list.kind?.endsWith('List') ? list.kind.slice(0, -'List'.length) : undefined;
  if (!kind || !list.apiVersion) return;
  for (const item of list.items) {
    const typed = item as { apiVersion?: string; kind?: string };
    typed.apiVersion ??= list.apiVersion;
    typed.kind ??= kind;
  }
}

/**
 * Whether a failed streaming list should be made in pages this time, as client-go decides: every
 * failure but 429 and a refused connection (an apiserver down, which a list would meet too), so
 * a stream the server refuses, breaks or garbles still fills the cache from pages.
 */
function streamingListRefused(err: unknown): boolean {
  return !isTooManyRequests(err) && !connectionRefused(err);
}

function connectionRefused(err: unknown): boolean {
  for (let cause = err; cause instanceof Error; cause = cause.cause)
    if ((cause as NodeJS.ErrnoException).code === 'ECONNREFUSED') return true;
  return false;
}

/**
 * An informer transform that drops `metadata.managedFields` (server-side apply bookkeeping, often
 * half of an object's size). Objects written back from the cache without the field keep their
 * managedFields on the server.
 */
export function stripManagedFields<T extends KubernetesObject>(object: T): T {
  const metadata = object.metadata as (T['metadata'] & { managedFields?: unknown }) | undefined;
  if (!metadata || metadata.managedFields === undefined) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  void _dropped;
  return { ...object, metadata: rest };
}

/** One namespace of an informer that caches several, each listed and watched on its own. */
type NamespaceSource<T extends KubernetesObject> = {
  namespace: string;
  source: ListerWatcher<T>;
  /** Replaces the informer's `labelSelector` in this namespace. */
  labelSelector?: string;
  /** Replaces the informer's `fieldSelector` in this namespace. */
  fieldSelector?: string;
};

/**
 * Keeps a local cache of one kind in sync with the apiserver and notifies handlers of changes:
 * lists (in pages; in one piece if a page's continue token expires), then watches from the list's
 * resourceVersion with bookmarks; re-watches from the last seen resourceVersion when a watch ends
 * or fails; relists on 410 Gone; replaces a watch that went silent; backs off on errors. Objects that vanished between a watch and a relist are
 * reported as deletes with their last known state.
 *
 * Given one source per namespace (several namespaces of a kind, each with its own selectors), it
 * lists and watches each namespace on its own and keeps them in one cache: one lister, one set
 * of handlers and indexes, synced once every namespace is.
 */
export class Informer<T extends KubernetesObject> {
  /** The cache. */
  readonly indexer: Indexer<T>;
  /** Typed read access to the cache. */
  readonly lister: Lister<T>;
  /** How often every cached object is replayed to the handlers as an update; 0 when never. */
  readonly resyncPeriodMs: number;
  readonly name: string;
  private readonly handlers = new Set<InformerEventHandler<T>>();
  private readonly syncWaiters: Array<() => void> = [];
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly stopController = new AbortController();
  private running: Promise<void> | undefined;
  private synced = false;
  private cancelResync: (() => void) | undefined;
  /** One list-and-watch loop per namespace (one in all when the source is not split by namespace). */
  private readonly reflectors: ReadonlyArray<Reflector<T>>;

  /**
   * `source`: where the kind is listed and watched, or one source per namespace (with selectors
   * of its own, defaulting to the options'), cached together.
   */
  constructor(
    source: ListerWatcher<T> | ReadonlyArray<NamespaceSource<T>>,
    private readonly options: InformerOptions<T> = {},
  ) {
    this.indexer = new Indexer<T>(options.indexers);
    this.name = options.name ?? 'informer';
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.clock = options.clock ?? systemClock;
    this.logger = (options.logger ?? silentLogger).child({ informer: this.name });
    const scopes = isNamespaceSources(source)
      ? namespaceScopes(source, options)
      : [
          {
            source,
            namespace: options.namespace,
            labelSelector: options.labelSelector,
            fieldSelector: options.fieldSelector,
          },
        ];
    const namespaces = isNamespaceSources(source) ? scopes.map((s) => s.namespace!) : options.namespace;
    this.lister = new Lister<T>(this.indexer, namespaces, this);
    const split = scopes.length > 1;
    this.reflectors = scopes.map(
      (scope) =>
        new Reflector<T>(scope, this.options, {
          name: this.name,
          logger: split ? this.logger.child({ namespace: scope.namespace }) : this.logger,
          clock: this.clock,
          signal: this.stopController.signal,
          // With several namespaces, a relist of one must not drop the objects of the others.
          replace: (items, initial) => this.replace(items, split ? scope.namespace : undefined, initial),
          handleEvent: (event) => this.handleEvent(event),
          synced: () => this.reflectorSynced(),
        }),
    );
  }

  /** Registers handlers. Every object already cached is replayed as an add. Returns a remover. */
  addEventHandler(handler: InformerEventHandler<T>): () => void {
    this.handlers.add(handler);
    // Objects are stored only once a namespace's first list is complete, so this replays exactly
    // what the handler would otherwise miss (every namespace synced so far).
    for (const object of this.indexer.list()) this.call(() => handler.onAdd?.(object, true));
    return () => this.handlers.delete(handler);
  }

  /**
   * How long the list or watch has been failing without a success in between, in ms; 0 while
   * healthy. A readiness check reports informers that fail for long (a server sending malformed
   * events, a list that never ends, an apiserver gone), which retries alone would hide.
   */
  get failingForMs(): number {
    const since = this.longestFailing()?.failingSince;
    return since === undefined ? 0 : this.clock.now() - since;
  }

  /** Why it has been failing, when it is. */
  get lastError(): unknown {
    return this.longestFailing()?.lastFailure;
  }

  private longestFailing(): Reflector<T> | undefined {
    let worst: Reflector<T> | undefined;
    for (const r of this.reflectors)
      if (r.failingSince !== undefined && (worst === undefined || r.failingSince < worst.failingSince!)) worst = r;
    return worst;
  }

  /** True once the first list (of every namespace) has been stored in the cache. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Objects and estimated bytes held, relists, last sync: read when metrics are scraped. */
  get stats(): InformerStats {
    let latest: Reflector<T> | undefined;
    for (const r of this.reflectors)
      if (r.lastSyncTime !== undefined && (latest === undefined || r.lastSyncTime > latest.lastSyncTime!)) latest = r;
    return {
      name: this.name,
      objects: this.indexer.size,
      bytes: this.indexer.bytes,
      relists: this.reflectors.reduce((sum, r) => sum + Math.max(0, r.lists - 1), 0),
      lastSyncTime: latest?.lastSyncTime,
      lastListMethod: latest?.lastListMethod,
      synced: this.synced,
    };
  }

  /**
   * The resourceVersion the cache reflects; empty when it caches several namespaces apart (each
   * has its own, and no one version stands for them all).
   */
  get lastSyncResourceVersion(): string {
    return this.reflectors.length === 1 ? this.reflectors[0]!.resourceVersion : '';
  }

  /** Resolves once the cache holds the first complete list; rejects if `signal` aborts first. */
  waitForSync(signal?: AbortSignal): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Starts listing and watching in the background. Idempotent. */
  start(): void {
    if (this.running || this.stopController.signal.aborted) return;
    this.running = Promise.all(
      this.reflectors.map((reflector) =>
        reflector.run().catch((err: unknown) => {
          if (!this.stopController.signal.aborted) this.logger.error('informer stopped unexpectedly', { err });
        }),
      ),
    ).then(() => undefined);
    this.scheduleResync();
  }

  /** Stops the watch and resync; resolves when the background loop has ended. */
  async stop(): Promise<void> {
    this.stopController.abort(new Error(`informer ${this.name} stopped`));
    this.cancelResync?.();
    await this.running;
  }

  private reflectorSynced(): void {
    if (this.synced || !this.reflectors.every((r) => r.synced)) return;
    this.synced = true;
    this.syncWaiters.splice(0).forEach((resolve) => resolve());
  }

  /**
   * Makes the cache (or its part in `namespace`) equal to a complete list (objects, or objects by
   * key as a streaming list gathers them), notifying handlers of the differences. Filling an empty
   * part (the first list, always) needs no record of the keys seen: nothing can have vanished; with
   * 100,000 objects that set was 100,000 more strings for the collector to move during the sync.
   */
  private replace(
    items: Iterable<T> | ReadonlyMap<string, T>,
    namespace: string | undefined,
    initial: boolean,
  ): number {
    const cached =
      namespace === undefined
        ? this.indexer.keys()
        : this.indexer.byIndex(NAMESPACE_INDEX, namespace).map((object) => objectKey(object));
    const seen = cached.length === 0 ? undefined : new Set<string>();
    let count = 0;
    const store = (key: string, item: T): void => {
      seen?.add(key);
      count++;
      const previous = this.indexer.upsert(item, key);
      if (!previous) this.dispatchAdd(item, initial);
      else if (metaOf(previous).resourceVersion !== metaOf(item).resourceVersion) this.dispatchUpdate(previous, item);
    };
    if (items instanceof Map) for (const [key, item] of items as ReadonlyMap<string, T>) store(key, item);
    else for (const item of items as Iterable<T>) store(objectKey(item), item);
    if (seen) {
      for (const key of cached) {
        if (seen.has(key)) continue;
        const gone = this.indexer.remove(key);
        if (gone) this.dispatchDelete(gone, { finalStateUnknown: true });
      }
    }
    return count;
  }

  /** Applies one watch event in a span of its own (when an SDK records), which the reconciles it queues link to. */
  private handleEvent(event: WatchEvent<T>): void {
    if (event.type === 'BOOKMARK') return;
    if (!tracer()) return this.applyEvent(event);
    inSpan(`watch event ${event.type}`, { kind: SpanKind.CONSUMER }, (span) => {
      if (span) {
        const meta = event.object.metadata;
        span.setAttributes({
          'kop.informer.name': this.name,
          'kop.watch.event.type': event.type,
          ...(meta?.namespace ? { 'k8s.namespace.name': meta.namespace } : {}),
          ...(meta?.name ? { 'kop.k8s.object.name': meta.name } : {}),
          ...(meta?.resourceVersion ? { 'kop.k8s.resource_version': meta.resourceVersion } : {}),
        });
      }
      this.applyEvent(event);
    });
  }

  private applyEvent(event: WatchEvent<T>): void {
    const transform = this.options.transform;
    switch (event.type) {
      case 'BOOKMARK':
        break;
      case 'ADDED':
      case 'MODIFIED': {
        const object = transform ? transform(event.object) : event.object;
        const previous = this.indexer.upsert(object);
        if (previous) this.dispatchUpdate(previous, object);
        else this.dispatchAdd(object, false);
        break;
      }
      case 'DELETED': {
        const object = transform ? transform(event.object) : event.object;
        this.indexer.remove(objectKey(object));
        this.dispatchDelete(object, { finalStateUnknown: false });
        break;
      }
    }
  }

  private scheduleResync(): void {
    const period = this.resyncPeriodMs;
    if (period <= 0 || this.stopController.signal.aborted) return;
    this.cancelResync = this.clock.setTimer(() => {
      if (this.synced) for (const object of this.indexer.list()) this.dispatchUpdate(object, object);
      this.scheduleResync();
    }, period);
  }

  private dispatchAdd(object: T, initial: boolean): void {
    for (const handler of this.handlers) this.call(() => handler.onAdd?.(object, initial));
  }

  private dispatchUpdate(oldObject: T, newObject: T): void {
    for (const handler of this.handlers) this.call(() => handler.onUpdate?.(oldObject, newObject));
  }

  private dispatchDelete(object: T, info: DeleteInfo): void {
    for (const handler of this.handlers) this.call(() => handler.onDelete?.(object, info));
  }

  /** A failing handler must not break the watch loop or other handlers. */
  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error('event handler failed', { err });
    }
  }
}

function isNamespaceSources<T extends KubernetesObject>(
  source: ListerWatcher<T> | ReadonlyArray<NamespaceSource<T>>,
): source is ReadonlyArray<NamespaceSource<T>> {
  return Array.isArray(source);
}

/** The scopes of an informer given one source per namespace, checked: one namespace each, at least one. */
function namespaceScopes<T extends KubernetesObject>(
  sources: ReadonlyArray<NamespaceSource<T>>,
  options: InformerOptions<T>,
): ReflectorScope<T>[] {
  const name = options.name ?? 'informer';
  if (sources.length === 0) throw new TypeError(`informer ${name}: no namespace given; pass one source for all`);
  if (options.namespace !== undefined)
    throw new TypeError(`informer ${name}: options.namespace and one source per namespace given; give one of the two`);
  const seen = new Set<string>();
  return sources.map((s) => {
    if (!s.namespace) throw new TypeError(`informer ${name}: a namespace source has an empty namespace`);
    if (seen.has(s.namespace)) throw new TypeError(`informer ${name}: namespace "${s.namespace}" is given twice`);
    seen.add(s.namespace);
    return {
      source: s.source,
      namespace: s.namespace,
      labelSelector: s.labelSelector ?? options.labelSelector,
      fieldSelector: s.fieldSelector ?? options.fieldSelector,
    };
  });
}

/** What one list-and-watch loop covers. */
interface ReflectorScope<T extends KubernetesObject> {
  source: ListerWatcher<T>;
  namespace: string | undefined;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
}

/** What a loop needs of its informer. */
interface ReflectorHost<T extends KubernetesObject> {
  name: string;
  logger: Logger;
  clock: Clock;
  signal: AbortSignal;
  /** Stores a complete list (the loop's part of the cache); returns how many objects it had. */
  replace(items: Iterable<T> | ReadonlyMap<string, T>, initial: boolean): number;
  handleEvent(event: WatchEvent<T>): void;
  /** Told after the loop's first complete list. */
  synced(): void;
}

/**
 * One list-and-watch loop (client-go's Reflector): lists, or streams the initial list, then
 * watches from its own resourceVersion, feeding its informer's cache.
 */
class Reflector<T extends KubernetesObject> {
  resourceVersion = '';
  synced = false;
  lists = 0;
  lastSyncTime: number | undefined;
  lastListMethod: InformerListMethod | undefined;
  failingSince: number | undefined;
  lastFailure: unknown;
  /** Set when the apiserver refused a streaming list: the next list is paged, then streaming is tried again. */
  private pageNextList = false;

  constructor(
    private readonly scope: ReflectorScope<T>,
    private readonly options: InformerOptions<T>,
    private readonly host: ReflectorHost<T>,
  ) {}

  private get logger(): Logger {
    return this.host.logger;
  }

  private get clock(): Clock {
    return this.host.clock;
  }

  private get stopped(): boolean {
    return this.host.signal.aborted;
  }

  async run(): Promise<void> {
    let failures = 0;
    let needList = true;
    while (!this.stopped) {
      try {
        const streaming = needList && this.options.streamingList === true && !this.pageNextList;
        if (needList && !streaming) {
          // A span for the list and the adds it hands out: the reconciles it queues link back to it.
          await inSpan(`informer list ${this.host.name}`, { attributes: { 'kop.informer.name': this.host.name } }, () =>
            this.listAndReplace(),
          );
          needList = false;
          this.pageNextList = false;
          failures = 0;
          this.failingSince = undefined;
        }
        const watchStarted = this.clock.now();
        const outcome = await this.watchOnce(
          streaming
            ? () => {
                needList = false;
                failures = 0;
                this.failingSince = undefined;
              }
            : undefined,
        );
        if (this.stopped) return;
        if (needList && outcome !== 'gone') {
          // The stream ended before its last initial event: not a refusal, so stream again after a pause.
          this.logger.warn('streaming list ended before the initial-events-end bookmark, retrying', { outcome });
          await sleep(this.backoff(failures++), this.host.signal, this.clock);
          continue;
        }
        if (outcome === 'closed' && this.clock.now() - watchStarted >= 1000) this.failingSince = undefined;
        if (outcome === 'gone') {
          this.logger.info('resourceVersion too old, relisting', { resourceVersion: this.resourceVersion });
          needList = true;
        } else if (outcome === 'silent') {
          this.logger.warn('watch silent too long, reconnecting', { resourceVersion: this.resourceVersion });
        }
        this.options.onWatchRestart?.(outcome);
        // A watch that ended on its own timeout is normal; one that went silent, or was closed
        // right after opening (an overloaded or misbehaving server), waits before retrying.
        if (outcome === 'silent' || (outcome === 'closed' && this.clock.now() - watchStarted < 1000)) {
          await sleep(this.backoff(failures++), this.host.signal, this.clock);
        } else if (outcome === 'closed') failures = 0;
      } catch (err) {
        if (this.stopped) return;
        this.failingSince ??= this.clock.now();
        this.lastFailure = err;
        if (needList && this.options.streamingList && !this.pageNextList && streamingListRefused(err)) {
          // As client-go does: any failure but "too many requests" or a refused connection means the
          // apiserver does not serve streaming lists (for this kind, or at all), or not well: page this one.
          this.logger.debug('streaming list refused, listing in pages', { err });
          this.pageNextList = true;
          continue;
        }
        if (isGone(err)) {
          this.logger.info('resourceVersion too old, relisting', { resourceVersion: this.resourceVersion });
          needList = true;
          this.options.onWatchRestart?.('gone');
          continue;
        }
        const delay = this.backoff(failures++);
        if (needList && isNotFound(err)) {
          // Said plainly: "404 page not found" on every retry does not tell a user the CRD is missing.
          this.logger.warn(
            `${this.options.notServedMessage ?? `the API of ${this.host.name} is not served by this cluster`}; retrying`,
            { retryInMs: delay },
          );
        } else {
          this.logger.warn(needList ? 'list failed, retrying' : 'watch failed, retrying', { err, retryInMs: delay });
        }
        if (!needList) this.options.onWatchRestart?.('error');
        try {
          await sleep(delay, this.host.signal, this.clock);
        } catch {
          return;
        }
      }
    }
  }

  private backoff(failures: number): number {
    const initial = this.options.initialBackoffMs ?? 800;
    const max = this.options.maxBackoffMs ?? 30_000;
    const base = Math.min(max, initial * 2 ** Math.min(failures, 30));
    return Math.round(base * (0.5 + Math.random() * 0.5));
  }

  /**
   * Lists every page, then makes the cache equal to the result, notifying handlers of the differences.
   * A continue token that expires mid-way (etcd compacted past the first page) ends in one list
   * without `limit` rather than paging from the start again, which could repeat forever on a big,
   * busy set.
   */
  private async listAndReplace(): Promise<void> {
    const transform = this.options.transform;
    // Transforming each page as it arrives lets the untransformed objects be collected early.
    const listPage = async (options: ListOptions): Promise<ObjectList<T>> => {
      const page = await this.scope.source.list(options);
      withKindOfList(page);
      return transform ? { ...page, items: page.items.map(transform) } : page;
    };
    const list = await listComplete(listPage, {
      limit: this.options.listPageSize ?? DEFAULT_LIST_PAGE_SIZE,
      labelSelector: this.scope.labelSelector,
      fieldSelector: this.scope.fieldSelector,
      signal: this.host.signal,
      ...(this.options.omitManagedFields ? { omitManagedFields: true } : {}),
      onContinueExpired: (err) => this.logger.info('list continue token expired, listing everything at once', { err }),
    });
    if (this.stopped) return;
    this.replace(list.items, list.metadata.resourceVersion ?? '', 'paginated');
  }

  /** Makes the loop's part of the cache equal to a complete list. */
  private replace(
    items: Iterable<T> | ReadonlyMap<string, T>,
    resourceVersion: string,
    method: InformerListMethod,
  ): void {
    const count = this.host.replace(items, !this.synced);
    this.resourceVersion = resourceVersion;
    this.lists++;
    this.lastSyncTime = Date.now();
    this.lastListMethod = method;
    this.logger.debug('listed', { count, resourceVersion, method });
    if (!this.synced) {
      this.synced = true;
      this.host.synced();
    }
  }

  /**
   * Runs one watch until it ends; returns why. Throws on errors other than 410. With `listed`, it
   * is a streaming list: the initial events are gathered (transformed as they come) until the
   * initial-events-end bookmark, then they replace the cache, `listed` is called, and the same
   * stream goes on as the watch.
   */
  private async watchOnce(listed?: () => void): Promise<WatchRestartReason> {
    const controller = new AbortController();
    const stop = (): void => controller.abort();
    this.host.signal.addEventListener('abort', stop, { once: true });
    // A stop that came while listing: the listener above would never fire, and the watch would run to its timeout.
    if (this.stopped) controller.abort();
    const timeoutSeconds = this.options.watchTimeoutSeconds ?? Math.round(300 + Math.random() * 300);
    const silentMs = this.options.silentWatchTimeoutMs ?? 180_000;
    // A streaming list starts at the latest revision (a consistent read), also after a 410.
    let initial = listed ? new Map<string, T>() : undefined;
    const events = this.scope.source.watch({
      ...(initial
        ? { resourceVersion: '', resourceVersionMatch: 'NotOlderThan', sendInitialEvents: true }
        : { resourceVersion: this.resourceVersion }),
      allowWatchBookmarks: true,
      timeoutSeconds,
      labelSelector: this.scope.labelSelector,
      fieldSelector: this.scope.fieldSelector,
      signal: controller.signal,
      ...(this.options.omitManagedFields ? { omitManagedFields: true } : {}),
    });
    const iterator = events[Symbol.asyncIterator]();
    // One watchdog per watch rather than a timer per event (a busy watch delivers thousands):
    // it fires once per window and re-arms for the rest of the window when events arrived meanwhile.
    // Each read races the watchdog through a promise of its own: racing every read against one
    // promise that lives as long as the watch would hang a reaction on it per event, keeping every
    // event (and the object it carries) alive until the watch ends, minutes later.
    let lastActivity = this.clock.now();
    let silent = false;
    let wakeRead: ((value: typeof SILENT) => void) | undefined;
    const check = (): void => {
      const idle = this.clock.now() - lastActivity;
      if (idle >= silentMs) {
        silent = true;
        wakeRead?.(SILENT);
      } else cancelWatchdog = this.clock.setTimer(check, silentMs - idle);
    };
    let cancelWatchdog = this.clock.setTimer(check, silentMs);
    try {
      for (;;) {
        const next = iterator.next();
        const result: IteratorResult<WatchEvent<T>> | typeof SILENT = await new Promise((resolve, reject) => {
          if (silent) return resolve(SILENT);
          wakeRead = resolve;
          next.then(resolve, reject);
        });
        wakeRead = undefined;
        if (result === SILENT) {
          // Closing the connection makes the pending read settle; its outcome no longer matters.
          next.catch(() => undefined);
          controller.abort();
          return 'silent';
        }
        if (result.done) return 'closed';
        lastActivity = this.clock.now();
        if (initial) {
          if (!this.gatherInitialEvent(initial, result.value)) continue;
          if (this.stopped) return 'closed';
          this.replace(initial, this.resourceVersion, 'streaming');
          initial = undefined;
          listed!();
          continue;
        }
        this.host.handleEvent(result.value);
        const version = result.value.object.metadata?.resourceVersion;
        if (version) this.resourceVersion = version;
        this.failingSince = undefined;
      }
    } catch (err) {
      if (isGone(err)) return 'gone';
      throw err;
    } finally {
      cancelWatchdog();
      this.host.signal.removeEventListener('abort', stop);
      controller.abort();
    }
  }

  /**
   * Adds one event of a streaming list to what will replace the cache; true when it is the
   * bookmark that ends the initial events (its resourceVersion is the list's).
   */
  private gatherInitialEvent(initial: Map<string, T>, event: WatchEvent<T>): boolean {
    if (event.type === 'BOOKMARK') {
      this.resourceVersion = event.object.metadata.resourceVersion;
      return event.object.metadata.annotations?.[INITIAL_EVENTS_END] === 'true';
    }
    const object = this.options.transform ? this.options.transform(event.object) : event.object;
    if (event.type === 'DELETED') initial.delete(objectKey(object));
    else initial.set(objectKey(object), object);
    return false;
  }
}
