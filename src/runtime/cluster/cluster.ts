import type { Client } from '../client/client.js';
import type { KubernetesObject, UnstructuredObject } from '../client/types/meta.js';
import { apiVersionOf, fieldSelectorString, selectorString } from '../client/resource/options.js';
import type { ResourceType, Selector } from '../client/resource/options.js';
import { ResourceClient } from '../client/resource/resource-client.js';
import { RestClient, type RestClientOptions } from '../client/rest/rest-client.js';
import { ApiClient } from '../client/client.js';
import { CacheReader } from '../cache/cache-reader.js';
import type { InformerOptions, WatchRestartReason } from '../cache/informer.js';
import { Informer, stripManagedFields } from '../cache/informer.js';
import type { Lister } from '../cache/lister.js';
import { parseLabelSelector } from '../cache/label-selector.js';
import { objectKey } from '../cache/object-meta.js';
import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import { fieldIndexFunction, fieldIndexKey, fieldIndexName, missingIndexMessage } from './field-indexes.js';

/**
 * What the cache holds of one kind (controller-runtime's `cache.Options.ByObject`). The same
 * settings apply to the kind's metadata-only view.
 */
export interface CacheByObject {
  /** The kind these settings are for. */
  type: ResourceType;
  /**
   * Cache only objects with these labels (a map of exact matches, or the apiserver's syntax,
   * `app=web,tier!=db`). A cached read of an object outside it answers "not found", as the
   * apiserver would for a list with this selector; read it with `{ live: true }` when it may exist.
   */
  labelSelector?: Selector;
  /** Cache only objects matching this field selector (`metadata.name=x`, `status.phase!=Succeeded`). */
  fieldSelector?: Selector;
  /**
   * Cache only this namespace of a namespaced kind, in place of the manager's `namespace`. A
   * cached read in another namespace fails with a CacheScopeError rather than a "not found" guess.
   */
  namespace?: string;
  /**
   * Cache several namespaces of a namespaced kind (in place of `namespace`): a list of names, or
   * a map from each name to selectors that replace the kind's own in that namespace. Each
   * namespace is listed and watched on its own; reads and lists see them as one cache (a list
   * without a namespace spans them all), and a read in any other namespace fails with a
   * CacheScopeError naming them.
   */
  namespaces?:
    | readonly string[]
    | Readonly<Record<string, { readonly labelSelector?: Selector; readonly fieldSelector?: Selector }>>;
  /**
   * Applied to each object before it is cached (after managedFields are dropped): drop fields
   * the operator never reads. It must keep the name and namespace.
   */
  transform?: (object: UnstructuredObject) => KubernetesObject;
  /** Keep `metadata.managedFields` of this kind (overrides the cache-wide `cacheManagedFields`). */
  cacheManagedFields?: boolean;
}

/** Options of {@link Cluster}: how to reach the apiserver and what to cache. */
export interface ClusterOptions {
  /** REST client to use; otherwise one is loaded from `kubeconfig` (or the usual loading order). */
  rest?: RestClient;
  /** Kubeconfig path (the `--kubeconfig` flag). */
  kubeconfig?: string;
  /** Options of the REST client loaded from `kubeconfig` (ignored when `rest` is given). */
  clientOptions?: RestClientOptions;
  /** Cache only this namespace; default all namespaces. */
  namespace?: string;
  /** Kinds `client` always reads from the apiserver instead of the cache (controller-runtime's `Client.Cache.DisableFor`). */
  uncachedTypes?: readonly ResourceType[];
  /** Keep `metadata.managedFields` in cached objects; default false (see stripManagedFields). */
  cacheManagedFields?: boolean;
  /** What the cache holds per kind: selectors, a namespace, a transform (see {@link CacheByObject}). */
  byObject?: readonly CacheByObject[];
  /**
   * Informer defaults. `resyncPeriodMs` defaults to 10 hours plus up to 10% jitter per informer,
   * controller-runtime's SyncPeriod; 0 turns it off. `streamingList` defaults to true here.
   */
  informerDefaults?: Pick<
    InformerOptions<KubernetesObject>,
    'resyncPeriodMs' | 'silentWatchTimeoutMs' | 'watchTimeoutSeconds' | 'listPageSize' | 'streamingList'
  >;
  /** How long {@link Cluster.waitForCacheSync} waits before failing; default 2 min. */
  cacheSyncTimeoutMs?: number;
  /** Told each time an informer's watch restarts (the manager counts them in its metrics). */
  onWatchRestart?: (informer: string, reason: WatchRestartReason) => void;
  /** Told of the REST client when it is first used (the manager attaches its client metrics). */
  onRestClient?: (rest: RestClient) => void;
  logger?: Logger;
}

