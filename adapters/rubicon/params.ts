import { goBool, goFloat, goInt, goNumberText, goSlice, goString, goStruct } from '../../core/api/index.js';
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
  const ext = goStruct(imp.ext, []);
  goStruct(ext.prebid, ['rubicon.rubiconExtImpBidder.Prebid']);
  const bidder = goStruct(ext.bidder, BIDDER);
  const video = goStruct(bidder.video, VIDEO);
  const debug = goStruct(bidder.debug, DEBUG);
  goString(video.language, [...VIDEO, 'openrtb_ext.rubiconVideoParams.Language']);
  goNumberText(video.playerHeight, [...VIDEO, 'openrtb_ext.rubiconVideoParams.PlayerHeight']);
  goNumberText(video.playerWidth, [...VIDEO, 'openrtb_ext.rubiconVideoParams.PlayerWidth']);
  const keywords = param('Keywords');
  return {
    params: {
      accountId: goNumberText(bidder.accountId, param('AccountId')),
      siteId: goNumberText(bidder.siteId, param('SiteId')),
      zoneId: goNumberText(bidder.zoneId, param('ZoneId')),
      inventory: bidder.inventory,
      visitor: bidder.visitor,
      bidOnMultiformat: goBool(bidder.bidonmultiformat, param('BidOnMultiformat')) ?? false,
      keywords: goSlice(bidder.keywords, keywords, '[]string').map((keyword) => goString(keyword, [...keywords, '[]string'])),
      video: {
        sizeId: goInt(video.size_id, [...VIDEO, 'openrtb_ext.rubiconVideoParams.VideoSizeID']),
        skip: goInt(video.skip, [...VIDEO, 'openrtb_ext.rubiconVideoParams.Skip']),
        skipDelay: goInt(video.skipdelay, [...VIDEO, 'openrtb_ext.rubiconVideoParams.SkipDelay']),
      },
      cpmOverride: goFloat(debug.cpmoverride, [...DEBUG, 'openrtb_ext.impExtRubiconDebug.CpmOverride']),
    },
    gpid: goString(ext.gpid, ['rubicon.rubiconExtImpBidder.Gpid']),
    tid: goString(ext.tid, ['rubicon.rubiconExtImpBidder.Tid']),
    skadn: ext.skadn,
    data: ext.data,
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
