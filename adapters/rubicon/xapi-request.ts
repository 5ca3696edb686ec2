/**
 * Builds the body of one XAPI call: the auction request narrowed to a single imp of a single media type, with the
 * Magnite ids, targeting and privacy signals where XAPI reads them (OpenRTB 2.5 homes under `ext`).
 */
import {
  badInput,
  isJsonObject,
  type App,
  type BidderError,
  type BidRequest,
  type Imp,
  type JsonObject,
  type MediaType,
  type Native,
  type Regs,
  type Site,
  type Source,
  type User,
} from '../../core/api/index.js';
import { addFirstPartyAttributes, AUDIENCE_TAXONOMIES, CONTENT_TAXONOMIES, iabSegmentIds } from './first-party-data.js';
import type { RubiconHostSettings } from './host-settings.js';
import type { RubiconParams } from './params.js';

/** XAPI keeps only this many blocked advertiser domains. */
const BADV_LIMIT = 50;
const NATIVE_VERSIONS_WITHOUT_VALIDATION = new Set(['1.0', '1.1']);

export interface CallContext {
  host: RubiconHostSettings;
  /** `maxbids` the publisher allows this bidder per imp (multibid), when set. */
  maxBids?: number;
}

export type BodyResult = { body: BidRequest; mediaType: MediaType } | { error: BidderError };

export function buildXapiBody(request: BidRequest, imp: Imp, params: RubiconParams, context: CallContext): BodyResult {
  const mediaType = chooseMediaType(imp);
  if (mediaType === undefined) return { error: badInput(`imp ${imp.id}: rubicon bids on banner, video and native only`) };

  const builtImp = buildImp(request, imp, mediaType, params, context);
  if ('error' in builtImp) return builtImp;

  const body: BidRequest = { ...request, imp: [builtImp.imp] };
  // The auction's own extensions (targeting, cache, multibid...) mean nothing to XAPI.
  delete body.ext;

  if (request.site) body.site = withMagniteIds(request.site, params);
  else if (request.app) body.app = withMagniteIds(request.app, params);
  else return { error: badInput('rubicon needs request.site or request.app') };

  if (request.device) {
    const deviceExt = isJsonObject(request.device.ext) ? request.device.ext : {};
    body.device = { ...request.device, ext: { ...deviceExt, rp: { pixelratio: numberOr(request.device.pxratio, 0) } } };
  }
  if (request.user) body.user = buildUser(request.user, params.visitor);
  const source = buildSource(request.source, params.pchain);
  if (source) body.source = source;
  if (request.regs) body.regs = buildRegs(request.regs);
  if (Array.isArray(request.badv) && request.badv.length > BADV_LIMIT) body.badv = request.badv.slice(0, BADV_LIMIT);

  return { body, mediaType };
}

/**
 * XAPI takes one media type per imp. Video wins when it is the only format or when it carries everything XAPI needs
 * for video; otherwise banner, then native.
 */
export function chooseMediaType(imp: Imp): MediaType | undefined {
  if (imp.video && (!imp.banner || isFullyDescribedVideo(imp.video))) return 'video';
  if (imp.banner) return 'banner';
  if (imp.native) return 'native';
  return undefined;
}

function isFullyDescribedVideo(video: JsonObject): boolean {
  return Array.isArray(video.mimes) && Array.isArray(video.protocols) && !!video.maxduration && !!video.linearity;
}

/** One copy of the imp per media type it offers, for `bidonmultiformat`. */
export function splitByMediaType(imp: Imp): Imp[] {
  const copies: Imp[] = [];
  for (const type of ['banner', 'video', 'native'] as const) {
    if (!imp[type]) continue;
    const copy: Imp = { ...imp };
    for (const other of ['banner', 'video', 'native', 'audio'] as const) if (other !== type) delete copy[other];
    copies.push(copy);
  }
  return copies;
}

