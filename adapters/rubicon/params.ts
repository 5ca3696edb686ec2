import { isJsonObject, type Imp, type JsonObject } from '../../core/api/index.js';

/**
 * An imp's `ext` as Prebid Server decodes it (`rubiconExtImpBidder`, with the params as `openrtb_ext.ExtImpRubicon`).
 * The Magnite ids are Go `json.Number`s: kept as text, read as integers only where they are used (see `goInt64`).
 */
export interface RubiconImpExt {
  params: RubiconParams;
  gpid: string;
  tid: string;
  /** Raw JSON, passed on as it is when present. */
  skadn?: unknown;
  /** Raw JSON: the imp's first-party data. */
  data?: unknown;
}

export interface RubiconParams {
  accountId: string;
  siteId: string;
  zoneId: string;
  /** Page-level targeting key/values, merged into the imp's targeting (raw JSON). */
  inventory?: unknown;
  /** Visitor-level targeting key/values, merged into the user's targeting (raw JSON). */
  visitor?: unknown;
  /** Offer each media type of a multi-format imp in its own call instead of picking one. */
  bidOnMultiformat: boolean;
  keywords: string[];
  video: { sizeId: number; skip: number; skipDelay: number };
  /** A debugging price that replaces the price of every bid on this imp (0: none). */
  cpmOverride: number;
}

/** A value Go's decoder would refuse; its message is the error reported. */
export class DecodeError extends Error {}

export function readRubiconImpExt(imp: Imp): RubiconImpExt {
  const ext = decodeObject(imp.ext, 'rubicon.rubiconExtImpBidder');
  decodeObject(ext.prebid, 'openrtb_ext.ExtImpPrebid');
  const bidder = decodeObject(ext.bidder, 'openrtb_ext.ExtImpRubicon');
  const video = decodeObject(bidder.video, 'openrtb_ext.rubiconVideoParams');
  const debug = decodeObject(bidder.debug, 'openrtb_ext.impExtRubiconDebug');
  decodeString(video.language, 'Language');
  decodeNumber(video.playerHeight, 'PlayerHeight');
  decodeNumber(video.playerWidth, 'PlayerWidth');
  if (bidder.bidonmultiformat !== undefined && bidder.bidonmultiformat !== null && typeof bidder.bidonmultiformat !== 'boolean') {
    throw new DecodeError(`cannot unmarshal openrtb_ext.ExtImpRubicon.BidOnMultiformat: expects a boolean, got ${JSON.stringify(bidder.bidonmultiformat)}`);
  }
  return {
    params: {
      accountId: decodeNumber(bidder.accountId, 'AccountId'),
      siteId: decodeNumber(bidder.siteId, 'SiteId'),
      zoneId: decodeNumber(bidder.zoneId, 'ZoneId'),
      inventory: bidder.inventory,
      visitor: bidder.visitor,
      bidOnMultiformat: bidder.bidonmultiformat === true,
      keywords: decodeStrings(bidder.keywords, 'Keywords'),
      video: { sizeId: decodeInt(video.size_id, 'VideoSizeID'), skip: decodeInt(video.skip, 'Skip'), skipDelay: decodeInt(video.skipdelay, 'SkipDelay') },
      cpmOverride: decodeFloat(debug.cpmoverride, 'CpmOverride'),
    },
    gpid: decodeString(ext.gpid, 'Gpid'),
    tid: decodeString(ext.tid, 'Tid'),
    skadn: ext.skadn,
    data: ext.data,
  };
}

/** Go's `json.Number.Int64()`: `strconv.ParseInt` of the text, with its error texts. */
export function goInt64(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new DecodeError(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value > 9223372036854775807n || value < -9223372036854775808n) throw new DecodeError(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return Number(value);
}

/** An object as Go decodes one into a struct or map: `null` (or absence) is empty, anything else fails. */
export function decodeObject(value: unknown, type: string): JsonObject {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) throw new DecodeError(`cannot unmarshal ${type}: expect { or n, but found ${JSON.stringify(value)[0]}`);
  return value;
}

function decodeString(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new DecodeError(`cannot unmarshal ${field}: expects " or n, but found ${JSON.stringify(value)[0]}`);
  return value;
}

/** A `json.Number` as Prebid Server's decoder fills it: a JSON number's text, or any string as it is. */
function decodeNumber(value: unknown, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  throw new DecodeError(`cannot unmarshal openrtb_ext.ExtImpRubicon.${field}: invalid number ${JSON.stringify(value)}`);
}

function decodeInt(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (!Number.isInteger(value)) throw new DecodeError(`cannot unmarshal ${field}: expects an integer, got ${JSON.stringify(value)}`);
  return value as number;
}

function decodeFloat(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number') throw new DecodeError(`cannot unmarshal ${field}: expects a number, got ${JSON.stringify(value)}`);
  return value;
}

function decodeStrings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((item) => item === null || typeof item === 'string')) {
    throw new DecodeError(`cannot unmarshal openrtb_ext.ExtImpRubicon.${field}: expects a list of strings, got ${JSON.stringify(value)}`);
  }
  return value.map((item: string | null) => item ?? '');
}
