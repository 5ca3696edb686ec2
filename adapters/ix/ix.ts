import {
  MEDIA_TYPES,
  MTYPE_TO_MEDIA_TYPE,
  badInput,
  badServerResponse,
  cloneJson,
  isJsonObject,
  readBidResponse,
  type App,
  type Banner,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Ext,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type Site,
  type TypedBid,
} from '../../core/api/index.js';
import { mergeNativeImpressionTrackers } from './native-trackers.js';

/** How this host describes itself to Index Exchange in `ext.ixdiag`. */
export interface IxSettings {
  endpoint: string;
  /** `ixdiag.pbsp`: which Prebid Server protocol family the host speaks. */
  platform: string;
  /** `ixdiag.pbsv`: the host's version, without any build suffix. */
  serverVersion: string;
}

/**
 * Gavel speaks the Prebid Server (Go) wire protocol, which is what Index Exchange's `pbsp` value "go" names; a host
 * may override both diagnostics values with `extra.pbsPlatform` / `extra.pbsVersion`.
 */
const DEFAULT_PLATFORM = 'go';
const UNKNOWN_VERSION = 'unknown';

/** The three spellings Index Exchange accepts for the site id param; exactly one is set (see params.schema.json). */
const SITE_ID_KEYS = ['siteId', 'siteid', 'siteID'] as const;

const REQUEST_HEADERS: Record<string, string> = {
  'Content-Type': 'application/json;charset=utf-8',
  Accept: 'application/json',
};

/** When a bid names no markup type, the imp's media type decides, in this order of precedence. */
const IMP_TYPE_PRECEDENCE: readonly MediaType[] = ['banner', 'video', 'native', 'audio'];

export function ixSettingsFrom(config: BidderConfig): IxSettings {
  const { pbsPlatform, pbsVersion } = config.extra;
  return {
    endpoint: config.endpoint,
    platform: typeof pbsPlatform === 'string' && pbsPlatform !== '' ? pbsPlatform : DEFAULT_PLATFORM,
    serverVersion: typeof pbsVersion === 'string' && pbsVersion !== '' ? pbsVersion : UNKNOWN_VERSION,
  };
}

