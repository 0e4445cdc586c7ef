// The cluster an operator talks to (controller-runtime's cluster package): REST client, informer
// cache, cache-backed client and API reader. Exported from kop/runtime/manager, which owns one.
export { Cluster, type ClusterOptions } from './cluster.js';
