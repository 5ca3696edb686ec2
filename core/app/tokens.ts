/**
 * DI tokens of the core's services. Bindings are made in the composition root (`core/app/container.ts`), from one
 * container module for the core and one per enabled plugin; tests replace a service by rebinding its token. Plugins
 * never see these: they get plain `deps` objects, and hook-point services are bound under the SDK's
 * `HookPointTokens`.
 */
export const Tokens = {
  Config: Symbol('Config'),
  Logger: Symbol('Logger'),
  Clock: Symbol('Clock'),
  PluginCatalog: Symbol('PluginCatalog'),
  BidderCatalog: Symbol('BidderCatalog'),
  Metrics: Symbol('Metrics'),
  BidderTransport: Symbol('BidderTransport'),
  StoredData: Symbol('StoredData'),
  /** Accounts: loaded from the stored data, checked, host defaults merged under them. */
  Accounts: Symbol('Accounts'),
  /** Reads the stored auction and bid responses a request names. */
  StoredResponses: Symbol('StoredResponses'),
  /** What the endpoints write into a request from the HTTP request and as defaults, before its auction. */
  ImplicitFields: Symbol('ImplicitFields'),
  /** The embedded bid cache's store, or null when bids go to a remote Prebid Cache. */
  CacheStore: Symbol('CacheStore'),
  Cache: Symbol('Cache'),
  Currency: Symbol('Currency'),
  ModuleDeps: Symbol('ModuleDeps'),
  /** Every enabled module's stage hooks (a multi-binding: one per module that has hooks). */
  ModuleHooks: Symbol('ModuleHooks'),
  ExecutionPlanner: Symbol('ExecutionPlanner'),
  /** The host's brand-category mapping files, loaded at boot. */
  CategoryMappings: Symbol('CategoryMappings'),
  /** The host's side of the checks every bidder's bids go through (core/bids). */
  BidChecks: Symbol('BidChecks'),
  /** Where `GET /event` sends accepted events: a no-op until an analytics service rebinds it. */
  EventConsumer: Symbol('EventConsumer'),
  /** Every enabled analytics module's reporter (a multi-binding: one per module that reports). */
  AnalyticsReporters: Symbol('AnalyticsReporters'),
  /** What each analytics module may see of a transaction: allow-all until the privacy service rebinds it. */
  AnalyticsGate: Symbol('AnalyticsGate'),
  /** Hands transactions to the analytics modules, off the request's path. */
  Analytics: Symbol('Analytics'),
  /** The privacy service (core/privacy): host settings and vendor lists read at boot. */
  Privacy: Symbol('Privacy'),
  AuctionPipeline: Symbol('AuctionPipeline'),
  App: Symbol('App'),
} as const;

/** Time source, replaceable in tests. `now()` is epoch milliseconds with sub-millisecond precision. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
};
