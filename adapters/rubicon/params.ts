import { badInput, isJsonObject, type BidderError, type Imp } from '../../core/api/index.js';

/** The bidder params of one imp (`imp.ext.bidder`), read into the shapes the XAPI request needs. */
export interface RubiconParams {
  accountId: number;
  siteId: number;
  zoneId: number;
  /** Page-level targeting key/values, merged into the imp's targeting. */
  inventory?: unknown;
  /** Visitor-level targeting key/values, merged into the user's targeting. */
  visitor?: unknown;
  pchain?: string;
  /** Offer each media type of a multi-format imp in its own call instead of picking one. */
  bidOnMultiformat: boolean;
  video: { sizeId?: number; skip?: number; skipDelay?: number };
  /** A debugging price that replaces the price of every bid on this imp. */
  cpmOverride?: number;
}

export type ParamsResult = { params: RubiconParams } | { error: BidderError };

export function readRubiconParams(imp: Imp): ParamsResult {
  const bidder = isJsonObject(imp.ext) ? imp.ext.bidder : undefined;
  if (!isJsonObject(bidder)) return { error: badInput(`imp ${imp.id}: missing rubicon params in imp.ext.bidder`) };

  const ids = { accountId: readId(bidder.accountId), siteId: readId(bidder.siteId), zoneId: readId(bidder.zoneId) };
  const unreadable = Object.entries(ids).filter(([, value]) => value === undefined).map(([name]) => name);
  if (unreadable.length > 0) {
    return { error: badInput(`imp ${imp.id}: ${unreadable.join(', ')} must be a whole number or a string of digits`) };
  }

  const video = isJsonObject(bidder.video) ? bidder.video : {};
  const debug = isJsonObject(bidder.debug) ? bidder.debug : {};
  return {
    params: {
      accountId: ids.accountId!,
      siteId: ids.siteId!,
      zoneId: ids.zoneId!,
      inventory: bidder.inventory,
      visitor: bidder.visitor,
      pchain: typeof bidder.pchain === 'string' && bidder.pchain !== '' ? bidder.pchain : undefined,
      bidOnMultiformat: bidder.bidonmultiformat === true,
      video: { sizeId: positiveInteger(video.size_id), skip: positiveInteger(video.skip), skipDelay: positiveInteger(video.skipdelay) },
      cpmOverride: positiveNumber(debug.cpmoverride),
    },
  };
}

/** Magnite ids arrive as numbers or as strings of digits (Prebid.js sends strings); XAPI wants numbers. */
function readId(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const parsed = Number(value);
    return Number.isSafeInteger(parsed) ? parsed : undefined;
  }
  return undefined;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}
