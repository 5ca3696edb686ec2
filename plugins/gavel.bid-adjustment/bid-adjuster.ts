import { isJsonObject as isObject, type AuctionContext, type BidAdjuster, type BidRequest, type MediaType } from '../../core/api/index.js';
import { adjustPrice, buildRules, ruleMediaType, type AdjustmentRules } from './rules.js';

type Factors = Record<string, unknown>;

/** What one request asks for, read once per request (every bidder's bids are adjusted by the same settings). */
interface RequestAdjustments {
  factors?: Factors;
  byMediaType?: Record<string, Factors>;
  rules?: AdjustmentRules;
}

const NOTHING: RequestAdjustments = Object.freeze({});

/**
 * The built-in bid-adjustment service. Each of a bidder's bids (priced in the auction currency) is first multiplied
 * by its factor in `request.ext.<ns>.bidadjustmentfactors`, the media type's own (`mediatypes.<type>.<bidder>`) before
 * the bidder's, which lets a publisher net down a bidder that bids gross; then the most specific matching rule of
 * `ext.<ns>.bidadjustments` (and the account's `bidadjustments`) applies. `originalPrice` keeps the price as bid.
 */
export function createBidAdjuster(): BidAdjuster {
  const perRequest = new WeakMap<BidRequest, RequestAdjustments>();
  const settingsOf = (request: BidRequest, context: AuctionContext): RequestAdjustments => {
    let settings = perRequest.get(request);
    if (!settings) {
      settings = readAdjustments(request, context);
      perRequest.set(request, settings);
    }
    return settings;
  };

  return {
    adjust(bids, share, context) {
      // The adjustments live in the auction's request (`share.auction`); a bidder's own copy may not carry them.
      const settings = settingsOf(share.auction ?? share.request, context);
      if (settings === NOTHING) return;
      const imps = settings.rules ? new Map(share.request.imp.map((imp) => [imp.id, imp])) : undefined;
      for (const auctionBid of bids) {
        // An extra seat of the bidder (alternate bidder codes) uses its own factor first, as Prebid Server does.
        const factor = factorOf(settings, auctionBid.type, auctionBid.seat) ?? factorOf(settings, auctionBid.type, share.bidder);
        if (factor !== undefined && factor !== 1) auctionBid.bid.price *= factor;
        if (!settings.rules) continue;
        const mediaType = ruleMediaType(auctionBid.type, imps!.get(auctionBid.bid.impid));
        const deal = typeof auctionBid.bid.dealid === 'string' && auctionBid.bid.dealid !== '' ? auctionBid.bid.dealid : undefined;
        auctionBid.bid.price = adjustPrice(auctionBid.bid.price, settings.rules, { mediaType, bidder: share.bidder, deal }, context);
      }
    },
  };
}

function readAdjustments(request: BidRequest, context: AuctionContext): RequestAdjustments {
  const serviceExt = request.ext?.[context.namespace];
  const options = isObject(serviceExt) ? serviceExt : undefined;
  const rules = buildRules(request, context);
  const allFactors = isObject(options?.bidadjustmentfactors) ? options.bidadjustmentfactors : undefined;
  if (!allFactors && !rules) return NOTHING;
  const { mediatypes, ...factors } = allFactors ?? {};
  return {
    factors: Object.keys(factors).length > 0 ? factors : undefined,
    byMediaType: isObject(mediatypes) ? (mediatypes as Record<string, Factors>) : undefined,
    rules,
  };
}

/**
 * The factor for a bidder (or alias, or seat) and media type, names matched without regard to case: the media type's
 * own (`mediatypes.<type>.<name>`), else the name's; undefined when there is none. Factors that are not positive
 * numbers are ignored: refusing them with a 400 is the validator's job.
 */
function factorOf(settings: RequestAdjustments, mediaType: MediaType, name: string | undefined): number | undefined {
  if (name === undefined) return undefined;
  const byType = settings.byMediaType?.[mediaType];
  return positive(isObject(byType) ? lookup(byType, name) : undefined) ?? positive(settings.factors ? lookup(settings.factors, name) : undefined);
}

function lookup(map: Factors, name: string): unknown {
  if (Object.hasOwn(map, name)) return map[name];
  const wanted = name.toLowerCase();
  for (const key in map) if (Object.hasOwn(map, key) && key.toLowerCase() === wanted) return map[key];
  return undefined;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
