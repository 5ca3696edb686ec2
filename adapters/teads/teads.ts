import {
  asGenericErrors,
  badInput,
  bidResponseCurrency,
  compileEndpoint,
  fieldIgnoringCase,
  isJsonObject,
  PBS_STATUS_CHECK,
  readBidResponse,
  seatBids,
  unknownError,
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

export function createTeadsBidder(config: BidderConfig): Bidder {
  const endpoint = resolveEndpoint(config.endpoint);
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      if (request.imp.length === 0) return { requests: [], errors: [badInput('No impression in the bid request')] };
      if ('error' in endpoint) return { requests: [], errors: [endpoint.error] };
      const imps: Imp[] = [];
      for (const imp of request.imp) {
        const built = teadsImp(imp);
        // One imp Teads cannot take fails the whole request.
        if (typeof built === 'string') return { requests: [], errors: [badInput(built)] };
        imps.push(built);
      }
      return {
        requests: [{
          method: 'POST',
          uri: endpoint.uri,
          body: { ...request, imp: imps },
          headers: { 'Content-Type': 'application/json;charset=utf-8' },
          impIds: imps.map((imp) => imp.id),
        }],
      };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const read = readBidResponse(response, PBS_STATUS_CHECK);
      if ('result' in read) {
        // Past the status check (only a 200 carries bids), an error is an unreadable body: a plain error (code 999).
        const decoding = response.status === 200;
        return decoding ? { bids: [], errors: asGenericErrors(read.result.errors) } : read.result;
      }
      const bids: TypedBid[] = [];
      for (const { bid: entry } of seatBids(read.body)) {
        // Any bid Teads's rules refuse loses the whole answer, as in Prebid Server.
        if (!isJsonObject(entry)) return failed(unknownError('cannot unmarshal the response: a bid is not an object'));
        const bid = entry as Bid;
        const renderer = readRenderer(bid.ext);
        if ('error' in renderer) return failed(renderer.error);
        const imp = request.imp.find((candidate) => candidate.id === bid.impid);
        if (!imp) return failed(badInput('Imp ids were not equals'));
        bids.push({ bid, type: imp.video ? 'video' : 'banner', meta: { rendererName: renderer.name, rendererVersion: renderer.version } });
      }
      return { currency: bidResponseCurrency(read.body) ?? 'USD', bids };
    },
  };
}

function failed(error: BidderError): MakeBidsResult {
  return { bids: [], errors: [error] };
}

/** The endpoint, which takes no values from the request; a template with macros Teads cannot fill is an error per call. */
function resolveEndpoint(template: string): { uri: string } | { error: BidderError } {
  try {
    return { uri: compileEndpoint(template).expand({}) };
  } catch (err) {
    return { error: badInput(`Unable to parse endpoint url template: ${(err as Error).message}`) };
  }
}

/**
 * The imp as Teads takes it: the placement id as `tagid` and as the only thing in `imp.ext` (`{kv: {placementId}}`),
 * and a banner with formats sized by its first format. Returns the error text when the placement id is unusable.
 */
function teadsImp(imp: Imp): Imp | string {
  const placementId = readPlacementId(imp.ext);
  if (placementId === undefined) return 'Error parsing Imp.Ext object';
  if (placementId === 0) return 'placementId should not be 0.';
  const built: Imp = { ...imp, tagid: String(placementId), ext: { kv: { placementId } } };
  const format = imp.banner?.format?.[0];
  if (imp.banner && format) built.banner = { ...imp.banner, w: format.w ?? 0, h: format.h ?? 0 };
  return built;
}

/** `imp.ext.bidder.placementId` as Go decodes it into an int: 0 when absent, undefined when not an integer. */
function readPlacementId(ext: unknown): number | undefined {
  if (!isJsonObject(ext)) return undefined;
  const bidder = fieldIgnoringCase(ext, 'bidder');
  if (bidder === undefined || bidder === null) return 0;
  if (!isJsonObject(bidder)) return undefined;
  const placementId = fieldIgnoringCase(bidder, 'placementId');
  if (placementId === undefined || placementId === null) return 0;
  return typeof placementId === 'number' && Number.isSafeInteger(placementId) ? placementId : undefined;
}

/** `bid.ext.prebid.meta`'s renderer: Teads requires a name and a version on every bid. */
function readRenderer(ext: unknown): { name: string; version: string } | { error: BidderError } {
  if (ext === undefined) return { error: unknownError('cannot unmarshal bid.ext: unexpected end of JSON input') };
  const prebid = goObject(ext, 'prebid');
  const meta = prebid && goObject(prebid, 'meta');
  if (!meta) return { error: unknownError('cannot unmarshal bid.ext: bid.ext.prebid.meta must be an object') };
  const name = fieldIgnoringCase(meta, 'rendererName');
  const version = fieldIgnoringCase(meta, 'rendererVersion');
  if ((name != null && typeof name !== 'string') || (version != null && typeof version !== 'string')) {
    return { error: unknownError('cannot unmarshal bid.ext.prebid.meta: the renderer name and version must be strings') };
  }
  if (!name) return { error: badInput('RendererName should not be empty if present') };
  if (!version) return { error: badInput('RendererVersion should not be empty if present') };
  return { name, version };
}

/** A nested object as Go decodes it into a struct: absent or null is empty, anything but an object undecodable. */
function goObject(parent: unknown, name: string): JsonObject | undefined {
  if (parent === null) return {};
  if (!isJsonObject(parent)) return undefined;
  const value = fieldIgnoringCase(parent, name);
  if (value === undefined || value === null) return {};
  return isJsonObject(value) ? value : undefined;
}
