export {
  AUCTION_OUTCOMES,
  BIDDER_CALL_OUTCOMES,
  CACHE_PUT_OUTCOMES,
  ENDPOINTS,
  HOOK_STATUSES,
  METRIC_NAMES,
  NoopMetrics,
  OTHER,
  PrometheusMetrics,
  SHED_REASONS,
  type AuctionOutcomeLabel,
  type BidderCallOutcome,
  type CachePutOutcome,
  type HookStatus,
  type Metrics,
  type MetricsExposition,
  type PrometheusMetricsOptions,
  type ShedLabel,
} from './metrics.js';
export { jsonAdminMount, startAdminServer, type AdminMount, type AdminServer, type AdminServerOptions, type InvalidationOrder } from './admin-server.js';
export { BACKENDS, BackendStatus, Readiness, startProbe, type BackendName, type ReadinessReport } from './readiness.js';
export { auctionOutcomeLabel, bidderCallOutcome, instrumentCachePut, recordBidderSeat } from './instrument.js';
export { answerClusterScrapes, ClusterMetrics, shareWithClusterPrimary, type ClusterMetricsOptions } from './cluster.js';
export { createModuleMetrics } from './module-metrics.js';
