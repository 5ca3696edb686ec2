import {
  DEFAULT_PRICE_GRANULARITY,
  isJsonObject,
  mediaTypeFromMtype,
  parsePriceGranularity,
  priceBucket,
  WarningCode,
  type AuctionContext,
  type AuctionBid,
  type BidRequest,
  type MediaType,
  type PriceGranularity,
  type PriceRounding,
  type Warning,
} from '../../core/api/index.js';

/** Targeting keys longer than this are cut (interface specification 2.10), unless the account says otherwise. */
export const MAX_KEY_LENGTH = 20;
/** The longest key attribute a prefix is put in front of (`_cache_path`... `_pb_cat_dur`): a prefix leaves room for it. */
const LONGEST_ATTRIBUTE = 12;
const DEFAULT_PREFIX = 'hb';

/** Warning code for targeting options this module could not use (Prebid Server's code for unknown warnings). */
const INVALID_TARGETING_WARNING = WarningCode.Unknown;

/** The primary ad servers `includebrandcategory.primaryadserver` names. */
export type AdServer = 'freewheel' | 'dfp';
const AD_SERVERS: Readonly<Record<number, AdServer>> = { 1: 'freewheel', 2: 'dfp' };

/** `targeting.includebrandcategory`: keying by brand category and duration (`hb_pb_cat_dur`). */
export interface BrandCategoryOptions {
  /** Bids must carry exactly one category, and are deduplicated by it (`withcategory`). */
  withCategory: boolean;
  /** Categories are translated to the primary ad server's ids; false keys the IAB category as it is. */
  translate: boolean;
  /** The ad server whose ids categories are translated to; undefined when `primaryadserver` names none. */
  adServer?: AdServer;
  primaryAdServer: unknown;
  /** A publisher whose own mapping the host may have. */
  publisher: string;
  /** Allowed durations, ascending: a bid's duration is rounded up to the nearest (`durationrangesec`). */
  durations: number[];
  /** Only a duration equal to an allowed one is accepted (`requireexactduration`, the video pods' rule). */
  requireExactDuration: boolean;
  /**
   * One bid per category (or per `<pb>_<dur>s` without categories) survives; Gavel's `deduplicate: false` keeps them
   * all (the video endpoint does without categories: its pods list each bid with its own cache id).
   */
  deduplicate: boolean;
}

/** What `request.ext.<ns>.targeting` asks for, with the defaults filled in. */
export interface TargetingOptions {
  granularity: PriceGranularity;
  /** How a price between two buckets is bucketed: the account's `bid_rounding` (`timesplit` drawn per bid). */
  rounding: BidRounding;
  /** Granularities that replace `granularity` for bids of one media type (`mediatypepricegranularity`). */
  byMediaType: Partial<Record<MediaType, PriceGranularity>>;
  /** Un-suffixed keys on each imp's winning bid. */
  includeWinners: boolean;
  /** `<key>_<bidder>` keys on each bidder's best bid in each imp. */
  includeBidderKeys: boolean;
  /** `hb_format` (the bid's media type). */
  includeFormat: boolean;
  /** A deal bid beats any bid without a deal (`preferdeals`). */
  preferDeals: boolean;
  /** `<key>_<bidder>` keys on deal bids even when bidder keys are off (`alwaysincludedeals`). */
  alwaysIncludeDeals: boolean;
  /** `hb_pb_cat_dur` ends in `_<bidder>` (`appendbiddernames`). */
  appendBidderNames: boolean;
  /** What every key starts with instead of `hb` (`prefix`, else the account's `targeting_prefix`). */
  prefix: string;
  /** Keys are cut to this length (the account's `truncate_target_attr`, else 20). */
  keyLength: number;
  /** `hb_env` value: `amp` on the AMP endpoint, `mobile-app` for app requests, absent otherwise. */
  environment?: string;
  brandCategory?: BrandCategoryOptions;
  /** Deal tiers apply (`ext.<ns>.supportdeals`, beside `targeting`): deal-tiers.ts. */
  supportDeals: boolean;
}

export type TargetingRead = { options: TargetingOptions; warnings: Warning[] } | { error: string };

// Read once per request: the targeting, caching and video steps all ask for the same request's options.
const readCache = new WeakMap<BidRequest, TargetingRead | null>();

/**
 * The request's targeting options; undefined when it asks for no targeting. A granularity the validator should have
 * refused comes back as an error, since a step this late cannot reject the request. Warnings (a prefix that does not
 * fit) are for the caller to report once.
 */
