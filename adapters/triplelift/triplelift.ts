import {
  badInput,
  BidderErrorCode,
  checkResponseStatus,
  decodeBidderParams,
  decodeExtImpBidder,
  decodeGoFields,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  GO_STRING_FIELD,
  GoDecodeError,
  goInt,
  goStruct,
  encodeAsOpenrtb2Request,
  unknownError,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type GoField,
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
        const built = buildImp(imp, info);
        if ('error' in built) errors.push(built.error);
        else imps.push(built.imp);
      }
      if (imps.length === 0) return { requests: [], errors: [...errors, unknownError('No valid impressions for triplelift')] };
      // Every valid imp goes in one call, the request re-encoded as Prebid Server's struct writes it.
      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
      return { requests: [{ method: 'POST', uri, body, headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      // Prebid Server reports statuses other than 400 as plain errors, not as bad server responses.
      const statusResult = checkResponseStatus(response, { code: BidderErrorCode.Unknown });
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const format = creativeFormat(bid.ext);
          if (typeof format === 'string') errors.push(failedToUnmarshal(format));
          else bids.push({ bid, type: VIDEO_FORMATS.has(format) ? 'video' : 'banner' });
        }
      }
      // TripleLift bids in USD.
      return { currency: 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

interface TripleliftParams {
  inventoryCode: string;
  floor?: number;
}

/** The imp with `tagid` = the inventory code and its floor in USD; an error when it cannot go. */
function buildImp(imp: Imp, info: RequestInfo): { imp: Imp } | { error: BidderError } {
  const params = readParams(imp.ext);
  if (typeof params === 'string') return { error: failedToUnmarshal(params) };
  if (!imp.banner && !imp.video) return { error: unknownError('neither Banner nor Video object specified') };

  // Go sets the tag id whatever it is; an empty one is left out when the request is encoded.
  const built: Imp = { ...imp, tagid: params.inventoryCode };
  if (params.floor !== undefined) built.bidfloor = params.floor;
  const priced = floorInUsd(built, info);
  if (typeof priced === 'string') return { error: badInput(priced) };
  return { imp: priced };
}

/**
 * `imp.ext.bidder` decoded as Prebid Server decodes it into `openrtb_ext.ExtImpTriplelift`: keys matched ignoring
 * case and read in order (the last one wins, the first bad one stops), `null` the zero value. The decoder's text
 * when it fails.
 */
function readParams(ext: unknown): TripleliftParams | string {
  // `imp.ext` into `adapters.ExtImpBidder` first (its `prebid` and `ae` typed), then its `bidder`.
  const impExt = decodeExtImpBidder(ext);
  if ('error' in impExt) return impExt.error;
  const bidder = decodeBidderParams(impExt.value.bidder, 'openrtb_ext.ExtImpTriplelift');
  if ('error' in bidder) return bidder.error;
  const decoded = decodeGoFields(bidder.params, 'openrtb_ext.ExtImpTriplelift', PARAM_FIELDS);
  if ('error' in decoded) return decoded.error;
  const { inventorycode, floor } = decoded.values;
  return { inventoryCode: typeof inventorycode === 'string' ? inventorycode : '', ...(typeof floor === 'number' && { floor }) };
}

/** `openrtb_ext.ExtImpTriplelift`: `inventoryCode` a string, `floor` a `*float64`. */
const PARAM_FIELDS: Readonly<Record<string, GoField>> = {
  inventorycode: GO_STRING_FIELD('InvCode'),
  floor: { goName: 'Floor', refuse: (value) => (typeof value === 'number' ? undefined : 'invalid number') },
};

/** TripleLift takes floors in USD: a positive floor in another currency is converted, and the currency says USD. */
function floorInUsd(imp: Imp, info: RequestInfo): Imp | string {
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

/**
 * `bid.ext.triplelift_pb.format` as Prebid Server decodes `bid.ext` into its struct, with the SDK's Go readers: 0 when
 * absent or `null` (a `null` leaves what an earlier key set); the decoder's text when it cannot (a bid without `ext`
 * gives the decoder nothing to read, which fails too).
 */
function creativeFormat(ext: unknown): number | string {
  try {
    const object = goStruct(ext, []);
    let format = 0;
    for (const key in object) {
      if (key.toLowerCase() !== 'triplelift_pb' || object[key] === null) continue;
      const links = ['triplelift.TripleliftRespExt.Triplelift'];
      const details = goStruct(object[key], links);
      for (const field in details) {
        if (field.toLowerCase() !== 'format' || details[field] === null) continue;
        format = goInt(details[field], [...links, 'triplelift.TripleliftInnerExt.Format']);
      }
    }
    return format;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}
