/**
 * Builds the body of one XAPI call, as Prebid Server's adapter does: the (OpenRTB 2.6) auction request narrowed to a
 * single imp of a single media type, with the Magnite ids, targeting and privacy signals where XAPI reads them.
 */
import { badInput, encodeAsOpenrtb2Request, failedToUnmarshal, GoDecodeError, goMap, goMapFromJsonparser, goString, goStruct, isJsonObject, unknownError, type BidderError, type BidRequest, type Imp, type JsonObject, type MediaType, type Native, type RequestInfo, type User, type Video } from '../../core/api/index.js';
import { addFirstPartyAttributes, AUDIENCE_TAXONOMIES, CONTENT_TAXONOMIES, iabSegmentIds, targetingMap } from './first-party-data.js';
import type { RubiconHostSettings } from './host-settings.js';
import { goInt64, GoPlainError, type RubiconImpExt } from './params.js';

/** XAPI keeps only this many blocked advertiser domains. */
const BADV_LIMIT = 50;
const NATIVE_VERSIONS_WITHOUT_VALIDATION = new Set(['1.0', '1.1']);
const MEDIA_TYPES = ['banner', 'video', 'native', 'audio'] as const;

export interface CallContext {
  host: RubiconHostSettings;
  info: RequestInfo;
  /** `maxbids` the publisher allows this bidder per imp (multibid), when set. */
  maxBids?: number;
}

export type BodyResult = { body: BidRequest } | { error: BidderError };

/** One copy of the imp per media type it offers (audio too), for `bidonmultiformat`. */
export function splitByMediaType(imp: Imp): Imp[] {
  return MEDIA_TYPES.filter((type) => imp[type]).map((type) => {
    const copy: Imp = { ...imp };
    for (const other of MEDIA_TYPES) if (other !== type) delete copy[other];
    return copy;
  });
}

/**
 * XAPI takes one media type per imp. Video wins when it is the only format besides native, or when it carries
 * everything XAPI needs for video; otherwise banner; otherwise native.
 */
export function xapiMediaType(imp: Imp): MediaType {
  if (imp.video && (!imp.banner || isFullyDescribedVideo(imp.video))) return 'video';
  return imp.banner ? 'banner' : 'native';
}

function isFullyDescribedVideo(video: Video): boolean {
  return Array.isArray(video.mimes) && Array.isArray(video.protocols) && !!video.maxduration && !!video.linearity;
}

export function buildXapiBody(request: BidRequest, imp: Imp, impExt: RubiconImpExt, context: CallContext): BodyResult {
  try {
    return buildBody(request, imp, impExt, context);
  } catch (err) {
    // Go's adapter returns jsonutil's error as it is (FailedToUnmarshal), and its other errors as plain ones.
    if (err instanceof GoDecodeError) return { error: failedToUnmarshal(err.message) };
    if (err instanceof GoPlainError) return { error: unknownError(err.message) };
    throw err;
  }
}

/**
 * Throws a GoDecodeError where Prebid Server's decoder fails (first-party data and targeting sources that are not
 * objects, `imp.ext.data`, a native request that does not decode), a GoPlainError for its plain errors.
 */