export function createIxBidder(settings: IxSettings): Bidder {
  return {
    makeRequests: (request) => buildRequests(request, settings),
    makeBids: (request, _sent, response) => readBids(request, response),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Requests: every imp goes to the exchange in one call.
// ---------------------------------------------------------------------------------------------------------------

interface IxImpParams {
  siteId?: string;
  sid?: string;
}

function buildRequests(request: BidRequest, settings: IxSettings): MakeRequestsResult {
  if (!Array.isArray(request.imp)) return { requests: [], errors: [badInput('request.imp must be an array')] };

  const outgoing = cloneJson(request);
  const errors: BidderError[] = [];
  const imps: Imp[] = [];
  const siteIds = new Set<string>();

  for (const imp of outgoing.imp as unknown[]) {
    const params = isJsonObject(imp) ? readImpParams(imp as Imp) : { error: badInput('every imp must be an object') };
    if ('error' in params) {
      errors.push(params.error);
      continue;
    }
    if (params.siteId) siteIds.add(params.siteId);
    imps.push(prepareImp(imp as Imp, params));
  }
  if (imps.length === 0) return { requests: [], errors };

  outgoing.imp = imps;
  const sortedSiteIds = [...siteIds].sort();
  const publisherId = sortedSiteIds.length === 1 ? sortedSiteIds[0] : undefined;
  if (isJsonObject(outgoing.site)) outgoing.site = withPublisher(outgoing.site, publisherId);
  if (isJsonObject(outgoing.app)) outgoing.app = withPublisher(outgoing.app, publisherId);
  outgoing.ext = withIxDiag(outgoing.ext, sortedSiteIds, settings);

  const call: RequestData = {
    method: 'POST',
    uri: settings.endpoint,
    body: outgoing,
    headers: { ...REQUEST_HEADERS },
    impIds: imps.map((imp) => imp.id),
  };
  return { requests: [call], errors };
}

function readImpParams(imp: Imp): IxImpParams | { error: BidderError } {
  const label = `imp ${JSON.stringify(imp.id)}`;
  const params = isJsonObject(imp.ext) ? imp.ext.bidder : undefined;
  if (!isJsonObject(params)) return { error: badInput(`${label}: ext.bidder must be an object holding the ix params`) };

  const siteIdKey = SITE_ID_KEYS.find((key) => params[key] !== undefined);
  const siteId = siteIdKey === undefined ? undefined : params[siteIdKey];
  if (siteId !== undefined && typeof siteId !== 'string') return { error: badInput(`${label}: ext.bidder.${siteIdKey} must be a string`) };
  if (params.sid !== undefined && typeof params.sid !== 'string') return { error: badInput(`${label}: ext.bidder.sid must be a string`) };
  if (params.size !== undefined && !(Array.isArray(params.size) && params.size.every(Number.isInteger))) {
    return { error: badInput(`${label}: ext.bidder.size must be an array of integers`) };
  }
  return { siteId, sid: params.sid };
}

/** `imp` is already the outgoing copy, so it is changed in place. */
function prepareImp(imp: Imp, params: IxImpParams): Imp {
  // The exchange reads the slot id at imp.ext.sid, not among the bidder params.
  if (params.sid) imp.ext = { ...imp.ext, sid: params.sid };
  if (isJsonObject(imp.banner)) normaliseBannerSizes(imp.banner);
  return imp;
}

/** The exchange sizes banners from `format`, and from `w`/`h` when there is a single size. */
function normaliseBannerSizes(banner: Banner): void {
  const hasFormats = Array.isArray(banner.format) && banner.format.length > 0;
  if (!hasFormats && typeof banner.w === 'number' && typeof banner.h === 'number') {
    banner.format = [{ w: banner.w, h: banner.h }];
  }
  const onlyFormat = Array.isArray(banner.format) && banner.format.length === 1 ? banner.format[0] : undefined;
  if (isJsonObject(onlyFormat) && typeof onlyFormat.w === 'number' && typeof onlyFormat.h === 'number') {
    banner.w = onlyFormat.w;
    banner.h = onlyFormat.h;
  }
}

/**
 * The site id identifies the publisher's account at Index Exchange. With several different site ids in one
 * request none of them is the publisher, so the ids go to `ixdiag.multipleSiteIds` instead.
 */
function withPublisher<T extends Site | App>(inventory: T, publisherId: string | undefined): T {
  const publisher = isJsonObject(inventory.publisher) ? { ...inventory.publisher } : {};
  if (publisherId !== undefined) publisher.id = publisherId;
  return { ...inventory, publisher };
}

/** Diagnostics Index Exchange asks for: host platform and version, Prebid.js version, and ambiguous site ids. */
function withIxDiag(ext: unknown, sortedSiteIds: string[], settings: IxSettings): Ext {
  const requestExt: Ext = isJsonObject(ext) ? { ...ext } : {};
  const ixdiag: JsonObject = isJsonObject(requestExt.ixdiag) ? { ...requestExt.ixdiag } : {};

  const prebidJsVersion = channelVersion(requestExt.prebid);
  if (prebidJsVersion) ixdiag.pbjsv = prebidJsVersion;
  if (sortedSiteIds.length > 1) ixdiag.multipleSiteIds = sortedSiteIds.join(', ');
  // A build suffix such as "1.4.0-3f9c2ab" is noise to the exchange.
  ixdiag.pbsv = settings.serverVersion.split('-')[0] || settings.serverVersion;
  ixdiag.pbsp = settings.platform;

  requestExt.ixdiag = ixdiag;
  return requestExt;
}

function channelVersion(prebidExt: unknown): string | undefined {
  if (!isJsonObject(prebidExt) || !isJsonObject(prebidExt.channel)) return undefined;
  const version = prebidExt.channel.version;
  return typeof version === 'string' && version !== '' ? version : undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Bids
// ---------------------------------------------------------------------------------------------------------------

function readBids(request: BidRequest, response: ResponseData): MakeBidsResult {
  const read = readBidResponse(response);
  if ('result' in read) return read.result;

  const body = read.body;
  // Stricter than the SDK's seatBids(): a malformed seatbid is reported, not skipped.
  const seatBids = body.seatbid ?? [];
  if (!Array.isArray(seatBids)) return { bids: [], errors: [badServerResponse('Bad server response: seatbid is not an array')] };

  const impTypes = impMediaTypesById(request);
  const bids: TypedBid[] = [];
  const errors: BidderError[] = [];
  for (const seatBid of seatBids) {
    const seatBidBids = isJsonObject(seatBid) ? seatBid.bid : undefined;
    if (!Array.isArray(seatBidBids)) {
      errors.push(badServerResponse('Bad server response: a seatbid has no bid array'));
      continue;
    }
    for (const candidate of seatBidBids) {
      const typed = typeBid(candidate, impTypes);
      if ('code' in typed) errors.push(typed);
      else bids.push(typed);
    }
  }

  const currency = typeof body.cur === 'string' && body.cur !== '' ? body.cur : 'USD';
  return errors.length > 0 ? { currency, bids, errors } : { currency, bids };
}

function impMediaTypesById(request: BidRequest): Map<string, MediaType> {
  const types = new Map<string, MediaType>();
  for (const imp of Array.isArray(request.imp) ? request.imp : []) {
    if (!isJsonObject(imp)) continue;
    const type = IMP_TYPE_PRECEDENCE.find((mediaType) => imp[mediaType] !== undefined && imp[mediaType] !== null);
    if (type) types.set(String(imp.id), type);
  }
  return types;
}

function isWellFormedBid(value: unknown): value is Bid {
  return isJsonObject(value) && typeof value.impid === 'string' && typeof value.price === 'number';
}

function typeBid(candidate: unknown, impTypes: Map<string, MediaType>): TypedBid | BidderError {
  if (!isWellFormedBid(candidate)) return badServerResponse('Bad server response: a bid lacks a string impid or a numeric price');
  const type = bidMediaType(candidate, impTypes);
  if (typeof type !== 'string') return type;

  const bid: Bid = { ...candidate };
  const typed: TypedBid = { bid, type };
  if (type === 'video') {
    const video = prebidVideoExt(bid);
    if (video) {
      typed.video = video;
      // The exchange may send the category only in the video ext; the core reads it from bid.cat.
      if ((!Array.isArray(bid.cat) || bid.cat.length === 0) && video.primaryCategory) bid.cat = [video.primaryCategory];
    }
  }
  if (type === 'native' && typeof bid.adm === 'string') bid.adm = mergeNativeImpressionTrackers(bid.adm);
  return typed;
}

/** The markup type the exchange declared (`mtype`, then `ext.prebid.type`), else the type of the imp bid on. */
function bidMediaType(bid: Bid, impTypes: Map<string, MediaType>): MediaType | BidderError {
  const declared = typeof bid.mtype === 'number' ? MTYPE_TO_MEDIA_TYPE[bid.mtype] : undefined;
  if (declared) return declared;

  const prebidExt = isJsonObject(bid.ext) ? bid.ext.prebid : undefined;
  const extType = isJsonObject(prebidExt) ? prebidExt.type : undefined;
  if (typeof extType === 'string' && extType !== '') {
    return (MEDIA_TYPES as readonly string[]).includes(extType)
      ? (extType as MediaType)
      : badServerResponse(`invalid BidType: ${extType}`);
  }

  return impTypes.get(bid.impid) ?? badServerResponse(`unmatched impression id: ${bid.impid}`);
}

function prebidVideoExt(bid: Bid): TypedBid['video'] | undefined {
  const prebidExt = isJsonObject(bid.ext) ? bid.ext.prebid : undefined;
  const video = isJsonObject(prebidExt) ? prebidExt.video : undefined;
  if (!isJsonObject(video)) return undefined;
  const info: NonNullable<TypedBid['video']> = {};
  if (typeof video.duration === 'number') info.duration = video.duration;
  if (typeof video.primary_category === 'string' && video.primary_category !== '') info.primaryCategory = video.primary_category;
  return info;
}
