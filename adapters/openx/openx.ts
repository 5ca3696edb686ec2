import {
  badInput,
  badServerResponse,
  bidMediaType,
  isJsonObject,
  readBidResponse,
  seatBids,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Ext,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type RequestData,
  type ResponseData,
  type TypedBid,
  type Video,
} from '../../core/api/index.js';

/** Tells OpenX which integration sent the request (its "bidder config"). */
const BIDDER_CONFIG = 'hb_pbs_1.0.0';
/** The service's own per-imp options live under one of these `imp.ext` keys; they are not OpenX's business. */
const SERVICE_NAMESPACES = ['prebid', 'svc'] as const;
const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

interface OpenxParams {
  unit: string;
  delDomain?: string;
  platform?: string;
  customFloor?: number;
  customParams?: Ext;
}

export function createOpenxBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      const bannerAndNative: Imp[] = [];
      const videos: Imp[] = [];
      for (const imp of arrayOf(request.imp)) {
        if (!isImp(imp)) errors.push(badInput('an imp without an id was skipped'));
        else if (imp.banner || imp.native) bannerAndNative.push(imp);
        else if (imp.video) videos.push(imp);
        else errors.push(badInput(`OpenX only supports banner, video and native imps. Ignoring imp id=${imp.id}`));
      }
      // Banner and native imps travel together; OpenX takes video imps one per request.
      const groups = [bannerAndNative, ...videos.map((video) => [video])].filter((group) => group.length > 0);
      const requests: RequestData[] = [];
      for (const group of groups) {
        const built = buildRequest(request, group, config.endpoint);
        errors.push(...built.errors);
        if (built.request) requests.push(built.request);
      }
      return { requests, errors };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const read = readBidResponse(response);
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        if (isBid(bid)) bids.push(typeBid(bid, request));
        else errors.push(badServerResponse('Bad server response: a bid is not an object with an impid'));
      }
      return { currency: typeof read.body.cur === 'string' && read.body.cur !== '' ? read.body.cur : 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * One OpenX request for a group of imps. The request's `ext` is replaced: OpenX reads only its own keys there, and
 * takes the delivery domain and platform of the first imp with valid params.
 */
function buildRequest(request: BidRequest, imps: Imp[], uri: string): { request?: RequestData; errors: BidderError[] } {
  const errors: BidderError[] = [];
  const prepared: Imp[] = [];
  let account: OpenxParams | undefined;
  for (const imp of imps) {
    const read = readOpenxParams(imp.ext?.bidder);
    if ('error' in read) {
      errors.push(badInput(`imp ${imp.id}: ${read.error}`));
      continue;
    }
    account ??= read.params;
    prepared.push(buildImp(imp, read.params));
  }
  if (!account) return { errors };

  const ext = dropUndefined({ bc: BIDDER_CONFIG, delDomain: account.delDomain, platform: account.platform });
  return {
    request: { method: 'POST', uri, body: { ...request, imp: prepared, ext }, headers: { ...REQUEST_HEADERS }, impIds: prepared.map((imp) => imp.id) },
    errors,
  };
}

function buildImp(imp: Imp, params: OpenxParams): Imp {
  const built: Imp = { ...imp, tagid: params.unit };
  if (!(typeof imp.bidfloor === 'number' && imp.bidfloor > 0) && params.customFloor !== undefined && params.customFloor > 0) {
    built.bidfloor = params.customFloor;
  }
  const ext = outgoingImpExt(imp.ext, params.customParams);
  if (ext) built.ext = ext;
  else delete built.ext;
  if (imp.video) built.video = outgoingVideo(imp.video, isRewarded(imp));
  return built;
}

/** Everything the publisher put in `imp.ext` goes through, except the params themselves and the service's options. */
function outgoingImpExt(incoming: Ext | undefined, customParams: Ext | undefined): Ext | undefined {
  const ext: Ext = { ...incoming };
  delete ext.bidder;
  for (const namespace of SERVICE_NAMESPACES) delete ext[namespace];
  if (customParams) ext.customParams = customParams;
  return Object.keys(ext).length > 0 ? ext : undefined;
}

/** OpenX reads `video.ext` only for the rewarded flag; anything else there is dropped. */
function outgoingVideo(video: Video, rewarded: boolean): Video {
  const { ext: _ignored, ...rest } = video;
  return rewarded ? { ...rest, ext: { rewarded: 1 } } : rest;
}

/** Rewarded inventory: OpenRTB 2.6 `imp.rwdd`, or the older `imp.ext.<namespace>.is_rewarded_inventory`. */
function isRewarded(imp: Imp): boolean {
  if (imp.rwdd === 1) return true;
  return SERVICE_NAMESPACES.some((namespace) => {
    const options = imp.ext?.[namespace];
    return isJsonObject(options) && options.is_rewarded_inventory === 1;
  });
}

function readOpenxParams(bidderParams: unknown): { params: OpenxParams } | { error: string } {
  if (!isJsonObject(bidderParams)) return { error: 'imp.ext.bidder must hold the openx params object' };
  const { unit, delDomain, platform, customFloor, customParams } = bidderParams;
  const unitText = typeof unit === 'number' && Number.isFinite(unit) ? String(unit) : typeof unit === 'string' ? unit.trim() : '';
  if (unitText === '') return { error: 'unit is required' };
  const floor = readFloor(customFloor);
  if (floor === 'invalid') return { error: `customFloor must be a number, got ${JSON.stringify(customFloor)}` };
  return {
    params: {
      unit: unitText,
      delDomain: typeof delDomain === 'string' && delDomain !== '' ? delDomain : undefined,
      platform: typeof platform === 'string' && platform !== '' ? platform : undefined,
      customFloor: floor,
      customParams: isJsonObject(customParams) ? customParams : undefined,
    },
  };
}

/** A floor given as a number or a decimal string. */
function readFloor(value: unknown): number | undefined | 'invalid' {
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : 'invalid';
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** Typed by `mtype`, else by the imp's only media type; OpenX's default is banner. */
function typeBid(bid: Bid, request: BidRequest): TypedBid {
  const imp = arrayOf(request.imp).find((candidate): candidate is Imp => isImp(candidate) && candidate.id === bid.impid);
  const type = bidMediaType(bid, imp) ?? 'banner';
  if (type !== 'video') return { bid, type };
  const video: TypedBid['video'] = {};
  if (typeof bid.dur === 'number') video.duration = bid.dur;
  if (Array.isArray(bid.cat) && typeof bid.cat[0] === 'string') video.primaryCategory = bid.cat[0];
  return { bid, type, video };
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

function isImp(value: unknown): value is Imp {
  return isJsonObject(value) && typeof value.id === 'string';
}

function isBid(value: unknown): value is Bid {
  return isJsonObject(value) && typeof value.impid === 'string';
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function dropUndefined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
