import {
  badInput,
  badServerResponse,
  BidderErrorCode,
  checkResponseStatus,
  decodeBidderParams,
  decodeOpenrtb2BidResponse,
  fieldIgnoringCase,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  readBidderParams,
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
        const body: BidRequest = encodeAsOpenrtb2Request({
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
        });
        return { method: 'POST', uri: config.endpoint, body, headers: { ...REQUEST_HEADERS }, impIds: body.imp.map((imp) => imp.id) };
      });
      return { requests };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, { text: (status) => `Unexpected http status code: ${status}`, badRequestCode: BidderErrorCode.BadServerResponse });
      if (statusResult) return statusResult;

      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(goPercentDText(decoded.error))] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video']);
          if (type) bids.push({ bid, type });
          else errors.push(badServerResponse(`Unsupported return mType: ${bid.mtype ?? 0}`));
        }
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

/**
 * Prebid Server words an unreadable answer with `fmt.Sprintf("Bad server response: %d", err)`: `%d` does not call
 * `Error()`, so Go prints the error struct (a pointer to `errortypes.FailedToUnmarshal`) field by field, and its one
 * string field as a bad verb.
 */
function goPercentDText(detail: string): string {
  return `Bad server response: &{%!d(string=${detail})}`;
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

/** `ImpExtNextMillennium`'s fields: JSON key, Go field name, Go type. */
const PARAM_FIELDS = [
  { key: 'group_id', goName: 'GroupID', kind: 'string' },
  { key: 'placement_id', goName: 'PlacementID', kind: 'string' },
  { key: 'adSlots', goName: 'AdSlots', kind: 'strings' },
  { key: 'allowedAds', goName: 'AllowedAds', kind: 'strings' },
] as const;

/** The imp's params, or the text Prebid Server's decoder reports for them (without naming the imp, as it does). */
function readParams(imp: Imp): NextMillenniumParams | string {
  // Go decodes `"ext": null` as an empty ExtImpBidder, whose missing bidder then fails.
  const read = imp.ext === null ? decodeBidderParams(undefined, PARAMS_TYPE) : readBidderParams(imp, PARAMS_TYPE);
  if ('error' in read) return read.error;
  const bidder = read.params;
  const problem = firstFieldError(bidder);
  if (problem !== undefined) return problem;
  const text = (key: string): string => (fieldIgnoringCase(bidder, key) as string | null | undefined) ?? '';
  // Go's []string decodes a null entry as the empty string, and sends it on as "".
  const list = (key: string): string[] => ((fieldIgnoringCase(bidder, key) as (string | null)[] | null | undefined) ?? []).map((entry) => entry ?? '');
  return { groupId: text('group_id'), placementId: text('placement_id'), adSlots: list('adSlots'), allowedAds: list('allowedAds') };
}

const PARAMS_TYPE = 'openrtb_ext.ImpExtNextMillennium';

/**
 * The first param, in the order the JSON gives them, that Go cannot decode into its field, worded as PBS's decoder
 * (json-iterator, through jsonutil) words it: the struct field and the reader's complaint, which names the first
 * character of the value. A list entry that is not a string is reported against the list type, `[]string`.
 */
function firstFieldError(bidder: JsonObject): string | undefined {
  for (const key of Object.keys(bidder)) {
    const field = PARAM_FIELDS.find((candidate) => candidate.key.toLowerCase() === key.toLowerCase());
    const value = bidder[key];
    if (!field || value === null) continue;
    const found = JSON.stringify(value)[0];
    if (field.kind === 'string') {
      if (typeof value !== 'string') return `cannot unmarshal ${PARAMS_TYPE}.${field.goName}: expects " or n, but found ${found}`;
      continue;
    }
    if (!Array.isArray(value)) return `cannot unmarshal ${PARAMS_TYPE}.${field.goName}: decode slice: expect [ or n, but found ${found}`;
    const entry = value.find((item) => item !== null && typeof item !== 'string');
    if (entry !== undefined) return `cannot unmarshal []string: expects " or n, but found ${JSON.stringify(entry)[0]}`;
  }
  return undefined;
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