function buildBody(request: BidRequest, imp: Imp, impExt: RubiconImpExt, context: CallContext): BodyResult {
  const params = impExt.params;
  if (!request.site && !request.app) throw new GoPlainError('rubicon needs request.site or request.app');
  const target = impTargeting(request, imp, impExt, context.host);
  const siteId = goInt64(params.siteId);
  const zoneId = goInt64(params.zoneId);

  const ext: JsonObject = { rp: { zone_id: zoneId, target, track: { mint: '', mint_version: '' } } };
  if (impExt.gpid !== '') ext.gpid = impExt.gpid;
  if (impExt.skadn !== undefined) ext.skadn = impExt.skadn;
  if (impExt.tid !== '') ext.tid = impExt.tid;
  if (context.maxBids !== undefined) ext.maxbids = context.maxBids;
  const built: Imp = { ...imp, ext, secure: 1 };

  const floor = resolveFloor(imp, context.info);
  if ('error' in floor) return floor;
  if (floor.value >= 0) {
    // A zero floor is left out when the request is encoded.
    built.bidfloor = floor.value;
    if (imp.bidfloorcur) built.bidfloorcur = 'USD';
  }

  const body: BidRequest = { ...request };
  if (request.user) body.user = buildUser(request.user, params.visitor);
  if (request.device) body.device = { ...request.device, ext: { rp: { pixelratio: request.device.pxratio ?? 0 } } };

  const mediaType = xapiMediaType(imp);
  let requestNative: JsonObject | undefined;
  if (mediaType === 'video') {
    const videoExt: JsonObject = { rp: params.video.sizeId ? { size_id: params.video.sizeId } : {} };
    if (params.video.skip) videoExt.skip = params.video.skip;
    if (params.video.skipDelay) videoExt.skipdelay = params.video.skipDelay;
    if (imp.rwdd === 1) {
      videoExt.videotype = 'rewarded';
      delete built.rwdd;
    }
    built.video = { ...imp.video, ext: videoExt };
    delete built.banner;
    delete built.native;
  } else if (mediaType === 'banner') {
    const banner = imp.banner!;
    const hasFormat = Array.isArray(banner.format) && banner.format.length > 0;
    // Prebid Server's test: no format, and no width, or a zero width without height, or a zero (or no) height.
    if (!hasFormat && (banner.w == null || (banner.w === 0 && banner.h == null) || !banner.h)) {
      return { error: badInput('rubicon imps must have at least one imp.format element') };
    }
    built.banner = { ...banner, ext: { rp: { mime: 'text/html' } } };
    delete built.video;
    delete built.native;
  } else {
    requestNative = parseNativeRequest(imp.native);
    delete built.video;
  }

  const accountId = goInt64(params.accountId);
  const publisher = { ext: { rp: { account_id: accountId } } };
  if (request.site) {
    const rp: JsonObject = { site_id: siteId };
    const iab = iabSegmentIds(request.site.content?.data, CONTENT_TAXONOMIES);
    if (iab.length > 0) rp.target = { iab };
    body.site = { ...request.site, ext: { rp }, publisher };
  } else {
    body.app = { ...request.app, ext: { rp: { site_id: siteId } }, publisher };
  }

  // The supply chain goes back to `source.ext.schain`, the only key `source.ext` keeps.
  if (request.source?.schain !== undefined && request.source.schain !== null) {
    const { schain, ...source } = request.source;
    body.source = { ...source, ext: { schain: goEncoded({ source: { schain } }).source!.schain } };
  }

  const regs = request.regs;
  if (regs && ((regs.gdpr !== undefined && regs.gdpr !== null) || regs.us_privacy)) {
    const incoming = isJsonObject(regs.ext) ? regs.ext : {};
    if (incoming.dsa !== undefined && incoming.dsa !== null && !isJsonObject(incoming.dsa)) {
      return { error: badInput(`cannot unmarshal openrtb_ext.ExtRegs.DSA: expect { or n, but found ${JSON.stringify(incoming.dsa)[0]}`) };
    }
    // Only the fields of `openrtb_ext.ExtRegs` survive in `regs.ext`.
    const regsExt: JsonObject = {};
    if (incoming.dsa !== undefined && incoming.dsa !== null) regsExt.dsa = asExtRegsDsa(incoming.dsa as JsonObject);
    if (regs.gdpr !== undefined && regs.gdpr !== null) regsExt.gdpr = regs.gdpr;
    if (regs.us_privacy) regsExt.us_privacy = regs.us_privacy;
    const { gdpr: _gdpr, us_privacy: _usPrivacy, ...rest } = regs;
    body.regs = { ...rest, ext: regsExt };
  }

  if (Array.isArray(request.badv) && request.badv.length > BADV_LIMIT) body.badv = request.badv.slice(0, BADV_LIMIT);

  // XAPI takes one imp per call, and neither the auction's currencies nor its extensions.
  body.imp = [built];
  delete body.cur;
  delete body.ext;
  // Go writes the request from openrtb2's structs, then splices `request_native` into the native object it wrote.
  const encoded = encodeAsOpenrtb2Request(body);
  const [sent] = encoded.imp;
  if (requestNative && sent?.native) encoded.imp = [{ ...sent, native: { ...sent.native, request_native: requestNative } }];
  return { body: encoded };
}

/**
 * `regs.ext.dsa` as Go writes it back from `openrtb_ext.ExtRegsDSA`: its three flags (kept when set, 0 too) and its
 * transparency entries (`domain`, `dsaparams`, each left out when empty); members it does not know are gone.
 */
function asExtRegsDsa(dsa: JsonObject): JsonObject {
  const written: JsonObject = {};
  for (const flag of ['dsarequired', 'pubrender', 'datatopub']) if (dsa[flag] !== undefined && dsa[flag] !== null) written[flag] = dsa[flag];
  if (Array.isArray(dsa.transparency) && dsa.transparency.length > 0) {
    written.transparency = dsa.transparency.map((entry: unknown) => {
      const source = isJsonObject(entry) ? entry : {};
      const kept: JsonObject = {};
      if (typeof source.domain === 'string' && source.domain !== '') kept.domain = source.domain;
      if (Array.isArray(source.dsaparams) && source.dsaparams.length > 0) kept.dsaparams = source.dsaparams;
      return kept;
    });
  }
  return written;
}

/** Floors in another currency are converted to US dollars (XAPI's currency); a stated currency becomes USD. */
function resolveFloor(imp: Imp, info: RequestInfo): { value: number } | { error: BidderError } {
  const floor = imp.bidfloor ?? 0;
  const currency = imp.bidfloorcur ?? '';
  if (floor > 0 && currency !== '' && currency.toUpperCase() !== 'USD') {
    try {
      return { value: info.convertCurrency(floor, currency, 'USD') };
    } catch {
      return { error: badInput(`Unable to convert provided bid floor currency from ${currency} to USD`) };
    }
  }
  return { value: floor };
}