/** Distinct warnings remembered before the memory starts over (a long-running operator must not grow it forever). */
const REMEMBERED_WARNINGS = 1024;

/**
 * The default warning handler of a cluster's REST client: each distinct warning the apiserver
 * sends (a deprecated version, an unknown field) is logged once, as client-go's deduplicating
 * warning writer does, not once per request of a reconcile loop.
 */
export function logWarningsOnce(logger: Logger): NonNullable<RestClientOptions['onWarning']> {
  const seen = new Set<string>();
  return (warning, request) => {
    if (seen.has(warning)) return;
    if (seen.size >= REMEMBERED_WARNINGS) seen.clear();
    seen.add(warning);
    logger.warn('warning from the apiserver', { warning, request: `${request.method} ${request.path}` });
  };
}

/** controller-runtime's default SyncPeriod. */
const DEFAULT_RESYNC_MS = 10 * 3_600_000;

/**
 * One Kubernetes cluster as an operator sees it, after controller-runtime's `cluster.Cluster`:
 * the REST client, one shared informer per kind (the cache), the cache-backed client
 * reconcilers use and the uncached API reader. A Manager owns one; another (a second cluster)
 * is added with `manager.add(cluster)`, which starts its cache with the manager's and waits for
 * it to sync before the controllers start.
 */
export class Cluster {
  readonly logger: Logger;
  private readonly informerMap = new Map<string, Informer<KubernetesObject>>();
  /** Informers made with `deferStart` that nothing has started yet: the cache starts without them. */
  private readonly deferred = new Set<Informer<KubernetesObject>>();
  /** The indexed fields per kind (by the informer's id). */
  private readonly indexedFields = new Map<string, Set<string>>();
  private phase: 'new' | 'started' | 'stopped' = 'new';
  /** Aborted when the cache stops: ends what waits for an informer's first list. */
  private readonly stopped = new AbortController();
  /** Kinds whose empty cache was named already (a kind and its metadata-only view share one warning). */
  private readonly warnedEmpty = new Set<string>();
  private restClient: RestClient | undefined;
  private cachedClient: Client | undefined;
  private liveClient: Client | undefined;

  /** The per-kind settings, by the full kind's id, checked once. */
  private readonly byObject: ReadonlyMap<string, CacheByObject>;

  constructor(private readonly options: ClusterOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.byObject = checkByObject(options.byObject ?? [], options.uncachedTypes ?? []);
  }

  /**
   * The REST client: the one given, or one loaded from `kubeconfig` (then KUBECONFIG,
   * in-cluster, ~/.kube/config) on first use, so a manager without controllers can serve its
   * probes with no cluster configured.
   */
  get rest(): RestClient {
    if (!this.restClient) {
      this.restClient =
        this.options.rest ??
        RestClient.load(
          { kubeconfig: this.options.kubeconfig },
          { onWarning: logWarningsOnce(this.logger), ...this.options.clientOptions },
        );
      this.options.onRestClient?.(this.restClient);
    }
    return this.restClient;
  }

  /** The namespace the cache is limited to; undefined when it holds all namespaces. */
  get namespace(): string | undefined {
    return this.options.namespace;
  }

