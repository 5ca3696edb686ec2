import {
  badServerResponse,
  checkResponseStatus,
  decodeExtBid,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  GoDecodeError,
  goInt,
  goMap,
  goSlice,
  goString,
  goStruct,
  isJsonObject,
  mediaTypeFromMtype,
  readBidderParams,
  reencodeExtRequestPrebid,
  encodeAsOpenrtb2Request,
  encodeAsOpenrtb2SupplyChain,
  unknownError,
  type App,
  type Banner,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Ext,
  type FledgeAuctionConfig,
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
 * Gavel speaks the Prebid Server (Go) wire protocol, which is what Index Exchange's `pbsp` value "go" names. The
 * version is the host's Gavel version, as Prebid Server reports its own; a host may override both diagnostics values
 * with `extra.pbsPlatform` / `extra.pbsVersion`.
 */
const DEFAULT_PLATFORM = 'go';
const UNKNOWN_VERSION = 'unknown';

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
    serverVersion: typeof pbsVersion === 'string' && pbsVersion !== '' ? pbsVersion : config.host.version || UNKNOWN_VERSION,
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
  siteId: string;
  sid: string;
}

/** The keys of the request `ext` Prebid Server's adapter decodes and so sends on; `svc` is Gavel's `prebid`. */
const KEPT_REQUEST_EXT_KEYS = ['prebid', 'svc', 'schain', 'ixdiag'];

function buildRequests(request: BidRequest, settings: IxSettings): MakeRequestsResult {
  const errors: BidderError[] = [];
  const imps: Imp[] = [];
  const siteIds = new Set<string>();

  for (const entry of Array.isArray(request.imp) ? request.imp : []) {
    // Go decodes a `null` imp as an empty one.
    const imp: Imp = entry === null ? { id: '' } : entry;
    let params: IxImpParams;
    try {
      if (!isJsonObject(imp)) throw new GoDecodeError(`cannot unmarshal openrtb2.Imp: expect { or n, but found ${JSON.stringify(imp)[0]}`);
      params = readImpParams(imp);
    } catch (err) {
      if (!(err instanceof GoDecodeError)) throw err;
      errors.push(failedToUnmarshal(err.message));
      continue;
    }
    if (params.siteId !== '') siteIds.add(params.siteId);
    imps.push(prepareImp(imp, params));
  }

  // Go re-encodes the request: empty top-level fields are left out.
  const outgoing: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
  const sortedSiteIds = [...siteIds].sort();
  const publisherId = sortedSiteIds.length === 1 ? sortedSiteIds[0] : undefined;
  if (isJsonObject(outgoing.site)) outgoing.site = withPublisher(outgoing.site, publisherId);
  if (isJsonObject(outgoing.app)) outgoing.app = withPublisher(outgoing.app, publisherId);
  try {
    outgoing.ext = withIxDiag(request.ext, sortedSiteIds, settings);
  } catch (err) {
    if (!(err instanceof GoDecodeError)) throw err;
    // The request still goes out, with its ext as it was.
    errors.push(failedToUnmarshal(err.message));
  }
  if (imps.length === 0) return { requests: [], errors };

  const call: RequestData = {
    method: 'POST',
    uri: settings.endpoint,
    body: outgoing,
    headers: { ...REQUEST_HEADERS },
    impIds: imps.map((imp) => imp.id),
  };
  return { requests: [call], errors };
}

/**
 * The params as Prebid Server decodes them into `openrtb_ext.ExtImpIx`: field names match ignoring case (so
 * `siteId`, `siteid` and `siteID` are one field, the last one written wins), `null` is empty, members are read in
 * the order written and the first of another JSON type fails the imp with json-iterator's text.
 */
function readImpParams(imp: Imp): IxImpParams {
  // `imp.ext` into `adapters.ExtImpBidder` (its `prebid` and `ae` typed), then its `bidder` into the params struct;
  // the decoder's text is passed on as it is.
  const read = readBidderParams(imp, PARAMS);
  if ('error' in read) throw new GoDecodeError(read.error);
  const params: IxImpParams = { siteId: '', sid: '' };
  for (const key of Object.keys(read.params)) {
    const name = key.toLowerCase();
    const value = read.params[key];
    if (name === 'siteid') params.siteId = goString(value, [`${PARAMS}.SiteId`]);
    else if (name === 'sid') params.sid = goString(value, [`${PARAMS}.Sid`]);
    else if (name === 'size') {
      const links = [`${PARAMS}.Size`];
      goSlice(value, links, '[]int').forEach((size) => goInt(size, [...links, '[]int']));
    }
  }
  return params;
}

