import {
  badInput,
  checkResponseStatus,
  decodeGoFields,
  GO_STRING_FIELD,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  goFoundByte,
  isJsonObject,
  encodeAsOpenrtb2Request,
  readBidderParams,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Ext,
  type GoField,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type RequestData,
  type ResponseData,
  type TypedBid,
  type Video,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8' };
/** How Prebid Server names itself in `ext.ttx.caller`, the list of hops a request went through. */
const CALLER = { name: 'Prebid-Server', version: 'n/a' };

export function create33acrossBidder(config: BidderConfig): Bidder {
  const uri = config.endpoint;

  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      // The request ext is optional for 33Across: a bad one is reported, and the requests go without it. Go
      // appends its decoder's error unwrapped: FailedToUnmarshal (14).
      const ext = requestExt(request.ext);
      if ('error' in ext) errors.push(failedToUnmarshal(ext.error));

      // One call per product and zone: 33Across takes several imps in a call only when both are the same.
      const groups = new Map<string, Imp[]>();
      for (const imp of request.imp) {
        const built = buildImp(imp);
        if ('error' in built) {
          errors.push(badInput(built.error));
          continue;
        }
        const key = built.prod + built.zoneid;
        const group = groups.get(key);
        if (group) group.push(built.imp);
        else groups.set(key, [built.imp]);
      }

      const requests: RequestData[] = [];
      for (const imps of groups.values()) {
        const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
        if ('ext' in ext) body.ext = ext.ext;
        else delete body.ext;
        requests.push({ method: 'POST', uri, body, headers: { ...REQUEST_HEADERS }, impIds: imps.map((imp) => imp.id) });
      }
      return { requests, errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      // Go returns its decoder's error as it is: a generic error.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };
      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) bids.push({ bid, type: isVideoBid(bid) ? 'video' : 'banner' });
      }
      // 33Across bids in USD: the response's currency is not read.
      return { currency: 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * The request ext 33Across gets: only `ttx.caller`, the incoming callers (name and version) followed by Prebid
 * Server. Everything else in the request ext is left out. Go decodes the ext into its own struct (keys matched
 * ignoring case); an ext that does not decode leaves the requests without one, and the decoder's text is reported.
 */
function requestExt(incoming: unknown): { ext: Ext } | { error: string } {
  if (incoming !== undefined && incoming !== null && !isJsonObject(incoming)) return { error: `expect { or n, but found ${goFoundByte(incoming)}` };
  const ttx = isJsonObject(incoming) ? fieldIgnoringCase(incoming, 'ttx') : undefined;
  if (ttx != null && !isJsonObject(ttx)) return { error: `cannot unmarshal ttx.reqExt.Ttx: expect { or n, but found ${goFoundByte(ttx)}` };
  const callers = isJsonObject(ttx) ? fieldIgnoringCase(ttx, 'caller') : undefined;
  if (callers != null && !Array.isArray(callers)) return { error: `cannot unmarshal ttx.reqTtxExt.Caller: decode slice: expect [ or n, but found ${goFoundByte(callers)}` };
  const kept: Array<Record<string, string>> = [];
  for (const caller of Array.isArray(callers) ? callers : []) {
    if (caller === null) {
      kept.push({});
      continue;
    }
    if (!isJsonObject(caller)) return { error: `cannot unmarshal []ttx.TtxCaller: expect { or n, but found ${goFoundByte(caller)}` };
    const decoded = decodeGoFields(caller, 'ttx.TtxCaller', CALLER_FIELDS);
    if ('error' in decoded) return decoded;
    // Both fields are `omitempty`: an empty one is not written again.
    const entry: Record<string, string> = {};
    for (const [key, value] of Object.entries(decoded.values)) if (value !== '') entry[key] = value as string;
    kept.push(entry);
  }
  return { ext: { ttx: { caller: [...kept, { ...CALLER }] } } };
}

/** `TtxCaller`'s fields by lower-case JSON key. */
const CALLER_FIELDS: Readonly<Record<string, GoField>> = { name: GO_STRING_FIELD('Name'), version: GO_STRING_FIELD('Version') };

/** `ExtImp33across`'s fields by lower-case JSON key: all strings, named as its decoder reports them. */
const PARAM_FIELDS: Readonly<Record<string, GoField>> = {
  productid: GO_STRING_FIELD('ProductId'),
  siteid: GO_STRING_FIELD('SiteId'),
  zoneid: GO_STRING_FIELD('ZoneId'),
};

/** The imp as 33Across takes it: `ext` becomes `{ttx: {prod, zoneid}}`, video is checked and completed. */
function buildImp(imp: Imp): { imp: Imp; prod: string; zoneid: string } | { error: string } {
  if (!imp.banner && !imp.video) return { error: `Imp ID ${imp.id} must have at least one of [Banner, Video] defined` };
  const params = readBidderParams(imp, 'openrtb_ext.ExtImp33across');
  if ('error' in params) return params;
  // Members in the order they come: the first of the wrong type fails, as json-iterator reads them.
  const decoded = decodeGoFields(params.params, 'openrtb_ext.ExtImp33across', PARAM_FIELDS);
  if ('error' in decoded) return decoded;
  const read = decoded.values as { productid?: string; siteid?: string; zoneid?: string };
  const prod = read.productid ?? '';
  const zoneid = read.zoneid || (read.siteid ?? '');
  const ttx: Record<string, string> = { prod };
  if (zoneid !== '') ttx.zoneid = zoneid;

  const built: Imp = { ...imp, ext: { ttx } };
  if (imp.video) {
    const video = checkedVideo(imp.video, prod);
    if (!video) return { error: 'One or more invalid or missing video field(s) w, h, protocols, mimes, playbackmethod' };
    built.video = video;
  }
  return { imp: built, prod, zoneid };
}

/** 33Across needs a player size, protocols, mimes and playback methods; instream defaults the start delay to 0. */
function checkedVideo(video: Video, prod: string): Video | undefined {
  const present = (value: unknown) => value !== undefined && value !== null;
  if (!video.w || !video.h || !present(video.protocols) || !present(video.mimes) || !present(video.playbackmethod)) return undefined;
  if (prod === 'instream' && !present(video.startdelay)) return { ...video, startdelay: 0 };
  return video;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/**
 * Video when `ext.ttx.mediaType` says so (keys matched ignoring case, as Go decodes them); every other bid is a
 * banner, one whose ext does not decode included.
 */
function isVideoBid(bid: Bid): boolean {
  const ttx = isJsonObject(bid.ext) ? fieldIgnoringCase(bid.ext, 'ttx') : undefined;
  return isJsonObject(ttx) && fieldIgnoringCase(ttx, 'mediaType') === 'video';
}