  /**
   * The cache-backed client, as controller-runtime's `cluster.GetClient()`: reads of a kind come
   * from the shared informer cache (the first read of a kind starts its informer and waits for
   * it to sync; before the cache starts, after it stops, and for `uncachedTypes`, reads go to the
   * apiserver), writes go to the apiserver.
   */
  get client(): Client {
    if (!this.cachedClient) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the reader's callbacks name the cluster they read from
      const cluster = this;
      const uncached = this.options.uncachedTypes ?? [];
      const reader = new CacheReader({
        informerFor: (type) => cluster.informerFor(type),
        get informersStarted() {
          return cluster.started;
        },
        get cacheStopped() {
          return cluster.phase === 'stopped';
        },
        isUncached: (type) =>
          uncached.some((t) => t.group === type.group && t.version === type.version && t.resource === type.resource),
        live: this.apiReader,
        cacheSelectorOf: (type, namespace) => cluster.cacheSelectorOf(type, namespace),
        fieldIndexes: (type, namespace, fields) => cluster.fieldIndexes(type, namespace, fields),
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

  /** True while the cache runs: from {@link start} until its signal aborts. Cached reads are served only then. */
  get started(): boolean {
    return this.phase === 'started';
  }

  /** The informers made so far, one per kind. */
  get informers(): ReadonlyArray<Informer<KubernetesObject>> {
    return [...this.informerMap.values()];
  }

  /**
   * The shared informer of a kind (created on first use; started with the cache, or at once when
   * it runs). With `deferStart`, one made now waits to be started by {@link syncInformers} (a
   * controller of a replica without a warm standby, once it leads) or by a later call without it
   * (a cached read of the kind): it lists nothing and holds no memory until then.
   */
  informerFor<T extends KubernetesObject>(type: ResourceType<T>, options: { deferStart?: boolean } = {}): Informer<T> {
    const id = typeId(type);
    let informer = this.informerMap.get(id);
    if (informer && !options.deferStart && this.deferred.delete(informer) && this.phase === 'started') informer.start();
    if (!informer) {
      const settings = this.byObject.get(typeId({ ...type, metadataOnly: false }));
      const namespace = type.namespaced ? (settings?.namespace ?? this.options.namespace) : undefined;
      const split = type.namespaced && settings ? namespaceSettings(settings) : undefined;
      const source = split
        ? split.map(({ namespace: ns, labelSelector, fieldSelector }) => ({
            namespace: ns,
            source: new ResourceClient<KubernetesObject>(this.rest, type, ns),
            labelSelector: selectorString(labelSelector),
            fieldSelector: fieldSelectorString(fieldSelector),
          }))
        : new ResourceClient<KubernetesObject>(this.rest, type, namespace);
      const name = `${type.kind}.${type.group || 'core'}${type.metadataOnly ? '/metadata' : ''}`;
      const onWatchRestart = this.options.onWatchRestart;
      informer = new Informer<KubernetesObject>(source, {
        // Streaming lists where the apiserver serves them (the WatchList feature, on by default in recent apiservers), pages elsewhere.
        streamingList: true,
        ...this.options.informerDefaults,
        resyncPeriodMs:
          this.options.informerDefaults?.resyncPeriodMs ?? Math.round(DEFAULT_RESYNC_MS * (1 + Math.random() / 10)),
        transform: cacheTransform(type, settings, this.options.cacheManagedFields ?? false),
        omitManagedFields: !(settings?.cacheManagedFields ?? this.options.cacheManagedFields ?? false),
        labelSelector: selectorString(settings?.labelSelector),
        fieldSelector: fieldSelectorString(settings?.fieldSelector),
        namespace: split ? undefined : namespace,
        name,
        notServedMessage: notServedMessage(type),
        logger: this.logger,
        onWatchRestart: onWatchRestart && ((reason) => onWatchRestart(name, reason)),
      });
      this.informerMap.set(id, informer);
      if (options.deferStart) this.deferred.add(informer);
      else if (this.phase === 'started') informer.start();
      const scope = settings && cacheScopeOf(settings);
      const kindId = typeId({ ...type, metadataOnly: false });
      if (scope && !this.warnedEmpty.has(kindId)) {
        this.warnedEmpty.add(kindId);
        // A selector or namespace with a typo caches nothing and reconciles nothing, silently: say so once.
        const synced = informer;
        void synced.waitForSync(this.stopped.signal).then(
          () => {
            if (synced.indexer.size === 0)
              this.logger.warn(
                `the cache of ${type.kind} holds no object: nothing matches ${scope} (check the byObject settings of ${type.kind})`,
                { informer: name },
              );
          },
          () => undefined,
        );
      }
    }
    return informer as unknown as Informer<T>;
  }

  /**
   * What limits the cache of a kind beyond its namespace, in words ("labels app=web"), for a
   * cached read that found nothing: the selector of `namespace` when that namespace has its own
   * (see `namespaces`); undefined when the whole kind is cached.
   */
  cacheSelectorOf(type: ResourceType, namespace?: string): string | undefined {
    const settings = this.byObject.get(typeId({ ...type, metadataOnly: false }));
    if (!settings) return undefined;
    const own =
      namespace === undefined ? undefined : namespaceSettings(settings)?.find((n) => n.namespace === namespace);
    return selectorWords(own ?? settings);
  }

  /**
   * Indexes the cached objects of a kind by a field, as controller-runtime's
   * `IndexField(ctx, obj, field, extract)`: `extract` returns the values an object is found
   * under. Then `client.list(type, { namespace, matchingFields: { [field]: value } })` answers
   * from the cache, in one namespace or in all of them. Before the cache starts only.
   */
  indexField<T extends KubernetesObject>(
    type: ResourceType<T>,
    field: string,
    extract: (object: T) => readonly string[],
  ): void {
    if (this.phase !== 'new')
      throw new Error(`index ${type.kind} field "${field}" before the manager starts: the cache is running already`);
    const id = typeId(type);
    const fields = this.indexedFields.get(id) ?? new Set<string>();
    if (fields.has(field)) throw new Error(`${type.kind} field "${field}" is indexed already`);
    // An index alone needs no list: the informer starts when a controller or a read needs the kind.
    this.informerFor(type, { deferStart: true }).indexer.addIndex(fieldIndexName(field), fieldIndexFunction(extract));
    fields.add(field);
    this.indexedFields.set(id, fields);
  }

  /** The index lookups of `matchingFields`; throws naming a field without an index. */
  private fieldIndexes(
    type: ResourceType,
    namespace: string | undefined,
    fields: Readonly<Record<string, string>>,
  ): Array<{ index: string; value: string }> {
    const indexed = this.indexedFields.get(typeId(type));
    const entries = Object.entries(fields);
    if (entries.length === 0) throw new TypeError(`list ${type.kind}: matchingFields names no field`);
    return entries.map(([field, value]) => {
      if (!indexed?.has(field)) throw new Error(missingIndexMessage(type, field));
      return { index: fieldIndexName(field), value: fieldIndexKey(namespace, value) };
    });
  }

  /** Cached read access to a kind. */
  lister<T extends KubernetesObject>(type: ResourceType<T>): Lister<T> {
    return this.informerFor<T>(type).lister;
  }

  /**
   * Runs the cache (a Runnable of the manager's cache group): starts every informer, and each
   * one made later, until `signal` aborts; then stops them and resolves.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.phase !== 'new') throw new Error('a cluster can be started once');
    this.phase = 'started';
    for (const informer of this.informerMap.values()) if (!this.deferred.has(informer)) informer.start();
    if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    this.phase = 'stopped';
    this.stopped.abort();
    await Promise.all([...this.informerMap.values()].map((i) => i.stop()));
  }

  /**
   * Resolves once every informer made so far holds its first list (those whose start is deferred
   * aside); rejects after `cacheSyncTimeoutMs` naming the informers still listing, or with the
   * signal's reason.
   */
  async waitForCacheSync(signal: AbortSignal): Promise<void> {
    await this.syncInformers(
      this.informers.filter((i) => !this.deferred.has(i)),
      signal,
    );
  }

  /**
   * Starts those of `informers` whose start was deferred (once the cache runs) and resolves once
   * they all hold their first list; rejects after `cacheSyncTimeoutMs` naming the informers still
   * listing, or with the signal's reason. A controller calls it before its workers start.
   */
  async syncInformers(informers: ReadonlyArray<Informer<KubernetesObject>>, signal: AbortSignal): Promise<void> {
    if (this.phase === 'started') {
      for (const informer of informers) if (this.deferred.delete(informer)) informer.start();
    }
    const timeoutMs = this.options.cacheSyncTimeoutMs ?? 120_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const either = AbortSignal.any([signal, timeout]);
    try {
      await Promise.all(informers.map((i) => i.waitForSync(either)));
    } catch (err) {
      if (!signal.aborted && timeout.aborted) {
        const pending = informers.filter((i) => !i.hasSynced()).map((i) => i.name);
        throw new Error(`caches did not sync within ${timeoutMs} ms: ${pending.join(', ')}`, { cause: err });
      }
      throw err;
    }
  }

  /** True for an informer made with `deferStart` that nothing has started yet: it holds nothing, and readiness does not wait for it. */
  isDeferred(informer: Informer<KubernetesObject>): boolean {
    return this.deferred.has(informer);
  }
}

/** A kind's id in the cache; its metadata-only view is cached apart, under an id of its own. */
function typeId(type: ResourceType): string {
  return `${apiVersionOf(type)}/${type.resource}${type.metadataOnly ? '#metadata' : ''}`;
}

/** A kind's selectors in words ("labels app=web and fields status.phase=Running"); undefined when there are none. */
function selectorWords(selectors: { labelSelector?: Selector; fieldSelector?: Selector }): string | undefined {
  const labels = selectorString(selectors.labelSelector);
  const fields = fieldSelectorString(selectors.fieldSelector);
  const parts = [...(labels ? [`labels ${labels}`] : []), ...(fields ? [`fields ${fields}`] : [])];
  return parts.length ? parts.join(' and ') : undefined;
}

/** The namespaces of an entry with several, each with its selectors (its own, else the kind's); undefined otherwise. */
function namespaceSettings(
  settings: CacheByObject,
): Array<{ namespace: string; labelSelector?: Selector; fieldSelector?: Selector }> | undefined {
  const namespaces = settings.namespaces;
  if (namespaces === undefined) return undefined;
  const entries: Array<[string, { labelSelector?: Selector; fieldSelector?: Selector }]> = isNameList(namespaces)
    ? namespaces.map((ns) => [ns, {}])
    : Object.entries(namespaces);
  return entries.map(([namespace, own]) => ({
    namespace,
    labelSelector: own.labelSelector ?? settings.labelSelector,
    fieldSelector: own.fieldSelector ?? settings.fieldSelector,
  }));
}

function isNameList(namespaces: NonNullable<CacheByObject['namespaces']>): namespaces is readonly string[] {
  return Array.isArray(namespaces);
}

/**
 * What limits a kind's cache, in words, when its byObject entry limits it at all ("labels
 * app=web in namespaces "a", "b""): named when the cache of the kind turns out empty.
 */
function cacheScopeOf(settings: CacheByObject): string | undefined {
  const split = namespaceSettings(settings);
  if (split) {
    const words = split.map(({ namespace, ...selectors }) => {
      const selector = selectorWords(selectors);
      return selector ? `${selector} in namespace "${namespace}"` : `namespace "${namespace}"`;
    });
    return words.join('; ');
  }
  const selector = selectorWords(settings);
  const namespace = settings.namespace === undefined ? undefined : `namespace "${settings.namespace}"`;
  if (selector && namespace) return `${selector} in ${namespace}`;
  return selector ?? namespace;
}

/**
 * The per-kind settings by kind, refusing what would go wrong later and out of sight: a kind
 * named twice, a namespace for a cluster-scoped kind, a label selector the apiserver would
 * refuse (the informer would retry it forever), a kind that is never cached anyway.
 */
function checkByObject(
  entries: readonly CacheByObject[],
  uncached: readonly ResourceType[],
): ReadonlyMap<string, CacheByObject> {
  const map = new Map<string, CacheByObject>();
  for (const entry of entries) {
    const type = entry.type;
    const where = `byObject ${type.kind} (${apiVersionOf(type)})`;
    const id = typeId({ ...type, metadataOnly: false });
    if (map.has(id)) throw new TypeError(`${where}: the kind is named twice; give it one entry`);
    if (entry.namespace !== undefined && !type.namespaced)
      throw new TypeError(`${where}: namespace "${entry.namespace}" given for a cluster-scoped kind`);
    if (entry.namespace === '')
      throw new TypeError(`${where}: namespace is empty; leave it out to cache all namespaces`);
    const namespaces = namespaceSettings(entry);
    if (namespaces !== undefined) {
      if (!type.namespaced) throw new TypeError(`${where}: namespaces given for a cluster-scoped kind`);
      if (entry.namespace !== undefined)
        throw new TypeError(`${where}: both namespace and namespaces given; list "${entry.namespace}" in namespaces`);
      if (namespaces.length === 0)
        throw new TypeError(`${where}: namespaces is empty; leave it out to cache all namespaces`);
      const seen = new Set<string>();
      for (const { namespace, labelSelector } of namespaces) {
        if (namespace === '') throw new TypeError(`${where}: namespaces names an empty namespace`);
        if (seen.has(namespace)) throw new TypeError(`${where}: namespace "${namespace}" is named twice in namespaces`);
        seen.add(namespace);
        checkLabelSelector(`${where} in namespace "${namespace}"`, labelSelector);
      }
    }
    if (uncached.some((t) => t.group === type.group && t.version === type.version && t.resource === type.resource))
      throw new TypeError(`${where}: the kind is in uncachedTypes, so it is never cached; drop one of the two`);
    checkLabelSelector(where, entry.labelSelector);
    map.set(id, entry);
  }
  return map;
}

/** Refuses a label selector the apiserver would refuse (the informer would retry it forever). */
function checkLabelSelector(where: string, selector: Selector | undefined): void {
  const labels = selectorString(selector);
  if (labels === undefined) return;
  try {
    parseLabelSelector(labels);
  } catch (err) {
    throw new TypeError(`${where}: labelSelector ${JSON.stringify(labels)}: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * The transform of a kind's informer: managedFields dropped unless kept (per kind, else
 * cache-wide), then the kind's own transform, checked to keep the object's key (the cache files
 * objects under it; a transform that renamed them would corrupt it).
 */
function cacheTransform(
  type: ResourceType,
  settings: CacheByObject | undefined,
  keepManagedFieldsByDefault: boolean,
): ((object: KubernetesObject) => KubernetesObject) | undefined {
  const strip = !(settings?.cacheManagedFields ?? keepManagedFieldsByDefault);
  const own = settings?.transform;
  if (!own) return strip ? stripManagedFields : undefined;
  return (object) => {
    const input = strip ? stripManagedFields(object) : object;
    const output = own(input as UnstructuredObject);
    if (objectKey(output) !== objectKey(input))
      throw new Error(
        `the byObject transform of ${type.kind} changed the object's key (${objectKey(input)} to ${objectKey(output)}); it must keep name and namespace`,
      );
    return output;
  };
}

/** What a user reads when the apiserver does not serve a watched kind: built-in APIs are switched on, others come with a CRD. */
function notServedMessage(type: ResourceType): string {
  const builtIn = type.group === '' || !type.group.includes('.') || type.group.endsWith('.k8s.io');
  const fix = builtIn
    ? 'this Kubernetes version does not serve it or has it turned off'
    : // Server-side: client-side apply refuses a CRD over 256 KiB (its last-applied annotation).
      'install its CRD (kop install, or kubectl apply --server-side -k config/crd)';
  return `the API ${apiVersionOf(type)} ${type.kind} is not served by this cluster: ${fix}`;
}
