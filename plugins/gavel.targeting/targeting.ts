import {
  type AuctionBid,
  type AuctionContext,
  type AuctionResult,
  type BidRequest,
  type ModuleDeps,
  type TargetingService,
} from '../../core/api/index.js';
import { applyAdServerTargeting } from './adserver-targeting.js';
import { keyCategories } from './categories.js';
import { applyDealTiers } from './deal-tiers.js';
import { setTargetingKeys, type CacheAddress } from './keys.js';
import { bidPriceBucket, bidRounding, DEFAULT_GRANULARITIES, INVALID_TARGETING_WARNING, MAX_KEY_LENGTH, readTargetingOptions } from './options.js';

type TargetingDeps = Pick<ModuleDeps, 'cachePublicUrl' | 'categoryMapping'>;

/**
 * The built-in targeting service. Before winners are chosen (`prepare`) it keys brand categories and durations
 * (`hb_pb_cat_dur`) when the request asks for them; once bids are cached (`apply`) it sets the keys of every
 * targeted bid when the request has `ext.<ns>.targeting`, then the request's custom ad-server keys. A granularity the
 * validator should have refused becomes a warning, since a step this late cannot reject the request.
 */
export function createTargeting(deps: TargetingDeps): TargetingService {
  const cache: CacheAddress | undefined = deps.cachePublicUrl ? { host: deps.cachePublicUrl.host, path: deps.cachePublicUrl.path } : undefined;

  return {
    prepare(auction: AuctionResult, context: AuctionContext): void | { refused: string } {
      const read = readTargetingOptions(auction.request, context);
      if (read === undefined || 'error' in read || !read.options.brandCategory) return;
      const { options } = read;
      return keyCategories(auction, options.brandCategory!, options.appendBidderNames, (bid) => bidPriceBucket(bid, options, options.rounding), deps.categoryMapping?.bind(deps), context);
    },

    apply(auction: AuctionResult, context: AuctionContext): void {
      const read = readTargetingOptions(auction.request, context);
      let keyLength = MAX_KEY_LENGTH;
      if (read !== undefined && 'error' in read) context.warn('general', { code: INVALID_TARGETING_WARNING, message: read.error });
      else if (read !== undefined) {
        for (const warning of read.warnings) context.warn('general', warning);
        if (read.options.supportDeals) applyDealTiers(auction, context);
        setTargetingKeys(auction, read.options, cache);
        keyLength = read.options.keyLength;
      }
      applyAdServerTargeting(auction, keyLength, context);
    },

    priceBucket(bid: AuctionBid, request: BidRequest, context: AuctionContext): string {
      const read = readTargetingOptions(request, context);
      const granularities = read !== undefined && 'options' in read ? read.options : DEFAULT_GRANULARITIES;
      return bidPriceBucket(bid, granularities, bidRounding(context.account));
    },
  };
}
