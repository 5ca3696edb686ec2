/** Reads an XAPI response into typed bids. */
import {
  badServerResponse,
  isJsonObject,
  readBidResponse,
  requestOption,
  type Bid,
  type BidderError,
  type BidRequest,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';
import { chooseMediaType } from './xapi-request.js';
import { readRubiconParams } from './params.js';

export interface PriceOverrides {
  /** Per imp id, from the imp's params (`debug.cpmoverride`). */
  byImp: ReadonlyMap<string, number>;
  /** From `request.ext.<ns>.bidders.<bidder>.debug.cpmoverride`, for imps without their own. */
  forRequest?: number;
}

export function readXapiBids(sent: RequestData, response: ResponseData, overrides: PriceOverrides): MakeBidsResult {
  const read = readBidResponse(response);
  if ('result' in read) return read.result;
  const body = read.body;

  // Each call carries one imp of one media type, so every bid in the answer is of that type.
  const mediaType = sentMediaType(sent) ?? 'banner';
  const bids: TypedBid[] = [];
  const errors: BidderError[] = [];
  // XAPI names the buyer on the seatbid, which the SDK's seatBids() does not carry, so the seatbids are walked here.
  for (const seatBid of Array.isArray(body.seatbid) ? body.seatbid : []) {
    if (!isJsonObject(seatBid) || !Array.isArray(seatBid.bid)) continue;
    const buyer = parseBuyer(seatBid.buyer);
    const seat = typeof seatBid.seat === 'string' ? seatBid.seat : '';
    for (const raw of seatBid.bid) {
      if (!isJsonObject(raw) || typeof raw.impid !== 'string' || typeof raw.price !== 'number') {
        errors.push(badServerResponse('Bad server response: a bid lacks impid or a numeric price'));
        continue;
      }
      const bid = toBid(raw, body, buyer, seat, overrides);
      // XAPI answers "no bid" for an imp with a zero-priced bid.
      if (bid.price !== 0) bids.push({ bid, type: mediaType });
    }
  }
  const currency = typeof body.cur === 'string' && body.cur !== '' ? body.cur : undefined;
  return { currency, bids, errors: errors.length > 0 ? errors : undefined };
}

export function priceOverrides(request: BidRequest, bidder: string): PriceOverrides {
  const byImp = new Map<string, number>();
  for (const imp of Array.isArray(request.imp) ? request.imp : []) {
    const read = isJsonObject(imp) ? readRubiconParams(imp) : undefined;
    if (read && 'params' in read && read.params.cpmOverride !== undefined) byImp.set(imp.id, read.params.cpmOverride);
  }
  const debug = requestOption(request, 'bidders', bidder, 'debug');
  const forRequest = isJsonObject(debug) && typeof debug.cpmoverride === 'number' && debug.cpmoverride > 0 ? debug.cpmoverride : undefined;
  return { byImp, forRequest };
}

function toBid(raw: JsonObject, body: JsonObject, buyer: number, seat: string, overrides: PriceOverrides): Bid {
  const bid = { ...raw } as Bid;
  delete bid.adm_native;
  const ext = withMeta(raw.ext, buyer, seat);
  if (ext !== undefined) bid.ext = ext;

  const override = overrides.byImp.get(bid.impid) ?? overrides.forRequest;
  if (override !== undefined) bid.price = override;
  // XAPI returns one bid per response and may leave its id as "0": the response's bidid names it then.
  if (bid.id === '0' && typeof body.bidid === 'string') bid.id = body.bidid;

  const adm = resolveAdm(raw);
  if (adm !== undefined) bid.adm = adm;
  return bid;
}

/** Native ads may come as an object in `adm_native` rather than as text in `adm`. */
function resolveAdm(raw: JsonObject): string | undefined {
  if (typeof raw.adm === 'string' && raw.adm !== '') return raw.adm;
  if (raw.adm_native !== undefined && raw.adm_native !== null) return JSON.stringify(raw.adm_native);
  return undefined;
}

/** Records the buyer network and the seat in `bid.ext.prebid.meta`, where the auction reports them. */
function withMeta(ext: unknown, buyer: number, seat: string): JsonObject | undefined {
  if (buyer === 0 && seat === '') return undefined;
  const bidExt = isJsonObject(ext) ? ext : {};
  const prebid = isJsonObject(bidExt.prebid) ? bidExt.prebid : {};
  const meta: JsonObject = isJsonObject(prebid.meta) ? { ...prebid.meta } : {};
  if (buyer !== 0) meta.networkId = buyer;
  if (seat !== '') meta.seat = seat;
  return { ...bidExt, prebid: { ...prebid, meta } };
}

function parseBuyer(buyer: unknown): number {
  if (typeof buyer === 'number' && Number.isSafeInteger(buyer)) return buyer;
  if (typeof buyer === 'string' && /^[+-]?\d+$/.test(buyer.trim())) {
    const parsed = Number(buyer.trim());
    return Number.isSafeInteger(parsed) ? parsed : 0;
  }
  return 0;
}

function sentMediaType(sent: RequestData): MediaType | undefined {
  let body: unknown = sent.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  const imp = isJsonObject(body) && Array.isArray(body.imp) ? body.imp[0] : undefined;
  return isJsonObject(imp) ? chooseMediaType(imp as Imp) : undefined;
}