export function readTargetingOptions(request: BidRequest, context: Pick<AuctionContext, 'namespace' | 'endpoint' | 'account'>): TargetingRead | undefined {
  const cached = readCache.get(request);
  if (cached !== undefined) return cached ?? undefined;
  const read = parseTargetingOptions(request, context);
  readCache.set(request, read ?? null);
  return read;
}

function parseTargetingOptions(request: BidRequest, context: Pick<AuctionContext, 'namespace' | 'endpoint' | 'account'>): TargetingRead | undefined {
  const serviceExt = request.ext?.[context.namespace];
  const given = isJsonObject(serviceExt) ? serviceExt.targeting : undefined;
  if (!isJsonObject(given)) return undefined;
  const targeting = lowerCaseKeys(given);
  const path = `request.ext.${context.namespace}.targeting`;

  const parsed = parsePriceGranularity(targeting.pricegranularity);
  if ('error' in parsed) return { error: `${path}.pricegranularity: ${parsed.error}; no targeting keys were set` };
  const byMediaType: TargetingOptions['byMediaType'] = {};
  const perType = targeting.mediatypepricegranularity;
  if (isJsonObject(perType)) {
    for (const mediaType of ['banner', 'video', 'native'] as const) {
      if (perType[mediaType] === undefined || perType[mediaType] === null) continue;
      const own = parsePriceGranularity(perType[mediaType]);
      if ('error' in own) return { error: `${path}.mediatypepricegranularity.${mediaType}: ${own.error}; no targeting keys were set` };
      byMediaType[mediaType] = own.granularity;
    }
  }

  const warnings: Warning[] = [];
  const { prefix, keyLength } = keyShape(targeting.prefix, context.account, warnings);
  return {
    options: {
      granularity: parsed.granularity,
      rounding: bidRounding(context.account),
      byMediaType,
      includeWinners: flag(targeting.includewinners, true),
      includeBidderKeys: flag(targeting.includebidderkeys, true),
      includeFormat: flag(targeting.includeformat, false),
      preferDeals: flag(targeting.preferdeals, false),
      alwaysIncludeDeals: flag(targeting.alwaysincludedeals, false),
      appendBidderNames: flag(targeting.appendbiddernames, false),
      prefix,
      keyLength,
      environment: context.endpoint === 'amp' ? 'amp' : request.app ? 'mobile-app' : undefined,
      brandCategory: brandCategoryOptions(targeting),
      supportDeals: isJsonObject(serviceExt) && serviceExt.supportdeals === true,
    },
    warnings,
  };
}

/**
 * The key prefix and the key length, as Prebid Server settles them (exchange/utils.go, `getTargetDataPrefix`): keys
 * are cut to the account's `truncate_target_attr` when it is above 0, else to 20. An account value below 12 (0
 * included) leaves no room for the longest attribute: `hb` with warning 10016. Otherwise the request's prefix, else
 * the account's `targeting_prefix`, else `hb`, must leave room for the longest attribute within the account's value
 * when it is above 12, else within 20 (so a value of exactly 12 leaves room for an 8-character prefix, although keys
 * are then cut to 12); one that does not is replaced by `hb` with warning 10015.
 */
function keyShape(requested: unknown, account: AuctionContext['account'], warnings: Warning[]): { prefix: string; keyLength: number } {
  const truncate = account.truncate_target_attr;
  const accountLength = typeof truncate === 'number' && Number.isInteger(truncate) ? truncate : undefined;
  const keyLength = accountLength !== undefined && accountLength > 0 ? accountLength : MAX_KEY_LENGTH;
  if (accountLength !== undefined && accountLength < LONGEST_ATTRIBUTE) {
    warnings.push({ code: WarningCode.TooShortTargetingPrefix, message: "targeting prefix is shorter than 'MinKeyLength' value: increase prefix length" });
    return { prefix: DEFAULT_PREFIX, keyLength };
  }
  const room = (accountLength !== undefined && accountLength > LONGEST_ATTRIBUTE ? accountLength : MAX_KEY_LENGTH) - LONGEST_ATTRIBUTE;
  const accountPrefix = account.targeting_prefix;
  const prefix = typeof requested === 'string' && requested !== '' ? requested : typeof accountPrefix === 'string' && accountPrefix !== '' ? accountPrefix : DEFAULT_PREFIX;
  if (prefix.length > room) {
    warnings.push({
      code: WarningCode.TooLongTargetingPrefix,
      message: "targeting prefix combined with key attribute is longer than 'settings.targeting.truncate-attr-chars' value: decrease prefix length or increase truncate-attr-chars",
    });
    return { prefix: DEFAULT_PREFIX, keyLength };
  }
  return { prefix, keyLength };
}

