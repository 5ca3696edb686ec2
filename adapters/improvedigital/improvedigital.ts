import {
  badInput,
  badServerResponse,
  bidResponseCurrency,
  compileEndpoint,
  fieldIgnoringCase,
  impMediaTypes,
  isJsonObject,
  readGoBidResponse,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
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
      const parsed = readGoBidResponse(response, { decodeError: (detail) => unknownError(`cannot read the bid response: ${detail}`) });
      if ('result' in parsed) return parsed.result;
      const body = parsed.body;
      const seatbids = Array.isArray(body.seatbid) ? body.seatbid : [];
      if (seatbids.length === 0) return { bids: [] };
      if (seatbids.length > 1) {
        return { bids: [], errors: [badServerResponse(`Unexpected SeatBid! Must be only one but have: ${seatbids.length}`)] };
      }
      const seatbid: unknown = seatbids[0];
      const bids = isJsonObject(seatbid) && Array.isArray(seatbid.bid) ? seatbid.bid : [];
      if (bids.length === 0) return { bids: [] };

      const imps = new Map(request.imp.map((imp) => [imp.id, imp]));
      const typed: TypedBid[] = [];
      // Any bad bid fails the whole response, as in Prebid Server.
      for (const entry of bids) {
        if (!isJsonObject(entry)) return { bids: [], errors: [unknownError('cannot read the bid response: a bid is not a JSON object')] };
        const bid = entry as Bid;
        const type = bidType(bid, imps);
        if ('error' in type) return { bids: [], errors: [type.error] };
        const withDeal = applyDeal(bid);
        if ('error' in withDeal) return { bids: [], errors: [withDeal.error] };
        typed.push({ bid: withDeal.bid, type: type.type });
      }
      const currency = bidResponseCurrency(body);
      return { currency, bids: typed };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

function buildRequest(request: BidRequest, imp: Imp, endpoints: Endpoints): { request: RequestData } | { error: BidderError } {
  const ext = extWithRewardedInventory(imp.ext);
  if ('error' in ext) return { error: unknownError(ext.error) };
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
    request: { method: 'POST', uri, body: { ...request, imp: [outgoing] }, headers: { ...REQUEST_HEADERS }, impIds: [imp.id] },
  };
}

/**
 * `imp.ext` with `is_rewarded_inventory: true` added when `imp.ext.prebid.is_rewarded_inventory` is 1; undefined
 * when nothing changes. An `imp.ext` (or its `prebid`) that is not an object is an error, as Prebid Server's decoder
 * makes it.
 */
function extWithRewardedInventory(ext: unknown): { ext?: Record<string, unknown> } | { error: string } {
  if (!isJsonObject(ext)) return { error: 'cannot unmarshal imp.ext: it is not a JSON object' };
  if (!('prebid' in ext)) return {};
  const prebid = ext.prebid;
  if (prebid !== null && !isJsonObject(prebid)) return { error: 'cannot unmarshal imp.ext.prebid: it is not a JSON object' };
  if (isJsonObject(prebid) && prebid.is_rewarded_inventory === 1) return { ext: { ...ext, is_rewarded_inventory: true } };
  return {};
}

/** The `publisherId` param when it is a non-zero integer; anything else leaves the endpoint without a publisher. */
function publisherIdOf(ext: unknown): string | undefined {
  const bidder = isJsonObject(ext) ? ext.bidder : undefined;
  if (bidder !== undefined && bidder !== null && !isJsonObject(bidder)) return undefined;
  const publisherId = isJsonObject(bidder) ? bidder.publisherId : undefined;
  return Number.isSafeInteger(publisherId) && publisherId !== 0 ? String(publisherId) : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** The bid's type from `mtype`, else from its imp when the imp has a single media type. */
function bidType(bid: Bid, imps: Map<string, Imp>): { type: MediaType } | { error: BidderError } {
  const impId = typeof bid.impid === 'string' ? bid.impid : '';
  const imp = imps.get(impId);
  if (!imp) return { error: badServerResponse(`Failed to find impression for ID: "${impId}"`) };
  const mtype = typeof bid.mtype === 'number' ? bid.mtype : 0;
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
 * `ext.improvedigital.line_item_id` becomes the deal id when its `buying_type` is "classic" or "deal". An ext
 * of the wrong shape fails the response, as Prebid Server's decoder makes it.
 */
function applyDeal(bid: Bid): { bid: Bid } | { error: BidderError } {
  if (bid.ext === undefined || bid.ext === null) return { bid };
  if (!isJsonObject(bid.ext)) return { error: unknownError('cannot unmarshal bid.ext: it is not a JSON object') };
  const details = fieldIgnoringCase(bid.ext, 'improvedigital');
  if (details === null || details === undefined) return { bid };
  if (!isJsonObject(details)) return { error: unknownError('cannot unmarshal bid.ext.improvedigital: it is not a JSON object') };
  const lineItem = fieldIgnoringCase(details, 'line_item_id') ?? 0;
  const buyingType = fieldIgnoringCase(details, 'buying_type') ?? '';
  if (!Number.isSafeInteger(lineItem)) return { error: unknownError('cannot unmarshal bid.ext.improvedigital.line_item_id: it is not an integer') };
  if (typeof buyingType !== 'string') return { error: unknownError('cannot unmarshal bid.ext.improvedigital.buying_type: it is not a string') };
  if (lineItem !== 0 && DEAL_BUYING_TYPE.test(buyingType)) return { bid: { ...bid, dealid: String(lineItem) } };
  return { bid };
}
