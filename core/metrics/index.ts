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
  type AuctionOutcomeLabel,
  type BidderCallOutcome,
  type CachePutOutcome,
  type HookStatus,
  type Metrics,
  type MetricsExposition,
  type PrometheusMetricsOptions,
} from './metrics.js';
export { startAdminServer, type AdminServer, type AdminServerOptions } from './admin-server.js';
export { auctionOutcomeLabel, bidderCallOutcome, httpMetricsMiddleware, instrumentCachePut, recordBidderSeat } from './instrument.js';
export { answerClusterScrapes, ClusterMetricsExposition, shareWithClusterPrimary } from './cluster.js';
