// The client side of kop/runtime: configuration, REST, errors, typed/dynamic/discovery clients.
export * from './types/meta.js';
export * from './errors/api-error.js';
export * from './config/kubeconfig.js';
export * from './config/client-config.js';
export * from './config/exec-credential.js';
export * from './rest/token-bucket.js';
export * from './rest/transport.js';
export * from './rest/rest-client.js';
export * from './resource/options.js';
export * from './resource/resource-client.js';
export * from './resource/list-pager.js';
export * from './retry/retry-on-conflict.js';
export * from './discovery/discovery-client.js';
export * from './discovery/rest-mapper.js';
export * from './dynamic/dynamic-client.js';
export * from './typed/builtin-types.js';
export * from './client.js';
