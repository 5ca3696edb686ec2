import {
  badInput,
  checkResponseStatus,
  embeddedExtImpBidderError,
  decodeGoFields,
  decodeOpenrtb2BidResponse,
  ErrorCode,
  failedToUnmarshal,
  fieldIgnoringCase,
  GavelError,
  GO_STRING_FIELD,
  goFoundByte,
  goObjectExpected,
  isJsonObject,
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
  type Publisher,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };
/** MSN pages may name their own tag code in `imp.ext.data.tag_code`. */
const MSN_DOMAIN = 'msn.com';

/**
 * The publishers the host may send to TripleLift Native, from `extra.publisher_whitelist` (Prebid Server's
 * `extra_info`). A malformed list stops boot, as Prebid Server's builder does.
 */
function publisherAllowlist(extra: Record<string, unknown>): Set<string> {
  const list = extra.publisher_whitelist;
  if (list === undefined || list === null) return new Set();
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
    throw new GavelError(ErrorCode.BidderConfigInvalid, 'invalid extra info: publisher_whitelist must be a list of strings');
  }
  return new Set(list);
}

export function createTripleliftNativeBidder(config: BidderConfig): Bidder {
  const uri = config.endpoint;
  const allowlist = publisherAllowlist(config.extra);

  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      for (const imp of request.imp) {
        const built = buildImp(imp, request, info);
        if ('error' in built) errors.push(built.error);
        else imps.push(built.imp);
      }
      // A publisher the host did not allowlist gets nothing, and only this error.
      if (!allowlist.has(effectivePublisherId(request))) return { requests: [], errors: [unknownError('Unsupported publisher for triplelift_native')] };
      if (imps.length === 0) return { requests: [], errors: [...errors, unknownError('No valid impressions for triplelift')] };
      // The request goes re-encoded as Prebid Server's struct writes it.
      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
      return { requests: [{ method: 'POST', uri, body, headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) }], errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };
      const bids: TypedBid[] = [];
      // Every bid is native, and in USD.
      for (const seatbid of decoded.value.seatbid) for (const bid of seatbid.bid) bids.push({ bid, type: 'native' });
      return { currency: 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** The imp with its tag id and its floor in USD; an error when it cannot go. */
function buildImp(imp: Imp, request: BidRequest, info: RequestInfo): { imp: Imp } | { error: BidderError } {
  const ext = readImpExt(imp.ext);
  if (typeof ext === 'string') return { error: failedToUnmarshal(ext) };
  const params = readParams(ext.bidder);
  if (typeof params === 'string') return { error: failedToUnmarshal(params) };
  if (!imp.native) return { error: unknownError('no native object specified') };

  const tagid = ext.tagCode !== '' && onMsn(request) ? ext.tagCode : params.inventoryCode;
  // Go sets the tag id whatever it is; an empty one is left out when the request is encoded.
  const built: Imp = { ...imp, tagid };
  if (params.floor !== undefined) built.bidfloor = params.floor;
  const priced = floorInUsd(built, info);
  if (typeof priced === 'string') return { error: badInput(priced) };
  return { imp: priced };
}

/**
 * `imp.ext` as Prebid Server decodes it into its `ExtImp` struct (processImp, triplelift_native.go), which embeds
 * `*adapters.ExtImpBidder`: the raw params, the embedded typed `prebid` (an `openrtb_ext.ExtImpPrebid`) and `ae` (an
 * int8), and `data.tag_code` ('' when absent). Keys match ignoring case, the last one winning; the decoder's text
 * when it fails.
 */
function readImpExt(ext: unknown): { bidder: unknown; tagCode: string } | string {
  if (ext !== null && !isJsonObject(ext)) return goObjectExpected(ext);
  const read: { bidder: unknown; tagCode: string } = { bidder: undefined, tagCode: '' };
  for (const key in ext ?? {}) {
    const value = (ext as Record<string, unknown>)[key];
    const name = key.toLowerCase();
    if (name === 'bidder') read.bidder = value;
    if (name === 'prebid' || name === 'ae') {
      const error = embeddedExtImpBidderError(name, value);
      if (error !== undefined) return error;
    }
    if (name !== 'data') continue;
    if (value === null) {
      read.tagCode = '';
      continue;
    }
    if (!isJsonObject(value)) return `cannot unmarshal triplelift_native.ExtImp.Data: expect { or n, but found ${goFoundByte(value)}`;
    for (const field in value) {
      if (field.toLowerCase() !== 'tag_code') continue;
      const tagCode = value[field];
      if (tagCode !== null && typeof tagCode !== 'string') {
        return `cannot unmarshal triplelift_native.ExtImpData.TagCode: expects " or n, but found ${goFoundByte(tagCode)}`;
      }
      read.tagCode = tagCode ?? '';
    }
  }
  return read;
}


/** `imp.ext.bidder` as Prebid Server decodes it into `openrtb_ext.ExtImpTriplelift`; the decoder's text when it fails. */
function readParams(bidder: unknown): { inventoryCode: string; floor?: number } | string {
  if (bidder === null) return { inventoryCode: '' };
  if (!isJsonObject(bidder)) return goObjectExpected(bidder);
  const decoded = decodeGoFields(bidder, 'openrtb_ext.ExtImpTriplelift', PARAM_FIELDS);
  if ('error' in decoded) return decoded.error;
  const { inventorycode, floor } = decoded.values;
  return { inventoryCode: typeof inventorycode === 'string' ? inventorycode : '', ...(typeof floor === 'number' && { floor }) };
}

/** `openrtb_ext.ExtImpTriplelift`: `inventoryCode` a string, `floor` a `*float64`. */
const PARAM_FIELDS: Readonly<Record<string, GoField>> = {
  inventorycode: GO_STRING_FIELD('InvCode'),
  floor: { goName: 'Floor', refuse: (value) => (typeof value === 'number' ? undefined : 'invalid number') },
};

function onMsn(request: BidRequest): boolean {
  return request.site?.publisher?.domain === MSN_DOMAIN || request.app?.publisher?.domain === MSN_DOMAIN;
}

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

/** The app's publisher (else the site's): its `ext.prebid.parentAccount`, else its id, else "unknown". */
function effectivePublisherId(request: BidRequest): string {
  const publisher: Publisher | undefined = request.app ? request.app.publisher : request.site?.publisher;
  if (!isJsonObject(publisher)) return 'unknown';
  // Prebid Server decodes publisher.ext ignoring case, and falls back to the id when it cannot.
  const prebid = isJsonObject(publisher.ext) ? fieldIgnoringCase(publisher.ext, 'prebid') : undefined;
  const parentAccount = isJsonObject(prebid) ? fieldIgnoringCase(prebid, 'parentAccount') : undefined;
  if (typeof parentAccount === 'string' && parentAccount !== '') return parentAccount;
  return typeof publisher.id === 'string' && publisher.id !== '' ? publisher.id : 'unknown';
}
