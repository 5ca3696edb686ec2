import { badInput, checkResponseStatus, compileEndpoint, decodeOpenrtb2BidResponse, encodeAsOpenrtb2Request, failedToUnmarshal, goBool, GoDecodeError, goInt, goMap, goString, goStruct, isJsonObject, readJsonBeside, requestOption, unknownError, type Banner, type AdapterDeps, type Bid, type Bidder, type BidderConfig, type BidderError, type BidRequest, type Ext, type Imp, type MakeBidsResult, type MakeRequestsResult, type MediaType, type RequestData, type RequestInfo, type ResponseData, type TypedBid } from '../../core/api/index.js';
import { readAppnexusParams, type AppnexusParams } from './params.js';

/** AppNexus rejects requests with more imps than this, so larger requests are split. */
const MAX_IMPS_PER_REQUEST = 10;
/** Platform id AppNexus knows Prebid Server traffic by; a host may configure its own as `extra.platform_id`. */
const DEFAULT_PLATFORM_ID = 5;
const POSITION_CODES: Readonly<Record<string, number>> = { above: 1, below: 3 };
/** AppNexus types its bids with `ext.appnexus.bid_ad_type`; any other value is an error. */
const BID_AD_TYPES: Readonly<Record<number, MediaType>> = { 0: 'banner', 1: 'video', 3: 'native' };
/** AppNexus brand category id -> IAB category. */
const IAB_CATEGORIES = readJsonBeside<Record<string, string>>(import.meta.url, './iab-categories.json');
const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

/** `ext.appnexus` of the outgoing request: what the publisher sent there (these keys only), plus the adapter's. */
interface RequestExtAppnexus {
  include_brand_category?: boolean;
  brand_category_uniqueness?: boolean;
  is_amp?: number;
  hb_source?: number;
  adpod_id?: string;
}

