import {
  badInput,
  badServerResponse,
  checkResponseStatus,
  compileEndpoint,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  GoDecodeError,
  goInt,
  goString,
  goStruct,
  impMediaTypes,
  isJsonObject,
  encodeAsOpenrtb2Request,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type EndpointTemplate,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8' };
/** A bid is a deal when its line item's buying type says so. */
const DEAL_BUYING_TYPE = /(classic|deal)/;
const MTYPES: Record<number, MediaType> = { 1: 'banner', 2: 'video', 3: 'audio', 4: 'native' };

/** The endpoint macro: `{{PublisherId}}` (or Prebid Server's `{PublisherId}`, which a host may still write). */
const PUBLISHER_MACRO = /\{\{\s*\.?PublisherId\s*\}\}/g;
const LEGACY_PUBLISHER_MACRO = /(?<!\{)\{PublisherId\}(?!\})/g;

/**
 * The endpoint with and without a publisher: Prebid Server puts "<publisherId>/" where the macro stands, so the
 * slash belongs to the template (a value is always percent-encoded) and only the digits come from the params.
 */
interface Endpoints {
  plain: EndpointTemplate;
  withPublisher?: EndpointTemplate;
}

function compileEndpoints(endpoint: string): Endpoints {
  const template = endpoint.replace(LEGACY_PUBLISHER_MACRO, '{{PublisherId}}');
  const plain = compileEndpoint(template);
  try {
    return { plain, withPublisher: compileEndpoint(template.replace(PUBLISHER_MACRO, '$&/')) };
  } catch {
    return { plain };
  }
}

export function createImprovedigitalBidder(config: BidderConfig): Bidder {
  const endpoints = compileEndpoints(config.endpoint);

  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      // One call per imp: Improve Digital does not recommend multi-imp requests.
      for (const imp of request.imp) {
        const built = buildRequest(request, imp, endpoints);
        if ('error' in built) errors.push(built.error);
        else requests.push(built.request);
      }
      return { requests, errors };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      // The decoder's error goes back as it is (a generic error).
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };
      const { seatbid: seatbids, cur } = decoded.value;
      if (seatbids.length === 0) return { bids: [] };
      if (seatbids.length > 1) {
        return { bids: [], errors: [badServerResponse(`Unexpected SeatBid! Must be only one but have: ${seatbids.length}`)] };
      }
      const bids = seatbids[0]!.bid;
      if (bids.length === 0) return { bids: [] };

      const imps = new Map(request.imp.map((imp) => [imp.id, imp]));
      const typed: TypedBid[] = [];
      // Any bad bid fails the whole response, as in Prebid Server.
      for (const bid of bids) {
        const type = bidType(bid, imps);
        if ('error' in type) return { bids: [], errors: [type.error] };
        const withDeal = applyDeal(bid);
        if ('error' in withDeal) return { bids: [], errors: [withDeal.error] };
        typed.push({ bid: withDeal.bid, type: type.type });
      }
      return { currency: cur || 'USD', bids: typed };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

function buildRequest(request: BidRequest, imp: Imp, endpoints: Endpoints): { request: RequestData } | { error: BidderError } {
  const ext = extWithRewardedInventory(imp.ext);
  if ('error' in ext) return { error: failedToUnmarshal(ext.error) };
  const outgoing: Imp = ext.ext ? { ...imp, ext: ext.ext } : imp;

  const publisherId = publisherIdOf(imp.ext);
  let uri: string;
  try {
    if (publisherId === undefined) uri = endpoints.plain.expand({ PublisherId: '' });
    else if (endpoints.withPublisher) uri = endpoints.withPublisher.expand({ PublisherId: publisherId });
    else throw new Error('the endpoint has no place for a publisher id');
  } catch (err) {
    return { error: badInput(`cannot build the endpoint: ${(err as Error).message}`) };
  }
  return {
    request: { method: 'POST', uri, body: encodeAsOpenrtb2Request({ ...request, imp: [outgoing] }), headers: { ...REQUEST_HEADERS }, impIds: [imp.id] },
  };
}

/**
 * `imp.ext` with `is_rewarded_inventory: true` added when `imp.ext.prebid.is_rewarded_inventory` is 1; undefined
 * when nothing changes. Go decodes `imp.ext`, then its `prebid`, into maps of raw JSON (exact keys): either one not
 * being an object is the decoder's error. Go's decoder holds a raw `null` as no JSON at all, which then fails as
 * empty input.
 */
function extWithRewardedInventory(ext: unknown): { ext?: Record<string, unknown> } | { error: string } {
  if (!isJsonObject(ext)) return { error: `expect { or n, but found ${firstCharOf(ext)}` };
  if (!('prebid' in ext)) return {};
  const prebid = ext.prebid;
  if (!isJsonObject(prebid)) return { error: `expect { or n, but found ${firstCharOf(prebid)}` };
  if (prebid.is_rewarded_inventory === 1) return { ext: { ...ext, is_rewarded_inventory: true } };
  return {};
}

/**
 * The `publisherId` param when Go's decode of `imp.ext` into `{Bidder: {PublisherID int}}` gives a non-zero one (keys
 * in any case); anything that fails that decode leaves the endpoint without a publisher.
 */
function publisherIdOf(ext: unknown): string | undefined {
  const bidder = isJsonObject(ext) ? fieldIgnoringCase(ext, 'bidder') : undefined;
  const publisherId = isJsonObject(bidder) ? fieldIgnoringCase(bidder, 'publisherId') : undefined;
  return Number.isSafeInteger(publisherId) && publisherId !== 0 ? String(publisherId) : undefined;
}

/**
 * The character Go's decoder names in "but found X": the value's first JSON character, NUL when there is none (a raw
 * `null` is held as none).
 */
function firstCharOf(value: unknown): string {
  return value === undefined || value === null ? '\u0000' : JSON.stringify(value)[0]!;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** The bid's type from `mtype`, else from its imp when the imp has a single media type. */
function bidType(bid: Bid, imps: Map<string, Imp>): { type: MediaType } | { error: BidderError } {
  const impId = bid.impid;
  const imp = imps.get(impId);
  if (!imp) return { error: badServerResponse(`Failed to find impression for ID: "${impId}"`) };
  const mtype = bid.mtype ?? 0;
  if (mtype === 0) {
    const types = impMediaTypes(imp);
    if (types.length > 1) return { error: badServerResponse(`Bid must have non-zero MType for multi format impression with ID: "${impId}"`) };
    const [type] = types;
    if (!type) return { error: badServerResponse(`Could not determine MType from impression with ID: "${impId}"`) };
    return { type };
  }
  const type = MTYPES[mtype];
  return type ? { type } : { error: badServerResponse(`Unsupported MType ${mtype} for impression with ID: "${impId}"`) };
}

/**
 * `ext.improvedigital.line_item_id` becomes the deal id when its `buying_type` is "classic" or "deal". Go decodes
 * `bid.ext` into `BidExt` (keys in any case, the first field of the wrong type in the JSON's order failing): an ext of
 * the wrong shape fails the response with the decoder's error. The inner struct is anonymous, so its field errors
 * name the field alone.
 */
function applyDeal(bid: Bid): { bid: Bid } | { error: BidderError } {
  if (bid.ext === undefined || bid.ext === null) return { bid };
  let lineItem = 0;
  let buyingType = '';
  try {
    const ext = goStruct(bid.ext, []);
    for (const key in ext) {
      if (key.toLowerCase() !== 'improvedigital') continue;
      const links = ['improvedigital.BidExt.Improvedigital'];
      const details = goStruct(ext[key], links);
      for (const field in details) {
        const value = details[field];
        // Go's decoder leaves a field as it is on `null`.
        if (value === null) continue;
        const name = field.toLowerCase();
        if (name === 'line_item_id') lineItem = goInt(value, [...links, 'LineItemID']);
        else if (name === 'buying_type') buyingType = goString(value, [...links, 'BuyingType']);
      }
    }
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: failedToUnmarshal(err.message) };
    throw err;
  }
  if (lineItem !== 0 && DEAL_BUYING_TYPE.test(buyingType)) return { bid: { ...bid, dealid: String(lineItem) } };
  return { bid };
}
