import {
  badInput,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  decodeBidderParams,
  decodeExtImpBidder,
  fieldIgnoringCase,
  goFoundByte,
  isJsonObject,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Ext,
  type FledgeAuctionConfig,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/** Tells OpenX which integration sent the request (its "bidder config"). */
const BIDDER_CONFIG = 'hb_pbs_1.0.0';
/** The service's own per-imp options live under one of these `imp.ext` keys; they are not OpenX's business. */
const SERVICE_NAMESPACES = ['prebid', 'svc'] as const;
const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

interface OpenxParams {
  unit: string;
  delDomain: string;
  platform: string;
  customFloor?: number;
  customParams?: Ext;
}

/** The request's `ext`, replaced wholesale: `bc` always, the others when not empty. */
interface OpenxRequestExt {
  delDomain: string;
  platform: string;
}

export function createOpenxBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      // OpenX takes one media type per imp: banner over video over native. Banner and native imps travel together,
      // video imps one per request. An imp with none of the three is left out without a word.
      const bannerAndNative: Imp[] = [];
      const videos: Imp[] = [];
      for (const imp of request.imp) {
        if (imp.banner) bannerAndNative.push(imp);
        else if (imp.video) videos.push(imp);
        else if (imp.native) bannerAndNative.push(imp);
      }
      const errors: BidderError[] = [];
      const requests: RequestData[] = [];
      for (const group of [bannerAndNative, ...videos.map((video) => [video])]) {
        const built = buildRequest(request, group, config.endpoint);
        errors.push(...built.errors);
        if (built.request) requests.push(built.request);
      }
      return { requests, errors };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;

      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };
      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) for (const bid of seatbid.bid) bids.push(typeBid(bid, request.imp));
      const fledgeAuctionConfigs = auctionConfigs(decoded.value.ext, config.name);
      return fledgeAuctionConfigs ? { currency: decoded.value.cur || 'USD', bids, fledgeAuctionConfigs } : { currency: decoded.value.cur || 'USD', bids };
    },
  };
}

/**
 * Protected Audience configs, by imp id in `ext.fledge_auction_configs`, each under OpenX's own name. An ext Go cannot
 * decode into its `{fledge_auction_configs: map}` gives none, and costs the bids nothing.
 */
