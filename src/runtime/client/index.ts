// kop/runtime/client: talking to the apiserver. The one client (`Client`), its descriptors
// (`ResourceType`) and the common error predicates are on kop/runtime; this subpath adds making a
// client outside a manager (`createClient` over a `RestClient` and its configuration), the
// options of its calls, the other error predicates, retries, the dynamic client for kinds
// known only at run time, and the storage-version migration of a custom resource.
export {
  createClient,
  type ApplyConfiguration,
  type ClientGetOptions,
  type ClientListOptions,
  type DeleteAllOfOptions,
  type ObjectReader,
  type ScaleClient,
  type StatusWriter,
} from './client.js';
export { RestClient, type CallOptions, type RestClientOptions } from './rest/rest-client.js';
export {
  clientConfigFromString,
  loadClientConfig,
  InvalidConfigurationError,
  NoConfigurationError,
  type ClientConfig,
} from './config/client-config.js';
export { ExecPluginError } from './config/exec-credential.js';
export {
  RequestTimeoutError,
  TransportError,
  isBadRequest,
  isForbidden,
  isGone,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './errors/api-error.js';
export {
  apiVersionOf,
  metadataOnly,
  type DeepPartial,
  type DeleteOptions,
  type GetOptions,
  type JsonPatchOperation,
  type ListOptions,
  type ObjectOf,
  type PartialObjectMetadata,
  type PatchOptions,
  type Selector,
  type WriteOptions,
} from './resource/options.js';
export { UnendingListError } from './resource/list-pager.js';
export { retryOnConflict, type Backoff } from './retry/retry-on-conflict.js';
export { DiscoveryClient } from './discovery/discovery-client.js';
export { NoMatchError } from './discovery/rest-mapper.js';
export { DynamicClient, DynamicResourceClient, type GroupVersionResource } from './dynamic/dynamic-client.js';
export type { Scale, UnstructuredObject } from './types/meta.js';
export { migrateStorageVersion } from '../migration/storage-version-migration.js';