function buildImp(
  request: BidRequest,
  imp: Imp,
  mediaType: MediaType,
  params: RubiconParams,
  context: CallContext,
): { imp: Imp } | { error: BidderError } {
  const built: Imp = { ...imp, secure: 1, ext: buildImpExt(request, imp, params, context) };
  delete built.rwdd;
  for (const other of ['banner', 'video', 'native', 'audio'] as const) if (other !== mediaType) delete built[other];
  applyFloor(built);

  if (mediaType === 'video') {
    built.video = { ...imp.video, ext: buildVideoExt(imp, params) };
  } else if (mediaType === 'banner') {
    const banner = imp.banner!;
    const hasSize = Array.isArray(banner.format) && banner.format.length > 0;
    if (!hasSize && !(numberOr(banner.w, 0) > 0 && numberOr(banner.h, 0) > 0)) {
      return { error: badInput(`imp ${imp.id}: rubicon banner imps need banner.format or banner.w and banner.h`) };
    }
    built.banner = { ...banner, ext: { rp: { mime: 'text/html' } } };
  } else {
    const native = withParsedNativeRequest(imp.native!, imp.id);
    if ('error' in native) return native;
    built.native = native.native;
  }
  return { imp: built };
}

function buildImpExt(request: BidRequest, imp: Imp, params: RubiconParams, context: CallContext): JsonObject {
  const impExt = isJsonObject(imp.ext) ? imp.ext : {};
  const ext: JsonObject = {
    rp: {
      zone_id: params.zoneId,
      target: buildImpTargeting(request, impExt, params, context.host),
      track: { mint: '', mint_version: '' },
    },
  };
  for (const key of ['gpid', 'tid', 'skadn'] as const) {
    if (impExt[key] !== undefined && impExt[key] !== '') ext[key] = impExt[key];
  }
  if (context.maxBids !== undefined) ext.maxbids = context.maxBids;
  return ext;
}

/** Page, inventory and ad-slot targeting, then the host's identity. */
function buildImpTargeting(request: BidRequest, impExt: JsonObject, params: RubiconParams, host: RubiconHostSettings): JsonObject {
  const target: JsonObject = {};
  addFirstPartyAttributes(params.inventory, target);
  if (request.site) {
    addFirstPartyAttributes(isJsonObject(request.site.ext) ? request.site.ext.data : undefined, target);
    if (typeof request.site.page === 'string' && request.site.page !== '') target.page = [request.site.page];
  } else if (request.app) {
    addFirstPartyAttributes(isJsonObject(request.app.ext) ? request.app.ext.data : undefined, target);
  }

  const data = isJsonObject(impExt.data) ? impExt.data : {};
  addFirstPartyAttributes(data, target);
  if (typeof data.pbadslot === 'string' && data.pbadslot !== '') target.pbadslot = data.pbadslot;
  const adserver = data.adserver;
  if (isJsonObject(adserver) && adserver.name === 'gam' && typeof adserver.adslot === 'string' && adserver.adslot !== '') {
    target.dfp_ad_unit_code = adserver.adslot;
  }

  target.pbs_login = host.username;
  target.pbs_url = host.externalUrl;
  target.pbs_version = host.hostVersion;
  return target;
}

function buildVideoExt(imp: Imp, params: RubiconParams): JsonObject {
  const ext: JsonObject = { rp: params.video.sizeId === undefined ? {} : { size_id: params.video.sizeId } };
  if (params.video.skip !== undefined) ext.skip = params.video.skip;
  if (params.video.skipDelay !== undefined) ext.skipdelay = params.video.skipDelay;
  if (isRewarded(imp)) ext.videotype = 'rewarded';
  return ext;
}

function isRewarded(imp: Imp): boolean {
  const prebid = isJsonObject(imp.ext) && isJsonObject(imp.ext.prebid) ? imp.ext.prebid : {};
  return imp.rwdd === 1 || prebid.is_rewarded_inventory === 1;
}

/** XAPI prices floors in US dollars: say so explicitly for dollar floors. */
function applyFloor(imp: Imp): void {
  const floor = numberOr(imp.bidfloor, 0);
  const currency = typeof imp.bidfloorcur === 'string' ? imp.bidfloorcur.toUpperCase() : '';
  if (floor > 0 && (currency === '' || currency === 'USD')) imp.bidfloorcur = 'USD';
}

/**
 * Native 1.2+ requests go to XAPI parsed as well, in `request_native`, and must name their event trackers and
 * placement type.
 */