export function createAppnexusBidder(config: BidderConfig, deps: Pick<AdapterDeps, 'randomInt63'> = {}): Bidder {
  const platformId = readPlatformId(config.extra.platform_id);
  const randomInt63 = deps.randomInt63 ?? systemRandomInt63;
  // Prebid Server adds the member to the endpoint's query (`member_id`); a member cannot move the call elsewhere.
  const memberEndpoint = compileEndpoint(`${config.endpoint}${config.endpoint.includes('?') ? '&' : '?'}member_id={{MemberId}}`);

  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const displayManagerVer = displayManagerVersion(request);
      const imps: Imp[] = [];
      let member = '';
      let generateAdPodId: boolean | undefined;
      for (const imp of request.imp) {
        const read = readAppnexusParams(imp.ext);
        if ('error' in read) {
          // Go appends `jsonutil.Unmarshal`'s error unwrapped: FailedToUnmarshal (14).
          errors.push(read.badInput ? badInput(read.error) : failedToUnmarshal(read.error));
          continue;
        }
        const params = read.params;
        // The member goes in the URL, so every imp of the request must name the same one (or none).
        if (params.member !== '') {
          if (member === '') member = params.member;
          else if (member !== params.member) {
            errors.push(unknownError(`all request.imp[i].ext.prebid.bidder.appnexus.member params must match. Request contained member IDs ${member} and ${params.member}`));
            return { requests: [], errors };
          }
        }
        if (generateAdPodId === undefined) generateAdPodId = params.generateAdPodId;
        else if (generateAdPodId !== params.generateAdPodId) {
          errors.push(unknownError('generate ad pod option should be same for all pods in request'));
          return { requests: [], errors };
        }
        imps.push(buildImp(imp, params, displayManagerVer));
      }
      if (imps.length === 0) return { requests: [], errors };

      let uri = config.endpoint;
      let ext: Ext;
      try {
        if (member !== '') uri = memberEndpoint.expand({ MemberId: member });
        ext = requestExt(request, info, platformId);
      } catch (err) {
        // A request `ext`, `ext.appnexus` or `source.ext` Go cannot decode: `jsonutil.Unmarshal`'s error, returned
        // unwrapped (FailedToUnmarshal, 14). Anything else is a plain error.
        const message = (err as Error).message;
        return { requests: [], errors: [...errors, err instanceof GoDecodeError ? failedToUnmarshal(message) : unknownError(message)] };
      }
      const body: BidRequest = { ...request, ext };
      const source = sourceWithoutSupplyChain(request);
      if (source) body.source = source;

      // On the video endpoint, with ad pod ids asked for, each pod (imp ids `<pod>_<n>`) gets requests of its own,
      // all of them carrying the pod's generated id.
      const appnexusExt = ext.appnexus as RequestExtAppnexus;
      const groups = info.endpoint === 'video' && generateAdPodId ? groupByPod(imps).map((pod) => ({ imps: pod, podExt: { ...appnexusExt, adpod_id: randomInt63().toString() } })) : [{ imps, podExt: appnexusExt }];
      const requests = groups.flatMap(({ imps: group, podExt }) =>
        chunk(group, MAX_IMPS_PER_REQUEST).map(
          (chunkImps): RequestData => ({
            method: 'POST',
            uri,
            body: encodeAsOpenrtb2Request({ ...body, imp: chunkImps, ext: { ...ext, appnexus: dropEmpty(podExt) } }),
            headers: { ...REQUEST_HEADERS },
            impIds: chunkImps.map((imp) => imp.id),
          }),
        ),
      );
      return { requests, errors };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;

      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };
      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const typed = typeBid(bid);
          if ('error' in typed) errors.push(typed.error);
          else bids.push(typed);
        }
      }
      return { currency: decoded.value.cur || 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** The imp as AppNexus wants it: params turned into OpenRTB fields, and `imp.ext` replaced by `{appnexus, gpid}`. */
function buildImp(imp: Imp, params: AppnexusParams, displayManagerVer: string): Imp {
  const built: Imp = { ...imp, ext: impExt(params) };
  if (params.invCode !== '') built.tagid = params.invCode;
  if (!(typeof imp.bidfloor === 'number' && imp.bidfloor > 0) && params.reserve > 0) built.bidfloor = params.reserve;
  if (imp.banner) built.banner = buildBanner(imp.banner, params.position);
  if (!imp.displaymanagerver && displayManagerVer !== '') built.displaymanagerver = displayManagerVer;
  return built;
}

/** AppNexus needs a primary size: the first format stands in when the banner has neither width nor height. */
function buildBanner(banner: Banner, position: string): Banner {
  const built: Banner = { ...banner };
  const pos = POSITION_CODES[position];
  if (pos !== undefined) built.pos = pos;
  // Go's W and H are pointers: absent and null alike are nil. A null format is Go's zero format.
  if (banner.w == null && banner.h == null && Array.isArray(banner.format) && banner.format.length > 0) {
    const first = banner.format[0];
    built.w = first?.w ?? 0;
    built.h = first?.h ?? 0;
  }
  return built;
}

function impExt(params: AppnexusParams): Ext {
  const appnexus = dropEmpty({
    placement_id: params.placementId,
    keywords: params.keywords,
    traffic_source_code: params.trafficSourceCode,
    use_pmt_rule: params.usePmtRule,
    ext_inv_code: params.extInvCode,
    external_imp_id: params.externalImpId,
  });
  // Raw JSON: any value that is there is passed on, `null` included.
  if (params.privateSizes !== undefined) appnexus.private_sizes = params.privateSizes;
  return params.gpid !== '' ? { appnexus, gpid: params.gpid } : { appnexus };
}

/** `<source>-<version>` of the Prebid SDK that sent an app request, when it states both as strings. */
function displayManagerVersion(request: BidRequest): string {
  const prebid = request.app?.ext?.prebid;
  if (!isJsonObject(prebid)) return '';
  const { source, version } = prebid;
  return typeof source === 'string' && typeof version === 'string' ? `${source}-${version}` : '';
}

/**
 * The request's `ext`, every key kept, with `appnexus` rebuilt (the publisher's brand category flags and pod id
 * kept, the AMP flag and header bidding source set) and the supply chain moved in from `source.ext.schain`. Go
 * decodes `ext`, then `ext.appnexus`, then `source.ext`, and the first that fails stops the request.
 */
function requestExt(request: BidRequest, info: RequestInfo, platformId: number): Ext {
  const ext: Ext = { ...goMap(request.ext ?? null, []) };
  const appnexus = incomingAppnexusExt(ext.appnexus);
  if (isJsonObject(requestOption(request, 'targeting', 'includebrandcategory'))) {
    appnexus.brand_category_uniqueness = true;
    appnexus.include_brand_category = true;
  }
  appnexus.is_amp = info.endpoint === 'amp' ? 1 : 0;
  appnexus.hb_source = platformId + (info.endpoint === 'video' ? 1 : 0);
  ext.appnexus = appnexus;
  const sourceExt = request.source?.ext === undefined ? undefined : goMap(request.source.ext, []);
  if (sourceExt && 'schain' in sourceExt) ext.schain = sourceExt.schain;
  return ext;
}

/** The keys Prebid Server reads from a publisher's `ext.appnexus` (`bidReqExtAppnexus`); anything else is dropped. */
function incomingAppnexusExt(value: unknown): RequestExtAppnexus {
  const incoming = goStruct(value ?? null, []);
  const field = (name: string) => [`appnexus.bidReqExtAppnexus.${name}`];
  const appnexus: RequestExtAppnexus = {};
  const includeBrandCategory = goBool(incoming.include_brand_category, field('IncludeBrandCategory'));
  const brandCategoryUniqueness = goBool(incoming.brand_category_uniqueness, field('BrandCategoryUniqueness'));
  goInt(incoming.is_amp, field('IsAMP'));
  goInt(incoming.hb_source, field('HeaderBiddingSource'));
  const podId = goString(incoming.adpod_id, field('AdPodID'));
  if (includeBrandCategory !== undefined) appnexus.include_brand_category = includeBrandCategory;
  if (brandCategoryUniqueness !== undefined) appnexus.brand_category_uniqueness = brandCategoryUniqueness;
  if (podId !== '') appnexus.adpod_id = podId;
  return appnexus;
}

/**
 * `source` once a supply chain in `source.ext.schain` has moved to the request's `ext` (AppNexus reads it there, its
 * OpenRTB 2.4 place): `source.ext` without it, left out when nothing else is in it. Undefined when nothing moves.
 */
function sourceWithoutSupplyChain(request: BidRequest): BidRequest['source'] {
  const source = request.source;
  if (!source || !isJsonObject(source.ext) || !('schain' in source.ext)) return undefined;
  const { schain: _moved, ...restOfExt } = source.ext;
  const { ext: _old, ...rest } = source;
  return Object.keys(restOfExt).length > 0 ? { ...rest, ext: restOfExt } : rest;
}

/** Video endpoint imp ids are `<pod>_<n>`; AppNexus wants each pod in requests of its own. */
function groupByPod(imps: Imp[]): Imp[][] {
  const pods = new Map<string, Imp[]>();
  for (const imp of imps) {
    const pod = imp.id.split('_')[0]!;
    pods.set(pod, [...(pods.get(pod) ?? []), imp]);
  }
  return [...pods.values()];
}

/** A random non-negative 63-bit integer, as Go's `rand.Int63` (the pod id's source when the host pins none). */
function systemRandomInt63(): bigint {
  const high = BigInt(Math.floor(Math.random() * 2 ** 31));
  const low = BigInt(Math.floor(Math.random() * 2 ** 32));
  return (high << 32n) | low;
}

/** `extra.platform_id` as Go's `strconv.Atoi` reads it (a number is taken too); 5 when absent or unreadable. */
function readPlatformId(value: unknown): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  return typeof value === 'string' && /^[+-]?\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : DEFAULT_PLATFORM_ID;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/**
 * Typed by `ext.appnexus.bid_ad_type` (0 banner, 1 video, 3 native; absent is 0). An `ext` Go cannot decode, or
 * another type, is an error for that bid. `brand_category_id` becomes the bid's IAB category; without one, a bid
 * with several categories loses them all (so the auction rejects it rather than guess). Every bid carries the
 * creative's duration as video info, and the deal priority.
 */
function typeBid(bid: Bid): TypedBid | { error: BidderError } {
  let adType: number;
  let brandCategory: number;
  let duration: number;
  let dealPriority: number;
  try {
    const ext = goStruct(bid.ext, []);
    const appnexus = goStruct(ext.appnexus, ['appnexus.bidExt.Appnexus']);
    const field = (name: string) => ['appnexus.bidExt.Appnexus', `appnexus.bidExtAppnexus.${name}`];
    adType = goInt(appnexus.bid_ad_type, field('BidType'));
    goInt(appnexus.brand_id, field('BrandId'));
    brandCategory = goInt(appnexus.brand_category_id, field('BrandCategory'));
    const creativeLinks = field('CreativeInfo');
    const creative = goStruct(appnexus.creative_info, creativeLinks);
    const videoLinks = [...creativeLinks, 'appnexus.bidExtCreative.Video'];
    duration = goInt(goStruct(creative.video, videoLinks).duration, [...videoLinks, 'appnexus.bidExtVideo.Duration']);
    dealPriority = goInt(appnexus.deal_priority, field('DealPriority'));
  } catch (err) {
    // Go appends `jsonutil.Unmarshal`'s error unwrapped: FailedToUnmarshal (14).
    if (err instanceof GoDecodeError) return { error: failedToUnmarshal(err.message) };
    throw err;
  }
  const type = BID_AD_TYPES[adType];
  if (!type) return { error: unknownError(`Unrecognized bid_ad_type in response from appnexus: ${adType}`) };

  const typedBid: Bid = { ...bid };
  const category = IAB_CATEGORIES[String(brandCategory)];
  if (category) typedBid.cat = [category];
  // An empty category list (which Go's encoder leaves out) gets the bid rejected instead of guessing.
  else if (Array.isArray(bid.cat) && bid.cat.length > 1) delete typedBid.cat;

  return { bid: typedBid, type, video: { duration }, dealPriority };
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** Go's `omitempty`: zero numbers, empty strings and absent values are left out. */
function dropEmpty<T extends object>(object: T): Ext {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined && value !== '' && value !== 0));
}
