import {
  bidResponseCurrency,
  checkResponseStatus,
  decodeGoFields,
  GO_STRING_FIELD,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  GoDecodeError,
  goInt,
  goString,
  goStruct,
  goQueryEscape,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unknownError,
  withFloorInCurrency,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type GoField,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type Publisher,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** Sent as the `v` query parameter: the version of this integration as AMX knows it. */
const ADAPTER_VERSION = 'pbs1.3';
/** AMX bids in US dollars; floors in other currencies are converted before they are sent. */
const BIDDER_CURRENCY = 'USD';
/** AMX's own no-bid reason code, reported with failed calls. */
const NBR_HEADER = 'x-nbr';
/** `bid.ext.ct` for a native creative. */
const NATIVE_CREATIVE_TYPE = 10;

export function createAmxBidder(config: BidderConfig): Bidder {
  const uri = withVersionQuery(config.endpoint);
  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      let publisherId = '';
      let hasFloor = false;
      for (const imp of request.imp) {
        // AMX bids in dollars: a floor in another currency is converted before it is sent.
        const floored = withFloorInCurrency(imp, BIDDER_CURRENCY, info);
        if ('error' in floored) {
          errors.push(unknownError(floored.error));
          continue;
        }
        let outgoing = floored.imp;
        if (typeof outgoing.bidfloor === 'number' && outgoing.bidfloor > 0) hasFloor = true;
        const params = readParams(imp.ext);
        if (params) {
          if (params.tagId) publisherId = params.tagId;
          if (params.adUnitId) outgoing = { ...outgoing, tagid: params.adUnitId };
        }
        imps.push(outgoing);
      }
      if (imps.length === 0) return { requests: [], errors };

      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
      // Floors are in dollars now, so AMX is asked to bid in dollars too.
      if (hasFloor) body.cur = [BIDDER_CURRENCY];
      if (publisherId !== '') {
        if (body.app) body.app = { ...body.app, publisher: withId(body.app.publisher, publisherId) };
        if (body.site) body.site = { ...body.site, publisher: withId(body.site.publisher, publisherId) };
      }
      return {
        requests: [{ method: 'POST', uri, body, headers: { 'Content-Type': 'application/json;charset=utf-8' }, impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `Unexpected response: ${status}. Error Code: ${header(response, NBR_HEADER)}`,
        badRequestText: `Invalid Request: 400. Error Code: ${header(response, NBR_HEADER)}`,
      });
      if (statusResult) return statusResult;
      // Go returns its decoder's error as it is: a generic error.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const ext = readBidExt(bid.ext);
          if (typeof ext === 'string') {
            errors.push(unknownError(ext));
            continue;
          }
          const typed: TypedBid = { bid, type: mediaType(ext), meta: bidMeta(bid, ext.ds) };
          if (ext.bc) typed.seat = ext.bc;
          bids.push(typed);
        }
      }
      return { currency: bidResponseCurrency(decoded.value) ?? 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * The endpoint with `v=pbs1.3` added to its query, which is re-encoded as Go's `url.Values` does (keys sorted,
 * values query-escaped). A query Go cannot parse is a configuration error, as in Prebid Server's builder.
 */
function withVersionQuery(endpoint: string): string {
  const hashAt = endpoint.indexOf('#');
  const fragment = hashAt === -1 ? '' : endpoint.slice(hashAt);
  const base = hashAt === -1 ? endpoint : endpoint.slice(0, hashAt);
  const queryAt = base.indexOf('?');
  const values = new Map<string, string[]>();
  for (const pair of queryAt === -1 ? [] : base.slice(queryAt + 1).split('&')) {
    if (pair === '') continue;
    if (pair.includes(';')) throw new Error('invalid query parameters in the endpoint: invalid semicolon separator in query');
    const equals = pair.indexOf('=');
    const key = queryUnescape(equals === -1 ? pair : pair.slice(0, equals));
    const value = queryUnescape(equals === -1 ? '' : pair.slice(equals + 1));
    values.set(key, [...(values.get(key) ?? []), value]);
  }
  values.set('v', [...(values.get('v') ?? []), ADAPTER_VERSION]);
  const query = [...values.keys()]
    .sort()
    .flatMap((key) => values.get(key)!.map((value) => `${goQueryEscape(key)}=${goQueryEscape(value)}`))
    .join('&');
  return `${queryAt === -1 ? base : base.slice(0, queryAt)}?${query}${fragment}`;
}

function queryUnescape(text: string): string {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new Error(`invalid query parameters in the endpoint: invalid URL escape in "${text}"`);
  }
}


