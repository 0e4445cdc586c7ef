import type { Client } from '../client/client.js';
import type { KubernetesObject } from '../client/types/meta.js';
import type { PartialObjectMetadata, ResourceType } from '../client/resource/options.js';
import { metadataOnly } from '../client/resource/options.js';
import type { Informer } from '../cache/informer.js';
import type { WorkQueueMetrics } from '../queue/work-queue.js';
import type { Logger } from '../util/logger.js';
import type { ControllerMetrics, ReconcileFunction, Reconciler } from './controller.js';
import type { EventRecorder } from './event-recorder.js';
import { Controller } from './controller.js';
import type { MapFunction } from './event-handlers.js';
import { mapToControllerOwner, mapToSelf } from './event-handlers.js';
import type { Predicate } from './predicates.js';
import type { RateLimiter } from '../queue/rate-limiter.js';

/**
 * What a builder needs of the manager that runs its controller: the shared informers, the
 * client, an event recorder, logging and metrics, and registration (a name check before the
 * controller is made, then the controller). `manager.controller(name)` hands its builder one;
 * the builder depends on this shape only, so the manager may import the builder and not the reverse.
 */
export interface ControllerHost {
  readonly client: Client;
  readonly logger: Logger;
  readonly metrics: {
    controller(name: string, workers: number): ControllerMetrics;
    queue(name: string): WorkQueueMetrics;
  };
  informerFor<T extends KubernetesObject>(type: ResourceType<T>): Informer<T>;
  eventRecorder(component: string): EventRecorder;
  checkControllerName(name: string): void;
  /** Registers `controller`, whose `for` kind is `primary`. */
  add(controller: Controller, primary?: ResourceType): void;
  /**
   * The reconcile function as this manager runs it for a controller of `primary` (read through
   * `informer`): with sharding, gated to this replica's shard. Absent: as given.
   */
  wrapReconcile?(
    primary: ResourceType,
    informer: Informer<KubernetesObject>,
    reconcile: ReconcileFunction,
  ): ReconcileFunction;
}

/** Options of one watched kind. */
export interface ForOptions<T extends KubernetesObject> {
  /** Events on this kind must pass every predicate to enqueue anything. */
  predicates?: Predicate<T>[];
  /**
   * Watch and cache only the objects' metadata (controller-runtime's `OnlyMetadata`): for kinds
   * the controller only needs to notice, such as owned ConfigMaps or Secrets, at a fraction of
   * their memory. Predicates and map functions then see a `PartialObjectMetadata`; cached reads
   * of the kind go through `metadataOnly(type)` (a read of the full kind caches it again, in full).
   */
  metadataOnly?: boolean;
}

/** {@link ForOptions} of a kind watched for its metadata only. */
type MetadataOnlyOptions = ForOptions<PartialObjectMetadata> & { metadataOnly: true };

interface PendingWatch {
  type: ResourceType;
  map: MapFunction<KubernetesObject> | 'owner';
  predicates: Predicate<KubernetesObject>[];
}

/**
 * Declares what a controller reconciles and what wakes it, in the spirit of controller-runtime.
 * From a reconciler's `setupWithManager(manager)`, with `redisClusterType` from the kind's
 * generated `.client.ts`, the built-in descriptors from kop/runtime/builtin and
 * `generationChanged` from kop/runtime/controller:
 *
 *   manager.controller('rediscluster')
 *     .for(redisClusterType, { predicates: [generationChanged()] })
 *     .owns(appsV1StatefulSetType)
 *     .owns(coreV1SecretType, { metadataOnly: true })
 *     .watches(coreV1ConfigMapType, (cm) => [{ namespace: cm.metadata?.namespace ?? '', name: 'main' }])
 *     .withOptions({ maxConcurrentReconciles: 4 })
 *     .complete(this);
 */
export class ControllerBuilder {
  private primary: PendingWatch | undefined;
  private readonly others: PendingWatch[] = [];
  private readonly globalPredicates: Predicate<KubernetesObject>[] = [];
  private maxConcurrentReconciles = 1;
  private rateLimiter: RateLimiter | undefined;

  constructor(
    private readonly manager: ControllerHost,
    private readonly name: string,
  ) {}

