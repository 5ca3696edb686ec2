import type { AuctionContext } from './context.js';
import type { AuctionBid, BidderRequest, ModuleDeps, SeatResult } from './hooks.js';
import type { BidRequest, Imp } from './openrtb.js';

/**
 * The five hook points of the auction: services the pipeline calls in a straight line. The core's built-in modules
 * provide each; a module may replace one by providing it (`provides` in its manifest). Services report warnings and
 * errors through the context (`context.warn`, `context.fail`) and may edit what the auction owns (the request they
 * are given, the bids) in place.
 */
export const HOOK_POINTS = ['request-validation', 'imp-splitting', 'bid-adjustment', 'targeting', 'bid-caching'] as const;
export type HookPoint = (typeof HOOK_POINTS)[number];

/** Checks the merged request. Returns the 400 lines (`Invalid request: <line>`), or undefined when it is valid. */
export interface RequestValidator {
  validate(request: BidRequest, context: AuctionContext): string[] | undefined;
  /**
   * Re-checks one imp after a bidder's first-party data (`imp.ext.<ns>.imp.<bidder>`) was merged into it, `index`
   * being its place in the request: the 400 line's problem, or undefined when the imp is still valid. A validator
   * without it leaves merged imps unchecked.
   */
  validateImp?(imp: Imp, index: number, context: AuctionContext): string | undefined;
}

/** Decides which bidder sees which imp: one share per bidder, in the order bidders first appear. */
export interface ImpSplitter {
  split(request: BidRequest, context: AuctionContext): BidderRequest[];
}

/** Adjusts one bidder's bids (prices in the auction currency) before winners are chosen. */
export interface BidAdjuster {
  adjust(bids: AuctionBid[], share: BidderRequest, context: AuctionContext): void;
}

/** The auction's outcome as the targeting and caching services see it. */
export interface AuctionResult {
  request: BidRequest;
  seats: SeatResult[];
}

/** Sets the ad-server targeting keys. */
export interface TargetingService {
  /**
   * Runs before winners are chosen: keys what targeting needs from the bids themselves (brand categories and
   * durations, `AuctionBid.categoryDuration`) and leaves out, reporting each (`context.rejectBid`), the bids it
   * cannot key or that lose a deduplication. Returns `{refused}` when the request's own targeting makes the bids
   * impossible to key (categories to translate for an ad server it does not recognise): the auction then ends, refused
   * with that message, as Prebid Server fails such an auction once bids came back.
   */
  prepare?(auction: AuctionResult, context: AuctionContext): void | { refused: string };
  /** Runs once winners are marked and bids cached: sets the keys (`AuctionBid.targeting`). */
  apply(auction: AuctionResult, context: AuctionContext): void;
  /** A bid's price bucket (`hb_pb`) under the request's price granularity. */
  priceBucket(bid: AuctionBid, request: BidRequest, context: AuctionContext): string;
}

/**
 * Puts bids in the bid cache, before targeting: the bids targeting will key (winners, bidders' keyed bids), as the
 * request asks (`ext.<ns>.cache`). Never fails the auction: a failed put only leaves `AuctionBid.cache` unset.
 */
export interface BidCacheService {
  cache(auction: AuctionResult, context: AuctionContext): void | Promise<void>;
  /** Caches the VAST of these bids where none is cached yet, setting `bid.cache.vastXml` on those it stored. */
  cacheVast(bids: AuctionBid[], request: BidRequest, context: AuctionContext): Promise<void>;
}

export interface HookPointServices {
  'request-validation': RequestValidator;
  'imp-splitting': ImpSplitter;
  'bid-adjustment': BidAdjuster;
  'targeting': TargetingService;
  'bid-caching': BidCacheService;
}

/** How a module makes the services it provides: once, at boot, from its config. */
export type HookPointFactories<C = Record<string, unknown>> = {
  [P in HookPoint]?: (config: C, deps: ModuleDeps) => HookPointServices[P];
};

/** The DI token of each hook point (the composition root binds the provider's service under it). */
export const HookPointTokens: { readonly [P in HookPoint]: symbol } = Object.freeze({
  'request-validation': Symbol.for('gavel.hook-point.request-validation'),
  'imp-splitting': Symbol.for('gavel.hook-point.imp-splitting'),
  'bid-adjustment': Symbol.for('gavel.hook-point.bid-adjustment'),
  'targeting': Symbol.for('gavel.hook-point.targeting'),
  'bid-caching': Symbol.for('gavel.hook-point.bid-caching'),
});
