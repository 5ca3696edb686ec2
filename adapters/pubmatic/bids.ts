/** Reads a PubMatic translator response into typed bids, as Prebid Server's adapter does. */
import {
  badServerResponse,
  BidderErrorCode,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  goBool,
  GoDecodeError,
  goInt,
  goString,
  goStruct,
  isJsonObject,
  mediaTypeFromMtype,
  unknownError,
  type Bid,
  type BidderError,
  type FledgeAuctionConfig,
  type JsonObject,
  type MakeBidsResult,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';
import { rawMemberText } from './json.js';

export function readPubmaticBids(response: ResponseData): MakeBidsResult {
  // PBS's PubMatic adapter reports statuses other than 400 as generic errors.
  const statusResult = checkResponseStatus(response, { code: BidderErrorCode.Unknown });
  if (statusResult) return statusResult;

  const decoded = decodeOpenrtb2BidResponse(response.body);
  if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };
  const bids: TypedBid[] = [];
  const errors: BidderError[] = [];
  for (const seatbid of decoded.value.seatbid) {
    for (const bid of seatbid.bid) {
      const typed = toTypedBid(bid, errors);
      if (typed) bids.push(typed);
    }
  }
  const fledgeAuctionConfigs = auctionConfigs(decoded.value.ext);
  return fledgeAuctionConfigs ? { currency: decoded.value.cur || 'USD', bids, errors, fledgeAuctionConfigs } : { currency: decoded.value.cur || 'USD', bids, errors };
}

/**
 * Protected Audience configs, by imp id in `ext.fledge_auction_configs`. An ext Go cannot decode into PubMatic's
 * `respExt` gives none, and costs the bids nothing.
 */
function auctionConfigs(ext: unknown): FledgeAuctionConfig[] | undefined {
  if (!isJsonObject(ext)) return undefined;
  const byImp = fieldIgnoringCase(ext, 'fledge_auction_configs');
  if (!isJsonObject(byImp)) return undefined;
  return Object.entries(byImp).map(([impId, config]) => ({ impId, config }));
}

/**
 * A bid is typed by `mtype` alone (a bid without one is an error). Its `ext` gives the seat (`marketplace`), deal
 * priority, video duration and meta media type (video for in-banner video); an `ext` that cannot be decoded is
 * reported but the bid stays, as does a native bid whose markup cannot be read.
 */
function toTypedBid(raw: Bid, errors: BidderError[]): TypedBid | undefined {
  const type = mediaTypeFromMtype(raw.mtype);
  if (!type) {
    errors.push(badServerResponse(`failed to parse bid mtype (${raw.mtype ?? 0}) for impression id ${raw.impid}`));
    return undefined;
  }
  const bid: Bid = { ...raw };
  // The ad server keys on a single category.
  if (Array.isArray(bid.cat) && bid.cat.length > 1) bid.cat = bid.cat.slice(0, 1);
  const typed: TypedBid = { bid, type, video: { duration: 0 } };

  const bidExt = readBidExt(raw.ext);
  // Go returns the decoder's error as it is (FailedToUnmarshal).
  if ('error' in bidExt) errors.push(failedToUnmarshal(bidExt.error));
  else if (bidExt.ext) {
    const { marketplace, prebiddealpriority, video, ibv } = bidExt.ext;
    if (marketplace) typed.seat = marketplace as string;
    if (typeof prebiddealpriority === 'number' && prebiddealpriority > 0) typed.dealPriority = prebiddealpriority;
    if (isJsonObject(video) && typeof video.duration === 'number') typed.video = { duration: video.duration };
    typed.meta = { mediaType: ibv === true ? 'video' : type };
  }

  if (type === 'native') {
    const adm = nativeAdm(bid.adm ?? '');
    if (adm === undefined) errors.push(unknownError('unable to unmarshal native adm'));
    else bid.adm = adm;
  }
  return typed;
}

/**
 * `bid.ext` decoded as Go's `*pubmaticBidExt`, with json-iterator's texts: `null` is none, a missing ext (nothing to
 * read) or a member of the wrong type fails. Members are matched ignoring case; returned by their lower-case names.
 */
function readBidExt(ext: unknown): { ext?: JsonObject } | { error: string } {
  if (ext === null) return {};
  const field = (name: string) => [`pubmatic.pubmaticBidExt.${name}`];
  try {
    const object = goStruct(ext, []);
    const read: JsonObject = {};
    for (const key of Object.keys(object)) {
      const name = key.toLowerCase();
      const value = object[key];
      if (name === 'marketplace') read.marketplace = goString(value, field('Marketplace'));
      else if (name === 'prebiddealpriority') read.prebiddealpriority = goInt(value, field('PrebidDealPriority'));
      else if (name === 'ibv') read.ibv = goBool(value, field('InBannerVideo'));
      else if (name === 'video') {
        const links = field('VideoCreativeInfo');
        if (value === null) {
          delete read.video;
          continue;
        }
        const video = goStruct(value, links);
        const duration = fieldIgnoringCase(video, 'duration');
        read.video = duration === undefined || duration === null ? {} : { duration: goInt(duration, [...links, 'pubmatic.pubmaticBidExtVideo.Duration']) };
      }
    }
    return { ext: read };
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
  }
}

/**
 * PubMatic may wrap a native response as `{"native": ...}`; the auction wants the inner value, as the exact text
 * PubMatic sent (a string's content without its quotes). Undefined when the markup is not a JSON object.
 */
function nativeAdm(adm: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(adm);
  } catch {
    return undefined;
  }
  if (parsed === null) return adm;
  if (!isJsonObject(parsed)) return undefined;
  if (!('native' in parsed)) return adm;
  const inner = rawMemberText(adm, 'native')!;
  return inner.startsWith('"') ? inner.slice(1, -1) : inner;
}
