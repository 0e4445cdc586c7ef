// kop/runtime/client: talking to the apiserver. The one client and its descriptors are also on
// kop/runtime; this subpath adds the REST client and its configuration, per-kind resource
// clients, list paging, retries, the dynamic and discovery clients, and the error types.
export {
  createClient,
  type ApplyConfiguration,
  type ApplyOptions,
  type Client,
  type ClientGetOptions,
  type ClientListOptions,
  type DeleteAllOfOptions,
  type ObjectKey,
  type ObjectReader,
  type ScaleClient,
  type StatusWriter,
} from './client.js';
export {
  RestClient,
  type CallOptions,
  type HttpMethod,
  type Query,
  type QueryValue,
  type RawWatchEvent,
  type RestClientOptions,
  type RestRequest,
} from './rest/rest-client.js';
export { Transport, type AuthHeaders, type TransportOptions } from './rest/transport.js';
export {
  clientConfigFromString,
  loadClientConfig,
  InvalidConfigurationError,
  NoConfigurationError,
  type ClientConfig,
  type ConfigSource,
  type LoadClientConfigOptions,
} from './config/client-config.js';
export {
  ExecCredentialProvider,
  ExecPluginError,
  EXEC_PLUGIN_TIMEOUT_MS,
  type ExecCredential,
  type ExecCredentialProviderOptions,
  type ExecInteractiveMode,
} from './config/exec-credential.js';
export type {
  Kubeconfig,
  KubeconfigAuthProvider,
  KubeconfigCluster,
  KubeconfigContext,
  KubeconfigExecConfig,
  KubeconfigUser,
} from './config/kubeconfig.js';
export {
  ApiError,
  RequestTimeoutError,
  TransportError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isNotFound,
  isResourceVersionTooLarge,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './errors/api-error.js';
export {
  apiVersionOf,
  type DeepPartial,
  type DeleteOptions,
  type GetOptions,
  type JsonPatchOperation,
  type ListOptions,
  type ObjectOf,
  type Patch,
  type PatchOptions,
  type ResourceType,
  type Selector,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from './resource/options.js';
export {
  ResourceClient,
  ScalableResourceClient,
  NamespacedResourceClient,
  clusterResource,
  clusterScalableResource,
  namespacedResource,
  namespacedScalableResource,
} from './resource/resource-client.js';
export {
  listComplete,
  DEFAULT_LIST_PAGE_SIZE,
  UnendingListError,
  type ListCompleteOptions,
  type ListPageFunction,
} from './resource/list-pager.js';
export { retryOnConflict, DEFAULT_CONFLICT_BACKOFF, type Backoff } from './retry/retry-on-conflict.js';
export {
  DiscoveryClient,
  type DiscoveredGroup,
  type DiscoveredResource,
  type DiscoverySnapshot,
  type ServerVersion,
} from './discovery/discovery-client.js';
export { RestMapper, NoMatchError, type GroupKind, type GroupResource } from './discovery/rest-mapper.js';
export { DynamicClient, DynamicResourceClient, type GroupVersionResource } from './dynamic/dynamic-client.js';
export * from './typed/builtin-types.js';
export type {
  KubernetesObject,
  ListMetaFields,
  ObjectList,
  ObjectMetaFields,
  Scale,
  Status,
  StatusCause,
  StatusDetails,
  UnstructuredObject,
} from './types/meta.js';