function brandCategoryOptions(targeting: Record<string, unknown>): BrandCategoryOptions | undefined {
  if (!isJsonObject(targeting.includebrandcategory)) return undefined;
  const brand = lowerCaseKeys(targeting.includebrandcategory);
  const durations = Array.isArray(targeting.durationrangesec)
    ? [...new Set(targeting.durationrangesec.filter((value): value is number => typeof value === 'number' && Number.isFinite(value)))].sort((a, b) => a - b)
    : [];
  return {
    withCategory: brand.withcategory === true,
    translate: brand.translatecategories !== false,
    adServer: typeof brand.primaryadserver === 'number' ? AD_SERVERS[brand.primaryadserver] : undefined,
    primaryAdServer: brand.primaryadserver,
    publisher: typeof brand.publisher === 'string' ? brand.publisher : '',
    durations,
    requireExactDuration: targeting.requireexactduration === true,
    deduplicate: brand.deduplicate !== false,
  };
}

/**
 * The granularity a bid is bucketed by: its media type's, when the bid itself names its type, else the request's.
 * As Prebid Server reads it, the bid names its type in `mtype`, else (no mtype) in the `ext.prebid.type` its bidder
 * wrote; the type the adapter gave the bid does not count, so a banner bid that names no type gets the request's
 * granularity, not the banner one.
 */
export function granularityFor(options: Pick<TargetingOptions, 'granularity' | 'byMediaType'>, bid: AuctionBid): PriceGranularity {
  const mtype = bid.bid.mtype;
  const mediaType = typeof mtype === 'number' && mtype > 0 ? mediaTypeFromMtype(mtype) : bid.namedType;
  return (mediaType !== undefined ? options.byMediaType[mediaType] : undefined) ?? options.granularity;
}

/** The request's granularity when it asks for no usable targeting: the default. */
export const DEFAULT_GRANULARITIES: Pick<TargetingOptions, 'granularity' | 'byMediaType'> = Object.freeze({ granularity: DEFAULT_PRICE_GRANULARITY, byMediaType: {} });

/** An account's `bid_rounding`: a PriceRounding, or `timesplit`, down or up drawn per bid. */
export type BidRounding = PriceRounding | 'timesplit';

/**
 * The account's `bid_rounding` as Prebid Server's getCpmTarget reads it: `up`, `true` (the nearest bucket),
 * `timesplit`; `down`, absent or any other value rounds down.
 */
export function bidRounding(account: AuctionContext['account']): BidRounding {
  switch (account.bid_rounding) {
    case 'up':
      return 'up';
    case 'true':
      return 'nearest';
    case 'timesplit':
      return 'timesplit';
    default:
      return 'down';
  }
}

/**
 * A bid's price bucket (`hb_pb`, and the price of `hb_pb_cat_dur`): its granularity's, rounded as the account says;
 * `timesplit` rounds each bid down or up at random, half the time each, as Prebid Server draws it.
 */
export function bidPriceBucket(bid: AuctionBid, granularities: Pick<TargetingOptions, 'granularity' | 'byMediaType'>, rounding: BidRounding): string {
  const mode = rounding === 'timesplit' ? (Math.random() < 0.5 ? 'down' : 'up') : rounding;
  return priceBucket(bid.bid.price, granularityFor(granularities, bid), mode);
}

export { INVALID_TARGETING_WARNING };

/**
 * The object with its keys in lower case, as Prebid Server's decoder reads fields (`withCategory` is `withcategory`);
 * a key already in lower case wins over another spelling of it.
 */
function lowerCaseKeys(object: Record<string, unknown>): Record<string, unknown> {
  let allLower = true;
  for (const key in object) {
    if (key !== key.toLowerCase()) {
      allLower = false;
      break;
    }
  }
  if (allLower) return object;
  const lower: Record<string, unknown> = {};
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    const name = key.toLowerCase();
    if (name === key || !Object.hasOwn(lower, name)) lower[name] = object[key];
  }
  return lower;
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}
