// kop/runtime/manager: running controllers (controller-runtime's manager, cluster, leaderelection,
// healthz and metrics packages). Manager itself is also on kop/runtime.
export {
  Manager,
  GracefulShutdownTimeoutError,
  LeaderElectionLostError,
  type HealthCheck,
  type ManagerOptions,
  type Runnable,
} from './manager.js';
export { Cluster, type ClusterOptions } from '../cluster/index.js';
export { MetricsServer, type MetricsServerConfig, type MetricsServerOptions } from './metrics-server.js';
export {
  MetricsAccessFilter,
  bearerToken,
  type AccessDecision,
  type AccessReviewer,
  type AuthenticatedUser,
  type MetricsAccessFilterOptions,
} from './metrics-auth.js';
export {
  createSelfSignedCertificate,
  type SelfSignedCertificate,
  type SelfSignedCertificateOptions,
} from './self-signed-certificate.js';
export { LeaderElector, type LeaderElectionOptions, type LeaseObject, type LeaseSpec } from './leader-election.js';
export { ManagerMetrics } from './metrics.js';
export {
  createLogger,
  silentLogger,
  type LogFields,
  type LogLevel,
  type Logger,
  type LoggerOptions,
} from '../util/logger.js';
