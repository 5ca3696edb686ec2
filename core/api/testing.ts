/**
 * For plugin tests (`gavel-auction/testing`, kept apart from the SDK's main entry): request contexts for calling
 * services and hooks directly, without a server, as the core would hand them, with the warnings and errors they
 * report collected for the test to read.
 */
import type { AuctionBid, AuctionContext, Bid, BidderError, HookContext, MediaType, Namespace, PluginLogger, Warning } from './index.js';

export const silentLogger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

export interface TestContext extends HookContext {
  /** Warnings reported through `warn`, by scope. */
  readonly warnings: Record<string, Warning[]>;
  /** Errors reported through `fail`, by bidder. */
  readonly errors: Record<string, BidderError[]>;
  /** Bids reported through `rejectBid`, with their reasons (and the error, which `errors` also holds). */
  readonly rejected: Array<{ bid: AuctionBid; reason: number; error?: BidderError }>;
}

/** A resolved request context (1 s to the deadline, no account) with whatever the test overrides. */
export function testContext(overrides: Partial<Omit<AuctionContext, 'warn' | 'fail' | 'now' | 'rejectBid'>> & { namespace?: Namespace; now?: number } = {}): TestContext {
  const { now, ...fields } = overrides;
  const clock = now ?? Date.now();
  const warnings: Record<string, Warning[]> = {};
  const errors: Record<string, BidderError[]> = {};
  const rejected: TestContext['rejected'] = [];
  return {
    endpoint: 'auction',
    namespace: 'prebid',
    receivedAt: clock,
    secure: false,
    requestId: 'test-request',
    tmax: 1000,
    deadline: clock + 1000,
    accountId: '',
    account: { id: '' },
    debug: false,
    trace: undefined,
    privacy: {},
    currency: 'USD',
    convertCurrency: (amount, from, to) => (from === to ? amount : undefined),
    logger: silentLogger,
    moduleContext: {},
    ...fields,
    warnings,
    errors,
    rejected,
    now: () => clock,
    warn: (scope, warning) => void (warnings[scope] ??= []).push(warning),
    fail: (bidder, error) => void (errors[bidder] ??= []).push(error),
    rejectBid: (bid, reason, error, scope) => {
      rejected.push(error ? { bid, reason, error } : { bid, reason });
      if (error) (errors[scope ?? bid.bidder] ??= []).push(error);
    },
  };
}

/**
 * A bid as the auction tracks it once its bidder answered (priced in USD, not yet a winner): `bid` is the bidder's
 * bid, `fields` anything else of the AuctionBid (`type` is banner unless given).
 */
export function testAuctionBid(bidder: string, bid: Bid, fields: Partial<Omit<AuctionBid, 'bid'>> & { type?: MediaType } = {}): AuctionBid {
  return {
    bid,
    type: 'banner',
    bidder,
    adapter: bidder,
    originalPrice: bid.price,
    originalCurrency: 'USD',
    targeting: {},
    winner: false,
    bidderBest: false,
    ...fields,
  };
}
