import {
  badInput,
  badServerResponse,
  bidMediaType,
  compileEndpoint,
  isJsonObject,
  readBidResponse,
  readJsonBeside,
  seatBids,
  type Banner,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Ext,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';
import { readAppnexusParams, type AppnexusParams } from './params.js';

/** AppNexus rejects requests with more imps than this, so larger requests are split. */
const MAX_IMPS_PER_REQUEST = 10;
/** Platform id AppNexus knows Prebid Server traffic by; a host may configure its own as `extra.platform_id`. */
const DEFAULT_PLATFORM_ID = 5;
const POSITION_CODES = { above: 1, below: 3 } as const;
/** AppNexus types its bids with `ext.appnexus.bid_ad_type`. */
const BID_AD_TYPES: Readonly<Record<number, MediaType>> = { 0: 'banner', 1: 'video', 2: 'audio', 3: 'native' };
/** AppNexus brand category id -> IAB category. */
const IAB_CATEGORIES = readJsonBeside<Record<string, string>>(import.meta.url, './iab-categories.json');

interface AppnexusBidExt {
  bid_ad_type?: unknown;
  brand_category_id?: unknown;
  deal_priority?: unknown;
  creative_info?: { video?: { duration?: unknown } };
}

type PreparedImp = { imp: Imp; params: AppnexusParams };

export function createAppnexusBidder(config: BidderConfig): Bidder {
  const platformId = readPlatformId(config.extra.platform_id);
  const memberEndpoint = compileEndpoint(appendQuery(config.endpoint, 'member_id={{MemberId}}'));

  function endpointFor(prepared: PreparedImp[], errors: BidderError[]): string | undefined {
    const members = [...new Set(prepared.map(({ params }) => params.member).filter((m): m is string => m !== undefined))];
    if (members.length === 0) return config.endpoint;
    if (members.length > 1) {
      errors.push(badInput(`All request.imp[i].ext.bidder.appnexus.member params must match. Request contained member IDs ${members.join(', ')}; using ${members[0]}`));
    }
    try {
      return memberEndpoint.expand({ MemberId: members[0] });
    } catch (err) {
      errors.push(badInput(`member ${JSON.stringify(members[0])} cannot be put in the request URL: ${(err as Error).message}`));
      return undefined;
    }
  }

  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const displayManagerVer = displayManagerVersion(request);
      const prepared: PreparedImp[] = [];
      for (const imp of arrayOf(request.imp)) {
        if (!isImp(imp)) {
          errors.push(badInput('an imp without an id was skipped'));
          continue;
        }
        const read = readAppnexusParams(imp.ext?.bidder);
        if ('error' in read) errors.push(badInput(`imp ${imp.id}: ${read.error}`));
        else prepared.push({ imp: buildImp(imp, read.params, displayManagerVer), params: read.params });
      }
      if (prepared.length === 0) return { requests: [], errors };

      const uri = endpointFor(prepared, errors);
      if (uri === undefined) return { requests: [], errors };

      const base = moveSupplyChainToExt(request);
      const appnexusExt = requestExtension(request, info, platformId);
      const groups = info.endpoint === 'video' ? groupByPod(prepared) : [prepared];
      const requests = groups.flatMap((group) => {
        const podExt = info.endpoint === 'video' && group.some(({ params }) => params.generateAdPodId) ? { adpod_id: randomPodId() } : {};
        return chunk(group.map(({ imp }) => imp), MAX_IMPS_PER_REQUEST).map(
          (imps): RequestData => ({
            method: 'POST',
            uri,
            body: { ...base, imp: imps, ext: { ...base.ext, appnexus: { ...appnexusExt, ...podExt } } },
            headers: { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' },
            impIds: imps.map((imp) => imp.id),
          }),
        );
      });
      return { requests, errors };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const read = readBidResponse(response);
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        const typed = typeBid(bid, request);
        if ('error' in typed) errors.push(typed.error);
        else bids.push(typed);
      }
      return { currency: typeof read.body.cur === 'string' && read.body.cur !== '' ? read.body.cur : 'USD', bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** The imp as AppNexus wants it: params turned into OpenRTB fields and `imp.ext.appnexus`. */
function buildImp(imp: Imp, params: AppnexusParams, displayManagerVer: string | undefined): Imp {
  const built: Imp = { ...imp, ext: impExtension(params, imp.ext) };
  if (params.invCode) built.tagid = params.invCode;
  if (imp.banner) built.banner = buildBanner(imp.banner, params.position);
  if (params.reserve !== undefined && params.reserve > 0) built.bidfloor = params.reserve;
  if (!imp.displaymanagerver && displayManagerVer) built.displaymanagerver = displayManagerVer;
  return built;
}

/** AppNexus needs a primary size: the first format stands in when the banner has none. */
function buildBanner(banner: Banner, position: AppnexusParams['position']): Banner {
  const built: Banner = { ...banner };
  if (position) built.pos = POSITION_CODES[position];
  const first = Array.isArray(banner.format) ? banner.format[0] : undefined;
  if (banner.w === undefined && banner.h === undefined && first) {
    built.w = first.w;
    built.h = first.h;
  }
  return built;
}

function impExtension(params: AppnexusParams, incoming: Ext | undefined): Ext {
  const appnexus = dropUndefined({
    placement_id: params.placementId,
    keywords: params.keywords,
    traffic_source_code: params.trafficSourceCode,
    use_pmt_rule: params.usePmtRule,
    private_sizes: params.privateSizes,
    ext_inv_code: params.extInvCode,
    external_imp_id: params.externalImpId,
  });
  const gpid = incoming?.gpid;
  return typeof gpid === 'string' && gpid !== '' ? { appnexus, gpid } : { appnexus };
}

/** `<source>-<version>` of the Prebid SDK that sent an app request, when it says both. */
function displayManagerVersion(request: BidRequest): string | undefined {
  const prebid = request.app?.ext?.prebid;
  if (!isJsonObject(prebid)) return undefined;
  const { source, version } = prebid;
  return typeof source === 'string' && source && typeof version === 'string' && version ? `${source}-${version}` : undefined;
}

function requestExtension(request: BidRequest, info: RequestInfo, platformId: number): Ext {
  const ext: Ext = { hb_source: platformId + (info.endpoint === 'video' ? 1 : 0) };
  if (info.endpoint === 'amp') ext.is_amp = 1;
  if (wantsBrandCategory(request)) {
    ext.include_brand_category = true;
    ext.brand_category_uniqueness = true;
  }
  return ext;
}

/** Whether the publisher asked for brand categories, under either service namespace. */
function wantsBrandCategory(request: BidRequest): boolean {
  return ['prebid', 'svc'].some((ns) => {
    const options = request.ext?.[ns];
    const targeting = isJsonObject(options) ? options.targeting : undefined;
    return isJsonObject(targeting) && targeting.includebrandcategory !== undefined && targeting.includebrandcategory !== null;
  });
}

/**
 * AppNexus reads the supply chain only at `ext.schain` (its OpenRTB 2.4 place), so one sent in `source.schain` or
 * `source.ext.schain` moves there.
 */
function moveSupplyChainToExt(request: BidRequest): BidRequest & { ext: Ext } {
  const ext: Ext = { ...request.ext };
  const source = request.source;
  const sourceExt = isJsonObject(source?.ext) ? source.ext : undefined;
  const schain = source?.schain ?? sourceExt?.schain;
  if (!source || schain === undefined) return { ...request, ext };

  const { schain: _droppedFromSource, ext: _oldSourceExt, ...restOfSource } = source;
  const { schain: _droppedFromExt, ...restOfSourceExt } = sourceExt ?? {};
  const movedSource = Object.keys(restOfSourceExt).length > 0 ? { ...restOfSource, ext: restOfSourceExt } : restOfSource;
  return { ...request, source: movedSource, ext: { ...ext, schain } };
}

/** Video endpoint imp ids are `<pod>_<n>`; AppNexus wants each pod in requests of its own. */
function groupByPod(prepared: PreparedImp[]): PreparedImp[][] {
  const pods = new Map<string, PreparedImp[]>();
  for (const entry of prepared) {
    const pod = entry.imp.id.split('_')[0] ?? entry.imp.id;
    pods.set(pod, [...(pods.get(pod) ?? []), entry]);
  }
  return [...pods.values()];
}

function randomPodId(): string {
  return String(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER));
}

function readPlatformId(value: unknown): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof number === 'number' && Number.isSafeInteger(number) && number > 0 ? number : DEFAULT_PLATFORM_ID;
}

function appendQuery(endpoint: string, query: string): string {
  return `${endpoint}${endpoint.includes('?') ? '&' : '?'}${query}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

function typeBid(candidate: unknown, request: BidRequest): TypedBid | { error: BidderError } {
  if (!isJsonObject(candidate) || typeof candidate.impid !== 'string') {
    return { error: badServerResponse('Bad server response: a bid is not an object with an impid') };
  }
  const bid = { ...candidate } as Bid;
  const bidExt: AppnexusBidExt = isJsonObject(bid.ext?.appnexus) ? (bid.ext.appnexus as AppnexusBidExt) : {};

  const type = mediaTypeOf(bid, bidExt, request);
  if ('error' in type) return type;

  const category = IAB_CATEGORIES[String(bidExt.brand_category_id)];
  if (category) bid.cat = [category];
  // An ambiguous category list would let the bid dodge category exclusion; an empty one gets it rejected instead.
  else if (Array.isArray(bid.cat) && bid.cat.length > 1) bid.cat = [];

  const typed: TypedBid = { bid, type: type.mediaType };
  if (typeof bidExt.deal_priority === 'number' && bidExt.deal_priority > 0) typed.dealPriority = bidExt.deal_priority;
  const duration = bidExt.creative_info?.video?.duration;
  if (type.mediaType === 'video' && typeof duration === 'number') typed.video = { duration };
  return typed;
}

function mediaTypeOf(bid: Bid, bidExt: AppnexusBidExt, request: BidRequest): { mediaType: MediaType } | { error: BidderError } {
  if (bidExt.bid_ad_type !== undefined) {
    const mediaType = typeof bidExt.bid_ad_type === 'number' ? BID_AD_TYPES[bidExt.bid_ad_type] : undefined;
    return mediaType ? { mediaType } : { error: badServerResponse(`Unrecognized bid_ad_type in response from appnexus: ${JSON.stringify(bidExt.bid_ad_type)}`) };
  }
  const mediaType = bidMediaType(bid, (request.imp ?? []).find((imp) => imp.id === bid.impid));
  return mediaType ? { mediaType } : { error: badServerResponse(`bid ${JSON.stringify(bid.id)} has no bid_ad_type and its media type cannot be told`) };
}

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

function isImp(value: unknown): value is Imp {
  return isJsonObject(value) && typeof value.id === 'string';
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

function dropUndefined(object: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}
