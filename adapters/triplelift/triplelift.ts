import {
  badInput,
  BidderErrorCode,
  isJsonObject,
  readGoBidResponse,
  seatBids,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };
/** TripleLift creative formats that are video; every other format is a banner. */
const VIDEO_FORMATS = new Set([11, 12, 17]);

export function createTripleliftBidder(config: BidderConfig): Bidder {
  const uri = config.endpoint;

  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      for (const imp of request.imp) {
        const built = buildImp(imp, request, info);
        if ('error' in built) errors.push(built.error);
        else imps.push(built.imp);
      }
      if (imps.length === 0) return { requests: [], errors: [...errors, unknownError('No valid impressions for triplelift')] };
      // Every valid imp goes in one call.
      const body: BidRequest = { ...request, imp: imps };
      return { requests: [{ method: 'POST', uri, body, headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      // Prebid Server reports statuses other than 400 as plain errors, not as bad server responses.
      const parsed = readGoBidResponse(response, {
        status: { code: BidderErrorCode.Unknown },
        decodeError: (detail) => unknownError(`cannot read the bid response: ${detail}`),
      });
      if ('result' in parsed) return parsed.result;
      const body = parsed.body;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(body)) {
        if (!isJsonObject(bid)) continue;
        const format = creativeFormat(bid.ext);
        if (typeof format === 'string') errors.push(unknownError(format));
        else bids.push({ bid: bid as Bid, type: VIDEO_FORMATS.has(format) ? 'video' : 'banner' });
      }
      // TripleLift bids in USD.
      return { currency: 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** The imp with `tagid` = the inventory code and its floor in USD; an error when it cannot go. */
function buildImp(imp: Imp, request: BidRequest, info: RequestInfo): { imp: Imp } | { error: BidderError } {
  const params = imp.ext?.bidder;
  if (!isJsonObject(params)) return { error: unknownError('cannot read the triplelift params: imp.ext.bidder is not a JSON object') };
  const { inventoryCode, floor } = params;
  if (inventoryCode !== undefined && inventoryCode !== null && typeof inventoryCode !== 'string') {
    return { error: unknownError('cannot read the triplelift params: inventoryCode must be a string') };
  }
  if (floor !== undefined && floor !== null && typeof floor !== 'number') return { error: unknownError('cannot read the triplelift params: floor must be a number') };
  if (!imp.banner && !imp.video) return { error: unknownError('neither Banner nor Video object specified') };

  const built: Imp = { ...imp };
  if (typeof inventoryCode === 'string' && inventoryCode !== '') built.tagid = inventoryCode;
  else delete built.tagid;
  if (typeof floor === 'number') built.bidfloor = floor;
  const priced = floorInUsd(built, request, info);
  return typeof priced === 'string' ? { error: badInput(priced) } : { imp: priced };
}

/** TripleLift takes floors in USD: a positive floor in another currency is converted, and the currency says USD. */
function floorInUsd(imp: Imp, request: BidRequest, info: RequestInfo): Imp | string {
  if (!(typeof imp.bidfloor === 'number' && imp.bidfloor > 0)) return imp;
  const currency = typeof imp.bidfloorcur === 'string' ? imp.bidfloorcur : '';
  if (currency === '' || currency.toUpperCase() === 'USD') return { ...imp, bidfloorcur: 'USD' };
  try {
    return { ...imp, bidfloor: info.convertCurrency(imp.bidfloor, currency, 'USD'), bidfloorcur: 'USD' };
  } catch (err) {
    return `Unable to convert bid floor from ${currency} to USD: ${(err as Error).message}`;
  }
}


// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** `bid.ext.triplelift_pb.format`, 0 when absent; a text saying why when the ext cannot be read. */
function creativeFormat(ext: unknown): number | string {
  if (ext === undefined) return 'cannot read bid.ext: it is missing';
  if (ext === null) return 0;
  if (!isJsonObject(ext)) return 'cannot read bid.ext: it is not a JSON object';
  const details = ext.triplelift_pb;
  if (details === undefined || details === null) return 0;
  if (!isJsonObject(details)) return 'cannot read bid.ext.triplelift_pb: it is not a JSON object';
  const format = details.format;
  if (format === undefined || format === null) return 0;
  return Number.isSafeInteger(format) ? (format as number) : 'cannot read bid.ext.triplelift_pb.format: it is not an integer';
}