function withParsedNativeRequest(native: Native, impId: string): { native: Native } | { error: BidderError } {
  if (typeof native.ver === 'string' && NATIVE_VERSIONS_WITHOUT_VALIDATION.has(native.ver)) return { native: { ...native } };
  let parsed: unknown;
  try {
    parsed = typeof native.request === 'string' ? JSON.parse(native.request) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!isJsonObject(parsed)) return { error: badInput(`imp ${impId}: native.request is not a JSON object`) };
  if (!Array.isArray(parsed.eventtrackers)) return { error: badInput(`imp ${impId}: native request needs an eventtrackers array`) };
  if (parsed.context !== undefined && typeof parsed.context !== 'number') {
    return { error: badInput(`imp ${impId}: native request context must be a number`) };
  }
  if (typeof parsed.plcmttype !== 'number') return { error: badInput(`imp ${impId}: native request needs a numeric plcmttype`) };
  return { native: { ...native, request_native: parsed } };
}

/** Site or app with the Magnite site and account ids, and the content segments XAPI targets on. */
function withMagniteIds<T extends Site | App>(inventory: T, params: RubiconParams): T {
  const rp: JsonObject = { site_id: params.siteId };
  const content = isJsonObject(inventory.content) ? inventory.content : {};
  const iab = iabSegmentIds(content.data, CONTENT_TAXONOMIES);
  if (iab.length > 0) rp.target = { iab };
  return { ...inventory, ext: { rp }, publisher: { ext: { rp: { account_id: params.accountId } } } };
}

/**
 * The user's targeting (existing `ext.rp.target`, visitor params, `ext.data`, audience segments), with consent and
 * eids moved to their OpenRTB 2.5 homes. Demographics stay with the host.
 */
function buildUser(user: User, visitor: unknown): User {
  const userExt = isJsonObject(user.ext) ? user.ext : {};
  const existingRp = isJsonObject(userExt.rp) ? userExt.rp : {};
  const target: JsonObject = isJsonObject(existingRp.target) ? { ...existingRp.target } : {};
  addFirstPartyAttributes(visitor, target);
  addFirstPartyAttributes(userExt.data, target);
  const iab = iabSegmentIds(user.data, AUDIENCE_TAXONOMIES);
  if (iab.length > 0) target.iab = iab;

  const ext: JsonObject = { rp: Object.keys(target).length > 0 ? { target } : {} };
  const consent = nonEmptyString(user.consent) ?? nonEmptyString(userExt.consent);
  if (consent !== undefined) ext.consent = consent;
  const eids = nonEmptyArray(user.eids) ?? nonEmptyArray(userExt.eids);
  if (eids !== undefined) ext.eids = eids;

  const built: User = { ...user, ext };
  for (const key of ['yob', 'gender', 'geo', 'consent', 'eids'] as const) delete built[key];
  const buyeruid = nonEmptyString(user.buyeruid) ?? magniteIdFromEids(eids);
  if (buyeruid !== undefined) built.buyeruid = buyeruid;
  return built;
}

/** Magnite's own id for this user, when a publisher-provided or other Magnite uid is among the eids. */
function magniteIdFromEids(eids: unknown[] | undefined): string | undefined {
  for (const eid of eids ?? []) {
    if (!isJsonObject(eid) || eid.source !== 'rubiconproject.com' || !Array.isArray(eid.uids)) continue;
    for (const uid of eid.uids) {
      const stype = isJsonObject(uid) && isJsonObject(uid.ext) ? uid.ext.stype : undefined;
      if ((stype === 'ppuid' || stype === 'other') && isJsonObject(uid) && nonEmptyString(uid.id)) return uid.id as string;
    }
  }
  return undefined;
}

function buildSource(source: Source | undefined, pchain: string | undefined): Source | undefined {
  if (!source && pchain === undefined) return undefined;
  const built: Source = { ...source };
  if (built.schain !== undefined) {
    built.ext = { ...(isJsonObject(built.ext) ? built.ext : {}), schain: built.schain };
    delete built.schain;
  }
  if (pchain !== undefined) built.pchain = pchain;
  return built;
}

function buildRegs(regs: Regs): Regs {
  const built: Regs = { ...regs };
  const ext: JsonObject = isJsonObject(regs.ext) ? { ...regs.ext } : {};
  if (regs.gdpr !== undefined) ext.gdpr = regs.gdpr;
  if (nonEmptyString(regs.us_privacy) !== undefined) ext.us_privacy = regs.us_privacy;
  delete built.gdpr;
  delete built.us_privacy;
  if (Object.keys(ext).length > 0) built.ext = ext;
  return built;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function nonEmptyArray(value: unknown): unknown[] | undefined {
  return Array.isArray(value) && value.length > 0 ? value : undefined;
}
