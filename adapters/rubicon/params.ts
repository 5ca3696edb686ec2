import { fieldIgnoringCase, goBool, goFloat, goInt, goNumberText, goSlice, goString, goStruct, type JsonObject } from '../../core/api/index.js';
import type { Imp } from '../../core/api/index.js';

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

const BIDDER = ['rubicon.rubiconExtImpBidder.Bidder'];
const param = (field: string): string[] => [...BIDDER, `openrtb_ext.ExtImpRubicon.${field}`];
const VIDEO = param('Video');
const DEBUG = param('Debug');

export function readRubiconImpExt(imp: Imp): RubiconImpExt {
  // Go decodes into structs: every member is matched to its field ignoring case, the last of a name winning.
  const ext = goStruct(imp.ext, []);
  const of = (object: JsonObject, name: string): unknown => fieldIgnoringCase(object, name);
  goStruct(of(ext, 'prebid'), ['rubicon.rubiconExtImpBidder.Prebid']);
  const bidder = goStruct(of(ext, 'bidder'), BIDDER);
  const video = goStruct(of(bidder, 'video'), VIDEO);
  const debug = goStruct(of(bidder, 'debug'), DEBUG);
  goString(of(video, 'language'), [...VIDEO, 'openrtb_ext.rubiconVideoParams.Language']);
  goNumberText(of(video, 'playerHeight'), [...VIDEO, 'openrtb_ext.rubiconVideoParams.PlayerHeight']);
  goNumberText(of(video, 'playerWidth'), [...VIDEO, 'openrtb_ext.rubiconVideoParams.PlayerWidth']);
  const keywords = param('Keywords');
  return {
    params: {
      accountId: goNumberText(of(bidder, 'accountId'), param('AccountId')),
      siteId: goNumberText(of(bidder, 'siteId'), param('SiteId')),
      zoneId: goNumberText(of(bidder, 'zoneId'), param('ZoneId')),
      inventory: of(bidder, 'inventory'),
      visitor: of(bidder, 'visitor'),
      bidOnMultiformat: goBool(of(bidder, 'bidonmultiformat'), param('BidOnMultiformat')) ?? false,
      keywords: goSlice(of(bidder, 'keywords'), keywords, '[]string').map((keyword) => goString(keyword, [...keywords, '[]string'])),
      video: {
        sizeId: goInt(of(video, 'size_id'), [...VIDEO, 'openrtb_ext.rubiconVideoParams.VideoSizeID']),
        skip: goInt(of(video, 'skip'), [...VIDEO, 'openrtb_ext.rubiconVideoParams.Skip']),
        skipDelay: goInt(of(video, 'skipdelay'), [...VIDEO, 'openrtb_ext.rubiconVideoParams.SkipDelay']),
      },
      cpmOverride: goFloat(of(debug, 'cpmoverride'), [...DEBUG, 'openrtb_ext.impExtRubiconDebug.CpmOverride']),
    },
    gpid: goString(of(ext, 'gpid'), ['rubicon.rubiconExtImpBidder.Gpid']),
    tid: goString(of(ext, 'tid'), ['rubicon.rubiconExtImpBidder.Tid']),
    skadn: of(ext, 'skadn'),
    data: of(ext, 'data'),
  };
}

/**
 * A failure Prebid Server's adapter reports as a plain Go error (code 999), not the decoder's `FailedToUnmarshal`:
 * `strconv` errors, and the adapter's own `fmt.Errorf` texts.
 */
export class GoPlainError extends Error {}

/** Go's `json.Number.Int64()`: `strconv.ParseInt` of the text, with its error texts (a plain error). */
export function goInt64(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new GoPlainError(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`);
  const value = BigInt(text);
  if (value > 9223372036854775807n || value < -9223372036854775808n) throw new GoPlainError(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`);
  return Number(value);
}
