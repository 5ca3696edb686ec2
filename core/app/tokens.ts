/**
 * DI tokens for the core's replaceable services. Each token pairs with an interface of the same name; bindings
 * are made in one place, `core/app/container.ts`. Plugins never see these: they get plain `deps` objects.
 */
export const Tokens = {
  Config: Symbol('Config'),
  Logger: Symbol('Logger'),
  PluginCatalog: Symbol('PluginCatalog'),
  BidderCatalog: Symbol('BidderCatalog'),
  ExecutionPlans: Symbol('ExecutionPlans'),
  BidderTransport: Symbol('BidderTransport'),
  StoredDataFetcher: Symbol('StoredDataFetcher'),
  CacheStore: Symbol('CacheStore'),
  CacheClient: Symbol('CacheClient'),
  AuctionService: Symbol('AuctionService'),
  Clock: Symbol('Clock'),
  Metrics: Symbol('Metrics'),
  Currency: Symbol('Currency'),
} as const;

/** Time source, replaceable in tests. `now()` is epoch milliseconds with sub-millisecond precision. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
};