  /** The kind this controller reconciles: its events enqueue the object itself. */
  for(type: ResourceType, options: MetadataOnlyOptions): this;
  for<T extends KubernetesObject>(type: ResourceType<T>, options?: ForOptions<T> & { metadataOnly?: false }): this;
  for<T extends KubernetesObject>(type: ResourceType<T>, options: ForOptions<T> = {}): this {
    if (this.primary) throw new Error(`controller ${this.name}: for() may be called once`);
    this.primary = {
      type: options.metadataOnly ? metadataOnly(type) : type,
      map: mapToSelf(),
      predicates: (options.predicates ?? []) as Predicate<KubernetesObject>[],
    };
    return this;
  }

  /** A kind this controller creates: events on objects whose controller reference points at the `for` kind enqueue that owner. */
  owns(type: ResourceType, options: MetadataOnlyOptions): this;
  owns<T extends KubernetesObject>(type: ResourceType<T>, options?: ForOptions<T> & { metadataOnly?: false }): this;
  owns<T extends KubernetesObject>(type: ResourceType<T>, options: ForOptions<T> = {}): this {
    this.others.push({
      type: options.metadataOnly ? metadataOnly(type) : type,
      map: 'owner',
      predicates: (options.predicates ?? []) as Predicate<KubernetesObject>[],
    });
    return this;
  }

  /** Any other kind: `map` turns each changed object into the requests to enqueue. */
  watches(type: ResourceType, map: MapFunction<PartialObjectMetadata>, options: MetadataOnlyOptions): this;
  watches<T extends KubernetesObject>(
    type: ResourceType<T>,
    map: MapFunction<T>,
    options?: ForOptions<T> & { metadataOnly?: false },
  ): this;
  watches<T extends KubernetesObject>(type: ResourceType<T>, map: MapFunction<T>, options: ForOptions<T> = {}): this {
    this.others.push({
      type: options.metadataOnly ? metadataOnly(type) : type,
      map: map as MapFunction<KubernetesObject>,
      predicates: (options.predicates ?? []) as Predicate<KubernetesObject>[],
    });
    return this;
  }

  /** A predicate applied to the events of every watched kind. */
  withEventFilter(predicate: Predicate<KubernetesObject>): this {
    this.globalPredicates.push(predicate);
    return this;
  }

  /** Concurrency (different keys only; one key never runs twice at once) and backoff. */
  withOptions(options: { maxConcurrentReconciles?: number; rateLimiter?: RateLimiter }): this {
    this.maxConcurrentReconciles = options.maxConcurrentReconciles ?? this.maxConcurrentReconciles;
    this.rateLimiter = options.rateLimiter ?? this.rateLimiter;
    return this;
  }

  /** Creates the controller with `reconciler` and registers it with the manager. */
  complete(reconciler: Reconciler | ReconcileFunction): Controller {
    if (!this.primary) throw new Error(`controller ${this.name}: call for(kind) before complete()`);
    this.manager.checkControllerName(this.name);
    const primary = this.primary.type;
    const reconcile: ReconcileFunction =
      typeof reconciler === 'function' ? reconciler : (request, context) => reconciler.reconcile(request, context);
    const wrapped = this.manager.wrapReconcile?.(primary, this.manager.informerFor(primary), reconcile) ?? reconciler;
    const controller = new Controller(wrapped, {
      name: this.name,
      client: this.manager.client,
      recorder: this.manager.eventRecorder(`${this.name}-controller`),
      maxConcurrentReconciles: this.maxConcurrentReconciles,
      rateLimiter: this.rateLimiter,
      logger: this.manager.logger,
      metrics: this.manager.metrics.controller(this.name, this.maxConcurrentReconciles),
      queueMetrics: this.manager.metrics.queue(this.name),
    });
    const owner = {
      group: this.primary.type.group,
      kind: this.primary.type.kind,
      namespaced: this.primary.type.namespaced,
    };
    for (const watch of [this.primary, ...this.others]) {
      const map = watch.map === 'owner' ? mapToControllerOwner(owner) : watch.map;
      controller.watch(this.manager.informerFor(watch.type), map, [...this.globalPredicates, ...watch.predicates]);
    }
    this.manager.add(controller, primary);
    return controller;
  }
}
