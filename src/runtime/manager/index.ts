// kop/runtime/manager: running controllers (controller-runtime's manager, cluster, leaderelection,
// healthz and metrics packages), beside Manager itself, its options and the logger, which are on kop/runtime.
export { LeaderElectionLostError, type HealthCheck, type Runnable } from './manager.js';
export { Cluster, type ClusterOptions } from '../cluster/index.js';
export { MetricsServer, type MetricsServerOptions } from './metrics-server.js';
export { LeaderElector, type LeaderElectionOptions } from './leader-election.js';
export { ManagerMetrics } from './metrics.js';
export type { CacheMemoryBudgetOptions } from './cache-budget.js';
export { type LogFields, type LogLevel, type LoggerOptions } from '../util/logger.js';
