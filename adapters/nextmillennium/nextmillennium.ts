import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  fieldIgnoringCase,
  isJsonObject,
  mediaTypeFromMtype,
  readBidResponse,
  seatBids,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** Sent as `ext.nextMillennium.nm_version`: the version of this integration as NextMillennium knows it. */
const ADAPTER_VERSION = 'v1.0.1';
const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json', 'x-openrtb-version': '2.5' };

interface NextMillenniumParams {
  groupId: string;
  placementId: string;
  adSlots: string[];
  allowedAds: string[];
}

/**
 * NextMillennium answers from stored requests: each imp's params name one (a placement, or a group resolved by the
 * first imp's size and the domain), and each makes its own call, which carries every imp of the auction.
 */
export function createNextMillenniumBidder(config: BidderConfig): Bidder {
  const flags = readHostFlags(config.extra);
  const server = { externalurl: config.host.externalUrl, gvlid: config.host.gvlId ?? 0, datacenter: config.host.datacenter ?? '' };
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      const allParams: NextMillenniumParams[] = [];
      for (const imp of request.imp) {
        const params = readParams(imp);
        if (typeof params === 'string') errors.push(badInput(params));
        else allParams.push(params);
      }
      // One imp with unreadable params fails the whole request.
      if (errors.length > 0) return { requests: [], errors };

      const requests = allParams.map((params): RequestData => {
        const storedRequestId = params.groupId === '' ? params.placementId : groupPlacementId(request, params.groupId);
        const impExt = { prebid: { storedrequest: { id: storedRequestId } }, nextMillennium: withoutEmpty({ nmmFlags: flags }) };
        const [first, ...others] = request.imp;
        const body: BidRequest = {
          ...request,
          imp: [{ ...first!, ext: impExt }, ...others],
          ext: {
            prebid: { storedrequest: { id: storedRequestId }, server },
            nextMillennium: withoutEmpty({
              nmmFlags: flags,
              adSlots: params.adSlots,
              allowedAds: params.allowedAds,
              // Prebid Server sends its own version here; Gavel sends the host's.
              server_version: config.host.version ?? '',
              nm_version: ADAPTER_VERSION,
            }),
          },
        };
        return { method: 'POST', uri: config.endpoint, body, headers: { ...REQUEST_HEADERS }, impIds: body.imp.map((imp) => imp.id) };
      });
      return { requests };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const read = readBidResponse(response, { text: (status) => `Unexpected http status code: ${status}`, badRequestCode: BidderErrorCode.BadServerResponse });
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        if (!isJsonObject(bid)) return { bids: [], errors: [badServerResponse('Bad server response: a bid is not an object')] };
        const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video']);
        if (type) bids.push({ bid: bid as Bid, type });
        else errors.push(badServerResponse(`Unsupported return mType: ${typeof bid.mtype === 'number' ? bid.mtype : 0}`));
      }
      // NextMillennium bids in dollars: Prebid Server does not read the answer's currency either.
      return { currency: 'USD', bids, errors };
    },
  };
}

/**
 * A group's placement: `g<group>;<size>;<domain>`, the size from the first imp of the auction (its first format,
 * else its own w and h), the domain from the app, else the site.
 */
function groupPlacementId(request: BidRequest, groupId: string): string {
  let domain = request.site?.domain ?? '';
  if (request.app) domain = request.app.domain ?? '';
  let size = '';
  const banner = request.imp[0]?.banner;
  if (banner) {
    const format = banner.format?.[0];
    if (format) size = `${format.w ?? 0}x${format.h ?? 0}`;
    else if (banner.w != null && banner.h != null) size = `${banner.w}x${banner.h}`;
  }
  return `g${groupId};${size};${domain}`;
}

/** The object without its empty lists and strings (Go's `omitempty`). */
function withoutEmpty(object: Record<string, string | string[]>): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) if (value.length > 0) result[key] = value;
  return result;
}

// ---------------------------------------------------------------------------------------------------------------
// Params and host settings, as Prebid Server decodes them (field names match regardless of case, null is "not set")
// ---------------------------------------------------------------------------------------------------------------

function readParams(imp: Imp): NextMillenniumParams | string {
  const bidder = isJsonObject(imp.ext) ? fieldIgnoringCase(imp.ext, 'bidder') : undefined;
  if (bidder === undefined) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder: unexpected end of JSON input`;
  const params: NextMillenniumParams = { groupId: '', placementId: '', adSlots: [], allowedAds: [] };
  if (bidder === null) return params;
  if (!isJsonObject(bidder)) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder: expected an object`;
  for (const [key, field] of [['group_id', 'groupId'], ['placement_id', 'placementId']] as const) {
    const value = fieldIgnoringCase(bidder, key);
    if (value == null) continue;
    if (typeof value !== 'string') return `imp ${imp.id}: cannot unmarshal imp.ext.bidder.${key}: expected a string`;
    params[field] = value;
  }
  for (const key of ['adSlots', 'allowedAds'] as const) {
    const list = readStrings(fieldIgnoringCase(bidder, key));
    if (list === undefined) return `imp ${imp.id}: cannot unmarshal imp.ext.bidder.${key}: expected an array of strings`;
    params[key] = list;
  }
  return params;
}

/**
 * The host's flags for NextMillennium (`extra.nmmFlags`, Prebid Server's `extra_info`). Settings of the wrong type
 * stop the boot, as Prebid Server's builder refuses them.
 */
function readHostFlags(extra: Record<string, unknown>): string[] {
  for (const key of ['nmmFlags', 'adSlots', 'allowedAds']) {
    if (readStrings(fieldIgnoringCase(extra, key)) === undefined) throw new Error(`invalid extra info: ${key} must be an array of strings`);
  }
  for (const key of ['server_version', 'nm_version']) {
    const value = fieldIgnoringCase(extra, key);
    if (value != null && typeof value !== 'string') throw new Error(`invalid extra info: ${key} must be a string`);
  }
  return readStrings(fieldIgnoringCase(extra, 'nmmFlags')) ?? [];
}

/** A list of strings; absent or null is empty, anything else undefined (undecodable). */
function readStrings(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}
