import {
  badInput,
  checkResponseStatus,
  compileEndpoint,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  goObjectExpected,
  isJsonObject,
  encodeAsOpenrtb2Request,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
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
          body: encodeAsOpenrtb2Request({ ...request, imp: imps }),
          headers: { 'Content-Type': 'application/json;charset=utf-8' },
          impIds: imps.map((imp) => imp.id),
        }],
      };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return failed(failedToUnmarshal(decoded.error));
      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          // Any bid Teads's rules refuse loses the whole answer, as in Prebid Server.
          const renderer = readRenderer(bid.ext);
          if ('error' in renderer) return failed(renderer.error);
          const imp = request.imp.find((candidate) => candidate.id === bid.impid);
          if (!imp) return failed(badInput('Imp ids were not equals'));
          bids.push({ bid, type: imp.video ? 'video' : 'banner', meta: { rendererName: renderer.name, rendererVersion: renderer.version } });
        }
      }
      return { currency: decoded.value.cur || 'USD', bids };
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

/**
 * `imp.ext.bidder.placementId` as Go decodes it into an int: 0 when absent or `null`, undefined when `imp.ext` cannot
 * be decoded. Keys match ignoring case, each one decoded in turn, and a `null` leaves what an earlier key set.
 */
function readPlacementId(ext: unknown): number | undefined {
  if (ext === undefined) return undefined;
  if (ext === null) return 0;
  if (!isJsonObject(ext)) return undefined;
  let placementId = 0;
  for (const bidder of membersIgnoringCase(ext, 'bidder')) {
    if (bidder === null) continue;
    if (!isJsonObject(bidder)) return undefined;
    for (const value of membersIgnoringCase(bidder, 'placementId')) {
      if (value === null) continue;
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return undefined;
      placementId = value;
    }
  }
  return placementId;
}

/**
 * `bid.ext.prebid.meta`'s renderer, decoded as Prebid Server decodes `bid.ext` into its `teadsBidExt` (with its
 * decoder's texts); Teads requires a name and a version on every bid.
 */
function readRenderer(ext: unknown): { name: string; version: string } | { error: BidderError } {
  const meta = { name: '', version: '' };
  const problem = decodeRendererInto(ext, meta);
  // Go returns jsonutil.Unmarshal's error as it is: FailedToUnmarshal (14).
  if (problem) return { error: failedToUnmarshal(problem) };
  if (!meta.name) return { error: badInput('RendererName should not be empty if present') };
  if (!meta.version) return { error: badInput('RendererVersion should not be empty if present') };
  return meta;
}

/** Fills `meta` from `bid.ext`: keys match ignoring case, a `null` object is left as it was, a `null` text emptied. */
function decodeRendererInto(ext: unknown, meta: { name: string; version: string }): string | undefined {
  if (ext === null) return undefined;
  if (!isJsonObject(ext)) return goObjectExpected(ext);
  for (const prebid of membersIgnoringCase(ext, 'prebid')) {
    if (prebid === null) continue;
    if (!isJsonObject(prebid)) return `cannot unmarshal teads.teadsBidExt.Prebid: ${goObjectExpected(prebid)}`;
    for (const rendererMeta of membersIgnoringCase(prebid, 'meta')) {
      if (rendererMeta === null) continue;
      if (!isJsonObject(rendererMeta)) return `cannot unmarshal teads.teadsPrebidExt.Meta: ${goObjectExpected(rendererMeta)}`;
      for (const key in rendererMeta) {
        if (!Object.hasOwn(rendererMeta, key)) continue;
        const field = key.toLowerCase() === 'renderername' ? 'RendererName' : key.toLowerCase() === 'rendererversion' ? 'RendererVersion' : undefined;
        if (!field) continue;
        const value = rendererMeta[key];
        // A member set to undefined is not in the JSON the bidder decodes.
        if (value === undefined) continue;
        if (value !== null && typeof value !== 'string') return `cannot unmarshal teads.teadsPrebidMeta.${field}: expects " or n, but found ${JSON.stringify(value)[0]}`;
        meta[field === 'RendererName' ? 'name' : 'version'] = value ?? '';
      }
    }
  }
  return undefined;
}

/** The values of every key matching `name` ignoring case, in the order they come: Go's decoder reads each in turn. */
function membersIgnoringCase(object: JsonObject, name: string): unknown[] {
  const wanted = name.toLowerCase();
  const values: unknown[] = [];
  for (const key in object) if (Object.hasOwn(object, key) && object[key] !== undefined && key.toLowerCase() === wanted) values.push(object[key]);
  return values;
}

