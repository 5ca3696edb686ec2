/** Reads a PubMatic translator response into typed bids. */
import {
  badServerResponse,
  isJsonObject,
  MTYPE_TO_MEDIA_TYPE,
  readBidResponse,
  seatBids,
  type Bid,
  type BidderError,
  type JsonObject,
  type MakeBidsResult,
  type MediaType,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';
import { rawMemberText } from './json.js';

/** PubMatic's older bid typing, `bid.ext.bidtype`, for bids without `mtype`. */
const LEGACY_BID_TYPES: Readonly<Record<number, MediaType>> = { 0: 'banner', 1: 'video', 2: 'native' };

export function readPubmaticBids(response: ResponseData): MakeBidsResult {
  const read = readBidResponse(response);
  if ('result' in read) return read.result;

  const bids: TypedBid[] = [];
  const errors: BidderError[] = [];
  for (const { bid: raw } of seatBids(read.body)) {
    if (!isJsonObject(raw) || typeof raw.impid !== 'string' || typeof raw.price !== 'number') {
      errors.push(badServerResponse('Bad server response: a bid lacks impid or a numeric price'));
      continue;
    }
    const typed = toTypedBid(raw, errors);
    if (typed) bids.push(typed);
  }
  const currency = typeof read.body.cur === 'string' && read.body.cur !== '' ? read.body.cur : undefined;
  return { currency, bids, errors: errors.length > 0 ? errors : undefined };
}

function toTypedBid(raw: JsonObject, errors: BidderError[]): TypedBid | undefined {
  const bid = { ...raw } as Bid;
  const bidExt = isJsonObject(raw.ext) ? raw.ext : {};
  const type = mediaTypeOf(raw, bidExt);
  if (!type) {
    errors.push(badServerResponse(`bid ${String(raw.id)} for imp ${raw.impid}: no media type (mtype ${String(raw.mtype)})`));
    return undefined;
  }
  // The ad server keys on a single category.
  if (Array.isArray(bid.cat) && bid.cat.length > 1) bid.cat = bid.cat.slice(0, 1);
  if (isJsonObject(raw.ext)) bid.ext = withDsaParamsRenamed(raw.ext);
  if (type === 'native' && typeof bid.adm === 'string') {
    const adm = unwrapNativeAdm(bid.adm);
    if (adm === undefined) errors.push(badServerResponse(`bid ${String(raw.id)}: native adm is not a JSON object`));
    else bid.adm = adm;
  }

  const typed: TypedBid = { bid, type };
  if (typeof bidExt.marketplace === 'string' && bidExt.marketplace !== '') typed.seat = bidExt.marketplace;
  if (typeof bidExt.prebiddealpriority === 'number' && bidExt.prebiddealpriority > 0) typed.dealPriority = bidExt.prebiddealpriority;
  const duration = isJsonObject(bidExt.video) ? bidExt.video.duration : undefined;
  if (typeof duration === 'number') typed.video = { duration };
  return typed;
}

function mediaTypeOf(bid: JsonObject, bidExt: JsonObject): MediaType | undefined {
  if (typeof bid.mtype === 'number') return MTYPE_TO_MEDIA_TYPE[bid.mtype];
  const legacy = bidExt.bidtype ?? bidExt.BidType;
  return typeof legacy === 'number' ? LEGACY_BID_TYPES[legacy] : undefined;
}

/**
 * PubMatic may wrap a native response as `{"native": {...}}`; the auction wants the inner object, kept as the exact
 * text PubMatic sent.
 */
function unwrapNativeAdm(adm: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(adm);
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed)) return undefined;
  if (!('native' in parsed)) return adm;
  return isJsonObject(parsed.native) ? rawMemberText(adm, 'native') : undefined;
}

/** PubMatic names the DSA transparency params `dsaparams`; OpenRTB's DSA extension calls them `params`. */
function withDsaParamsRenamed(ext: JsonObject): JsonObject {
  const dsa = ext.dsa;
  if (!isJsonObject(dsa) || !Array.isArray(dsa.transparency)) return ext;
  const transparency = dsa.transparency.map((entry: unknown) => {
    if (!isJsonObject(entry) || !('dsaparams' in entry)) return entry;
    const { dsaparams, ...rest } = entry;
    return { ...rest, params: dsaparams };
  });
  return { ...ext, dsa: { ...dsa, transparency } };
}