const PARAMS = 'openrtb_ext.ExtImpIx';

function prepareImp(imp: Imp, params: IxImpParams): Imp {
  const prepared: Imp = { ...imp };
  // The exchange reads the slot id at imp.ext.sid; the rest of imp.ext (params included) goes along.
  if (params.sid !== '') prepared.ext = { ...imp.ext, sid: params.sid };
  if (isJsonObject(imp.banner)) prepared.banner = normaliseBannerSizes(imp.banner);
  return prepared;
}

/** The exchange sizes banners from `format`, and from `w`/`h` when there is a single size. */
function normaliseBannerSizes(banner: Banner): Banner {
  const normalised: Banner = { ...banner };
  const formats = Array.isArray(banner.format) ? banner.format : [];
  if (formats.length === 0 && typeof banner.w === 'number' && typeof banner.h === 'number') normalised.format = [{ w: banner.w, h: banner.h }];
  if (Array.isArray(normalised.format) && normalised.format.length === 1) {
    const only = isJsonObject(normalised.format[0]) ? normalised.format[0] : {};
    normalised.w = typeof only.w === 'number' ? only.w : 0;
    normalised.h = typeof only.h === 'number' ? only.h : 0;
  }
  return normalised;
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

/**
 * The request `ext` as Prebid Server re-encodes it (`prebid`, `schain` and `ixdiag` only), with the diagnostics
 * Index Exchange asks for: host platform and version, the Prebid.js version, and ambiguous site ids. Go decodes the
 * whole `ext` before it reads `ixdiag`, so an undecodable `prebid` is the error reported first.
 */
function withIxDiag(ext: unknown, sortedSiteIds: string[], settings: IxSettings): Ext {
  // Go decodes the ext, then its `ixdiag`, each on its own: a failure at the top of either names no type.
  const incoming = ext === undefined ? {} : goStruct(ext, []);
  const requestExt: Ext = {};
  let channel: JsonObject | undefined;
  for (const key of KEPT_REQUEST_EXT_KEYS) {
    const value = incoming[key];
    if (value === undefined || value === null) continue;
    if (key === 'prebid' || key === 'svc') {
      channel ??= channelOf(value, [`ix.ExtRequest.Prebid`]);
      requestExt[key] = reencodeExtRequestPrebid(value, ['ix.ExtRequest.Prebid']);
    } else {
      requestExt[key] = key === 'schain' ? encodeAsOpenrtb2SupplyChain(goStruct(value, ['ix.ExtRequest.SChain'])) : value;
    }
  }
  const ixdiag: JsonObject = { ...goMap(incoming.ixdiag ?? null, []) };

  if (channel) ixdiag.pbjsv = typeof channel.version === 'string' ? channel.version : '';
  if (sortedSiteIds.length > 1) ixdiag.multipleSiteIds = sortedSiteIds.join(', ');
  // A build suffix such as "1.4.0-3f9c2ab" is noise to the exchange.
  ixdiag.pbsv = settings.serverVersion.split('-')[0];
  ixdiag.pbsp = settings.platform;

  requestExt.ixdiag = ixdiag;
  return requestExt;
}

function channelOf(prebidExt: unknown, links: readonly string[]): JsonObject | undefined {
  const prebid = goStruct(prebidExt, links);
  if (prebid.channel === undefined || prebid.channel === null) return undefined;
  const channelLinks = [...links, 'openrtb_ext.ExtRequestPrebid.Channel'];
  const channel = goStruct(prebid.channel, channelLinks);
  goString(channel.version, [...channelLinks, 'openrtb_ext.ExtRequestPrebidChannel.Version']);
  return channel;
}

// ---------------------------------------------------------------------------------------------------------------
// Bids
// ---------------------------------------------------------------------------------------------------------------

function readBids(request: BidRequest, response: ResponseData): MakeBidsResult {
  const statusResult = checkResponseStatus(response);
  if (statusResult) return statusResult;

  const decoded = decodeOpenrtb2BidResponse(response.body);
  if ('error' in decoded) return { bids: [], errors: [badServerResponse(`JSON parsing error: ${decoded.error}`)] };

  const impTypes = impMediaTypesById(request);
  const bids: TypedBid[] = [];
  const errors: BidderError[] = [];
  for (const seatBid of decoded.value.seatbid) {
    for (const bid of seatBid.bid) {
      const typed = typeBid(bid, impTypes);
      if ('error' in typed) errors.push(unknownError(typed.error));
      else bids.push(typed);
    }
  }
  const configs = auctionConfigs(decoded.value.ext);
  if ('error' in configs) return { bids: [], errors: [...errors, failedToUnmarshal(configs.error)] };
  const result: MakeBidsResult = { currency: decoded.value.cur || 'USD', bids, errors };
  if (configs.configs) result.fledgeAuctionConfigs = configs.configs;
  return result;
}

/**
 * Protected Audience configs in `ext.protectedAudienceAuctionConfigs` (`[{bidId, config}]`, `bidId` naming the imp);
 * an entry without a config is skipped. An ext Go cannot decode into `ix.ixRespExt` fails the whole answer, bids
 * included, as in Prebid Server.
 */
function auctionConfigs(ext: unknown): { configs?: FledgeAuctionConfig[] } | { error: string } {
  if (ext === undefined || ext === null) return {};
  const entriesType = '[]ix.auctionConfig';
  try {
    const list = fieldIgnoringCase(goStruct(ext, []), 'protectedAudienceAuctionConfigs');
    if (list === undefined || list === null) return {};
    const links = ['ix.ixRespExt.AuctionConfig', entriesType];
    const configs: FledgeAuctionConfig[] = [];
    for (const entry of goSlice(list, ['ix.ixRespExt.AuctionConfig'], entriesType)) {
      if (entry === null) continue;
      const auctionConfig = goStruct(entry, links);
      const bidId = goString(fieldIgnoringCase(auctionConfig, 'bidId'), [...links, 'ix.auctionConfig.BidId']);
      // Go reads a `null` config as the raw text `null`, which is a config; only an absent one is none.
      const config = fieldIgnoringCase(auctionConfig, 'config');
      if (config !== undefined) configs.push({ impId: bidId, config });
    }
    return { configs };
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
  }
}

/** Each imp's media type, banner over video over native over audio. */
function impMediaTypesById(request: BidRequest): Map<string, MediaType> {
  const types = new Map<string, MediaType>();
  for (const imp of request.imp) {
    const type = IMP_TYPE_PRECEDENCE.find((mediaType) => imp[mediaType] !== undefined && imp[mediaType] !== null);
    if (type) types.set(imp.id, type);
  }
  return types;
}

function typeBid(raw: Bid, impTypes: Map<string, MediaType>): TypedBid | { error: string } {
  const type = bidMediaType(raw, impTypes);
  if ('error' in type) return type;
  const bid: Bid = { ...raw };
  const typed: TypedBid = { bid, type: type.type };
  if (type.type === 'video') {
    const video = prebidExt(bid.ext)?.video;
    if (isJsonObject(video)) {
      typed.video = { duration: (video.duration as number | undefined) ?? 0 };
      // The exchange may send the category only in the video ext; an empty one still fills an empty list.
      if (!Array.isArray(bid.cat) || bid.cat.length === 0) bid.cat = [(video.primary_category as string | undefined) ?? ''];
    }
  }
  if (type.type === 'native' && typeof bid.adm === 'string') bid.adm = mergeNativeImpressionTrackers(bid.adm);
  return typed;
}

/** The markup type the exchange declared (`mtype`, then `ext.prebid.type`), else the type of the imp bid on. */
function bidMediaType(bid: Bid, impTypes: Map<string, MediaType>): { type: MediaType } | { error: string } {
  const declared = mediaTypeFromMtype(bid.mtype);
  if (declared) return { type: declared };

  const extType = prebidExt(bid.ext)?.type;
  if (typeof extType === 'string' && extType !== '') {
    return IMP_TYPE_PRECEDENCE.includes(extType as MediaType) ? { type: extType as MediaType } : { error: `invalid BidType: ${extType}` };
  }
  const impType = impTypes.get(bid.impid);
  return impType ? { type: impType } : { error: `unmatched impression id: ${bid.impid}` };
}

/**
 * `bid.ext.prebid` when Go decodes `bid.ext` whole into `openrtb_ext.ExtBid` without error (the SDK's `decodeExtBid`:
 * keys in any case, every typed member checked, members by lower-cased name); undefined otherwise.
 */
function prebidExt(ext: unknown): Record<string, unknown> | undefined {
  if (ext === undefined) return undefined;
  const decoded = decodeExtBid(ext);
  return 'value' in decoded ? decoded.value.prebid : undefined;
}