function auctionConfigs(ext: unknown, bidderName: string): FledgeAuctionConfig[] | undefined {
  if (!isJsonObject(ext)) return undefined;
  const byImp = fieldIgnoringCase(ext, 'fledge_auction_configs');
  if (!isJsonObject(byImp)) return undefined;
  return Object.entries(byImp).map(([impId, config]) => ({ impId, adapter: bidderName, config }));
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * One OpenX request for a group of imps, or none when no imp of the group has usable params. The request's `ext` is
 * replaced: OpenX reads only its own keys there, the delivery domain and platform of the last imp read.
 */
function buildRequest(request: BidRequest, imps: Imp[], uri: string): { request?: RequestData; errors: BidderError[] } {
  const errors: BidderError[] = [];
  const prepared: Imp[] = [];
  const account: OpenxRequestExt = { delDomain: '', platform: '' };
  for (const imp of imps) {
    const read = readOpenxParams(imp.ext);
    if ('error' in read) {
      errors.push(badInput(read.error));
      continue;
    }
    account.delDomain = read.params.delDomain;
    account.platform = read.params.platform;
    prepared.push(buildImp(imp, read.params));
  }
  if (prepared.length === 0) return { errors };

  const ext: Ext = { bc: BIDDER_CONFIG };
  if (account.delDomain !== '') ext.delDomain = account.delDomain;
  if (account.platform !== '') ext.platform = account.platform;
  return {
    // Go re-encodes the request: empty top-level fields are left out.
    request: { method: 'POST', uri, body: encodeAsOpenrtb2Request({ ...request, imp: prepared, ext }), headers: { ...REQUEST_HEADERS }, impIds: prepared.map((imp) => imp.id) },
    errors,
  };
}

function buildImp(imp: Imp, params: OpenxParams): Imp {
  // Go sets the tag id whatever it is; an empty one is left out when the request is encoded.
  const built: Imp = { ...imp, tagid: params.unit };
  if (!imp.bidfloor && params.customFloor !== undefined && params.customFloor > 0) built.bidfloor = params.customFloor;

  const ext = outgoingImpExt(imp.ext, params.customParams);
  if (ext) built.ext = ext;
  else delete built.ext;

  if (imp.video) {
    // The core has already moved the older `is_rewarded_inventory` flag to `imp.rwdd`, as Prebid Server's does.
    const { ext: _dropped, ...video } = imp.video;
    built.video = imp.rwdd === 1 ? { ...video, ext: { rewarded: 1 } } : video;
  }
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

/**
 * The params as Prebid Server decodes them: `imp.ext` into `adapters.ExtImpBidder`, then its `bidder` into
 * `openrtb_ext.ExtImpOpenx`, field names matched ignoring case, members read in the order they come (the first of
 * the wrong JSON type fails the imp). `unit` and `customFloor` are `json.Number`s: a number's text or any string.
 */
function readOpenxParams(impExt: unknown): { params: OpenxParams } | { error: string } {
  // `imp.ext` into `adapters.ExtImpBidder` (its `prebid` and `ae` typed), then its `bidder`: the decoder's text as it is.
  const ext = decodeExtImpBidder(impExt);
  if ('error' in ext) return ext;
  const decoded = decodeBidderParams(ext.value.bidder, 'openrtb_ext.ExtImpOpenx');
  if ('error' in decoded) return decoded;
  const bidderParams = decoded.params;
  for (const key of Object.keys(bidderParams)) {
    const field = PARAM_FIELDS.find(([name]) => name.toLowerCase() === key.toLowerCase());
    const value = bidderParams[key];
    if (!field || value === null) continue;
    const [, goName, kind] = field;
    const wrongType =
      kind === 'number' ? typeof value !== 'number' && typeof value !== 'string' && 'invalid number'
      : kind === 'string' ? typeof value !== 'string' && `expects " or n, but found ${goFoundByte(value)}`
      : !isJsonObject(value) && `expect { or n, but found ${goFoundByte(value)}`;
    if (wrongType) return { error: `cannot unmarshal openrtb_ext.ExtImpOpenx.${goName}: ${wrongType}` };
  }
  const floorText = numberText(fieldIgnoringCase(bidderParams, 'customFloor'));
  const floor = Number(floorText);
  const customParams = fieldIgnoringCase(bidderParams, 'customParams');
  return {
    params: {
      unit: numberText(fieldIgnoringCase(bidderParams, 'unit')),
      delDomain: stringText(fieldIgnoringCase(bidderParams, 'delDomain')),
      platform: stringText(fieldIgnoringCase(bidderParams, 'platform')),
      customFloor: GO_FLOAT.test(floorText) && floor > 0 ? floor : undefined,
      customParams: isJsonObject(customParams) ? customParams : undefined,
    },
  };
}

/** What Go's `strconv.ParseFloat` reads (decimal forms). */
const GO_FLOAT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** `openrtb_ext.ExtImpOpenx`'s fields: JSON name, Go name, and the JSON kinds Go decodes into each. */
const PARAM_FIELDS: ReadonlyArray<readonly [string, string, 'number' | 'string' | 'object']> = [
  ['unit', 'Unit', 'number'],
  ['platform', 'Platform', 'string'],
  ['delDomain', 'DelDomain', 'string'],
  ['customFloor', 'CustomFloor', 'number'],
  ['customParams', 'CustomParams', 'object'],
];

/** A `json.Number` as Prebid Server's decoder fills it: a JSON number's text, or any string as it is. */
function numberText(value: unknown): string {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' ? value : '';
}

function stringText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/**
 * Typed by `mtype` (banner, video, native), else by its imp: banner unless the imp has no banner but a video (then
 * video) or a native (then native). Every bid carries its duration and first category as video info, and the
 * OpenX demand facts of `bid.ext` as meta.
 */
function typeBid(bid: Bid, imps: Imp[]): TypedBid {
  const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video', 'native']) ?? impMediaType(imps.find((imp) => imp.id === bid.impid));
  const typed: TypedBid = { bid, type, video: { duration: bid.dur ?? 0, primaryCategory: bid.cat?.[0] ?? '' } };
  const meta = bidMeta(bid.ext);
  if (meta) typed.meta = meta;
  return typed;
}

function impMediaType(imp: Imp | undefined): MediaType {
  if (imp && !imp.banner && imp.video) return 'video';
  if (imp && !imp.banner && imp.native) return 'native';
  return 'banner';
}

/**
 * `bid.ext.dsp_id` and `brand_id` (integers written as strings) and `buyer_id` (a string holding an integer) become
 * the network, brand and advertiser ids. An ext of any other shape gives no meta, as does one without a positive id.
 */
function bidMeta(ext: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(ext)) return undefined;
  // Go decodes the ext into a struct: names matched ignoring case, the last of a name winning.
  const networkId = quotedInt(fieldIgnoringCase(ext, 'dsp_id'));
  const brandId = quotedInt(fieldIgnoringCase(ext, 'brand_id'));
  if (networkId === undefined || brandId === undefined) return undefined;
  const buyerId = fieldIgnoringCase(ext, 'buyer_id');
  if (buyerId !== undefined && buyerId !== null && typeof buyerId !== 'string') return undefined;
  const advertiserId = typeof buyerId === 'string' && /^[+-]?\d+$/.test(buyerId) ? Number(buyerId) : 0;
  if (advertiserId <= 0 && networkId <= 0 && brandId <= 0) return undefined;
  const meta: Record<string, unknown> = {};
  if (networkId !== 0) meta.networkId = networkId;
  if (advertiserId !== 0) meta.advertiserId = advertiserId;
  if (brandId !== 0) meta.brandId = brandId;
  return meta;
}

/** Go's `int` with the `,string` option: a JSON string holding an integer (absence is 0); anything else fails. */
function quotedInt(value: unknown): number | undefined {
  if (value === undefined || value === null) return 0;
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : undefined;
}