interface AmxParams {
  tagId?: string;
  adUnitId?: string;
}

/**
 * `imp.ext.bidder` as Prebid Server decodes `imp.ext` into `amxExt` (keys in any case, in the order written, `null`
 * the empty string); params it cannot decode whole are ignored, and the imp still goes.
 */
function readParams(ext: unknown): AmxParams | undefined {
  if (!isJsonObject(ext)) return undefined;
  const bidder = fieldIgnoringCase(ext, 'bidder');
  if (bidder === undefined || bidder === null) return {};
  if (!isJsonObject(bidder)) return undefined;
  const decoded = decodeGoFields(bidder, 'openrtb_ext.ExtImpAMX', PARAM_FIELDS);
  if ('error' in decoded) return undefined;
  return { tagId: decoded.values.tagid as string | undefined, adUnitId: decoded.values.adunitid as string | undefined };
}

/** `openrtb_ext.ExtImpAMX`: two strings. */
const PARAM_FIELDS: Readonly<Record<string, GoField>> = { tagid: GO_STRING_FIELD('TagID'), adunitid: GO_STRING_FIELD('AdUnitID') };

function withId(publisher: Publisher | undefined, id: string): Publisher {
  return { ...publisher, id };
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

interface AmxBidExt {
  startdelay?: number;
  ct?: number;
  ds?: string;
  bc?: string;
}

/** Video when the bid states a start delay, native for creative type 10, else banner. */
function mediaType(ext: AmxBidExt): MediaType {
  if (ext.startdelay !== undefined) return 'video';
  if (ext.ct === NATIVE_CREATIVE_TYPE) return 'native';
  return 'banner';
}

function bidMeta(bid: Bid, demandSource: string | undefined): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  if (Array.isArray(bid.adomain) && bid.adomain.length > 0) meta.advertiserDomains = bid.adomain;
  if (demandSource) meta.demandSource = demandSource;
  return meta;
}

/** `amxBidExt`'s fields by lower-cased JSON key: the Go field name (named in decoder errors) and its Go type's reader. */
const BID_EXT_FIELDS: Readonly<Record<string, readonly [goName: string, read: (value: unknown, links: readonly string[]) => unknown]>> = {
  startdelay: ['StartDelay', goInt],
  ct: ['CreativeType', goInt],
  ds: ['DemandSource', goString],
  bc: ['BidderCode', goString],
};

/**
 * `bid.ext` as Go decodes it into `amxBidExt` (pointer fields: `startdelay` and `ct` ints, `ds` the demand source and
 * `bc` the seat, strings): members in the order written, keys matched ignoring case, `null` the nil pointer, the first
 * member of the wrong type failing the whole ext with json-iterator's text. An absent ext is not decoded at all.
 */
function readBidExt(ext: unknown): AmxBidExt | string {
  if (ext === undefined) return {};
  try {
    const object = goStruct(ext, []);
    const read: Record<string, unknown> = {};
    for (const key in object) {
      if (!Object.hasOwn(object, key)) continue;
      const name = key.toLowerCase();
      const field = BID_EXT_FIELDS[name];
      if (field === undefined) continue;
      const value = object[key];
      if (value === null) delete read[name];
      else read[name] = field[1](value, [`amx.amxBidExt.${field[0]}`]);
    }
    return read as AmxBidExt;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------
/** A response header, looked up regardless of case; empty when absent. */
function header(response: ResponseData, name: string): string {
  for (const [key, value] of Object.entries(response.headers)) if (key.toLowerCase() === name) return value;
  return '';
}
