// kop/runtime/cache: informers and what reads them (controller-runtime's cache package). A manager
// makes one informer per kind; use these directly for a cache outside a manager.
export {
  Informer,
  stripManagedFields,
  type DeleteInfo,
  type InformerEventHandler,
  type InformerListMethod,
  type InformerOptions,
  type InformerStats,
  type ListerWatcher,
} from './informer.js';
// The namespace index is looked up through `lister.list({ namespace })`; its name is not exported.
export { Indexer, type IndexFunction } from './indexer.js';
export { Lister, CacheNotSyncedError, CacheScopeError, type ListerListOptions } from './lister.js';
export { parseLabelSelector } from './label-selector.js';
export { objectKey } from './object-meta.js';