/**
 * Page, inventory and ad-slot targeting, then keywords and the host's identity, on top of any `imp.ext.rp.target`
 * the imp already has. First-party data that is not an object is an error for the imp.
 */
function impTargeting(request: BidRequest, imp: Imp, impExt: RubiconImpExt, host: RubiconHostSettings): JsonObject {
  // Go finds the existing target and the site's or app's data with jsonparser.
  const existing = isJsonObject(imp.ext) && isJsonObject(imp.ext.rp) ? imp.ext.rp.target : undefined;
  const target = targetingMap(goMapFromJsonparser(existing));
  addFirstPartyAttributes(impExt.params.inventory, target);
  const holder = request.site ?? request.app!;
  addFirstPartyAttributes(goMapFromJsonparser(isJsonObject(holder.ext) ? holder.ext.data : undefined), target);
  if (request.site?.page) target.page = [request.site.page];
  addFirstPartyAttributes(impExt.data, target);

  const data = goStruct(impExt.data ?? null, []);
  const adserverLinks = ['rubicon.rubiconData.AdServer'];
  const adserver = goStruct(data.adserver, adserverLinks);
  const pbadslot = goString(data.pbadslot, ['rubicon.rubiconData.PbAdSlot']);
  const adserverName = goString(adserver.name, [...adserverLinks, 'rubicon.rubiconAdServer.Name']);
  const adslot = goString(adserver.adslot, [...adserverLinks, 'rubicon.rubiconAdServer.AdSlot']);
  if (pbadslot) target.pbadslot = pbadslot;
  else if (adserverName === 'gam' && adslot) target.dfp_ad_unit_code = adslot;

  if (impExt.params.keywords.length > 0) target.keywords = impExt.params.keywords;
  target.pbs_login = host.username;
  target.pbs_version = host.hostVersion;
  target.pbs_url = host.externalUrl;
  return target;
}

/**
 * Native 1.2+ requests go to XAPI parsed as well (`request_native`), and must name their event trackers and
 * placement type. Versions 1.0 and 1.1 go as they are.
 */
function parseNativeRequest(native: Native | undefined): JsonObject | undefined {
  if (!native) throw new GoPlainError('Native object is not present for request');
  if (typeof native.ver === 'string' && NATIVE_VERSIONS_WITHOUT_VALIDATION.has(native.ver)) return undefined;
  const text = typeof native.request === 'string' ? native.request : '';
  // json-iterator looks at the first byte before anything else: nothing, or anything but an object or null, fails.
  const first = text.trimStart()[0];
  if (first !== '{' && first !== 'n') throw new GoDecodeError(`expect { or n, but found ${first ?? '\u0000'}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new GoDecodeError(`cannot unmarshal native request: ${(err as Error).message}`);
  }
  const request = goMap(parsed, []);
  if (!Array.isArray(request.eventtrackers)) throw new GoPlainError('Eventtrackers are not present or not of array type');
  if (request.context !== undefined && request.context !== null && typeof request.context !== 'number') throw new GoPlainError('Context is not of int type');
  if (typeof request.plcmttype !== 'number') throw new GoPlainError('Plcmttype is not present or not of int type');
  return Object.keys(request).length > 0 ? request : undefined;
}

/**
 * The user's targeting (existing `ext.rp.target`, visitor params, `ext.data`, audience segments) in a new `ext`
 * that also carries the eids and consent; demographics, consent and eids leave their top-level places.
 */
function buildUser(user: User, visitor: unknown): User {
  const userExt = isJsonObject(user.ext) ? user.ext : {};
  // Go finds the existing target and the user's data with jsonparser.
  const existing = isJsonObject(userExt.rp) ? userExt.rp.target : undefined;
  const target = targetingMap(goMapFromJsonparser(existing));
  addFirstPartyAttributes(visitor, target);
  addFirstPartyAttributes(goMapFromJsonparser(userExt.data), target);
  const iab = iabSegmentIds(user.data, AUDIENCE_TAXONOMIES);
  if (iab.length > 0) target.iab = iab;

  const ext: JsonObject = { rp: { target } };
  if (Array.isArray(user.eids) && user.eids.length > 0) ext.eids = goEncoded({ user: { eids: user.eids } }).user!.eids;
  if (user.consent) ext.consent = user.consent;
  const built: User = { ...user, ext };
  for (const key of ['consent', 'geo', 'yob', 'gender', 'eids'] as const) delete built[key];
  return built;
}

/**
 * Members Go moves from their typed place into an ext (`user.eids`, `source.schain`), as its openrtb2 structs write
 * them there: unknown members and empty `omitempty` fields left out, as everywhere else in the request.
 */
function goEncoded(part: Partial<BidRequest>): BidRequest {
  return encodeAsOpenrtb2Request(part as BidRequest);
}
