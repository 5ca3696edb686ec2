/**
 * Turns one auction imp into the imp PubMatic's translator expects: ad slot name and size, floor, and the
 * targeting keys PubMatic reads from `imp.ext`.
 */
import { badInput, isJsonObject, type Banner, type BidderError, type Imp, type JsonObject } from '../../core/api/index.js';
import { trimmedString } from './json.js';

export interface Wrapper {
  profile?: number;
  version?: number;
}

export interface ParsedImp {
  imp: Imp;
  publisherId: string;
  wrapper?: Wrapper;
}

/** `imp.displaymanager` / `displaymanagerver` to fill in when the app's SDK did not. */
export interface DisplayManager {
  name: string;
  version: string;
}

const ZONE_KEY = 'pmZoneId';
const LEGACY_ZONE_KEY = 'pmZoneID';
const DEALS_TARGETING_KEY = 'key_val';
const AD_UNIT_KEY = 'dfp_ad_unit_code';

export function parseImp(imp: Imp, displayManager: DisplayManager | undefined): ParsedImp | { error: BidderError } {
  if (!imp.banner && !imp.video && !imp.native) {
    return { error: badInput(`imp ${imp.id}: pubmatic bids on banner, video and native only`) };
  }
  const impExt = isJsonObject(imp.ext) ? imp.ext : {};
  const params = impExt.bidder;
  if (!isJsonObject(params)) return { error: badInput(`imp ${imp.id}: missing pubmatic params in imp.ext.bidder`) };
  if (params.publisherId !== undefined && typeof params.publisherId !== 'string') {
    return { error: badInput(`imp ${imp.id}: publisherId must be a string`) };
  }
  const wrapper = readWrapper(params.wrapper);
  if (wrapper === null) return { error: badInput(`imp ${imp.id}: wrapper must be an object with numeric profile and version`) };

  const built: Imp = { ...imp };
  delete built.audio;
  if (displayManager && !imp.displaymanager && !imp.displaymanagerver) {
    built.displaymanager = displayManager.name;
    built.displaymanagerver = displayManager.version;
  }

  const slotError = applyAdSlot(built, trimmedString(params.adSlot));
  if (slotError) return { error: slotError };
  if (built.banner) {
    const banner = withBannerSize(built.banner);
    if (!banner) return { error: badInput(`imp ${imp.id}: banner has no size (no w/h and no format)`) };
    built.banner = banner;
  }

  const floor = parseDecimal(trimmedString(params.kadfloor));
  // The publisher's floor param never lowers a floor the request already sets.
  if (floor !== undefined) built.bidfloor = Math.max(floor, typeof imp.bidfloor === 'number' ? imp.bidfloor : 0);

  const ext = buildImpExt(impExt, params);
  if (Object.keys(ext).length > 0) built.ext = ext;
  else delete built.ext;

  return { imp: built, publisherId: trimmedString(params.publisherId), wrapper };
}

/** `undefined` when absent, `null` when malformed. */
function readWrapper(value: unknown): Wrapper | undefined | null {
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) return null;
  const wrapper: Wrapper = {};
  for (const key of ['profile', 'version'] as const) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field !== 'number' || !Number.isInteger(field)) return null;
    wrapper[key] = field;
  }
  return wrapper;
}

/**
 * An ad slot is `name` or `name@WxH` (optionally `name@WxH:suffix`): the name becomes the tag id and, for banners,
 * the size becomes the banner's size.
 */
function applyAdSlot(imp: Imp, adSlot: string): BidderError | undefined {
  if (adSlot === '') return undefined;
  if (!adSlot.includes('@')) {
    imp.tagid = adSlot;
    return undefined;
  }
  const [name, size, ...rest] = adSlot.split('@');
  if (!name || !size || rest.length > 0) return badInput(`imp ${imp.id}: invalid adSlot ${adSlot}`);
  imp.tagid = name.trim();

  const dimensions = size.toLowerCase().split('x');
  if (dimensions.length !== 2) return badInput(`imp ${imp.id}: invalid size in adSlot ${adSlot}`);
  const width = parseWholeNumber(dimensions[0]!);
  if (width === undefined) return badInput(`imp ${imp.id}: invalid width in adSlot ${adSlot}`);
  const height = parseWholeNumber(dimensions[1]!.split(':')[0]!);
  if (height === undefined) return badInput(`imp ${imp.id}: invalid height in adSlot ${adSlot}`);
  if (imp.banner) imp.banner = { ...imp.banner, w: width, h: height };
  return undefined;
}

/** PubMatic needs `banner.w`/`h`: the first format gives them when the request left them out. */
function withBannerSize(banner: Banner): Banner | undefined {
  if (banner.w !== undefined && banner.h !== undefined) return banner;
  const first = Array.isArray(banner.format) ? banner.format[0] : undefined;
  if (!isJsonObject(first)) return undefined;
  return { ...banner, w: first.w, h: first.h };
}

function buildImpExt(impExt: JsonObject, params: JsonObject): JsonObject {
  const ext: JsonObject = {};
  for (const keyword of Array.isArray(params.keywords) ? params.keywords : []) {
    if (!isJsonObject(keyword) || typeof keyword.key !== 'string' || !Array.isArray(keyword.value) || keyword.value.length === 0) continue;
    ext[keyword.key === LEGACY_ZONE_KEY ? ZONE_KEY : keyword.key] = keyword.value.join(',');
  }
  // The dedicated params win over keywords of the same name.
  if (trimmedString(params.dctr) !== '') ext[DEALS_TARGETING_KEY] = params.dctr;
  if (trimmedString(params.pmzoneid) !== '') ext[ZONE_KEY] = params.pmzoneid;

  if (impExt.skadn !== undefined) ext.skadn = impExt.skadn;
  const prebid = isJsonObject(impExt.prebid) ? impExt.prebid : {};
  if (prebid.is_rewarded_inventory === 1) ext.reward = 1;
  if (isJsonObject(impExt.data)) addImpFirstPartyData(impExt.data, ext);
  if (typeof impExt.ae === 'number' && impExt.ae !== 0) ext.ae = impExt.ae;
  if (typeof impExt.gpid === 'string' && impExt.gpid !== '') ext.gpid = impExt.gpid;
  return ext;
}

/**
 * `imp.ext.data` gives the ad unit code (the GAM ad slot, else the Prebid ad slot) and deal targeting: every other
 * attribute becomes a `key=value` pair of `key_val`, pairs separated by `|`, list values joined by `,`.
 */
function addImpFirstPartyData(data: JsonObject, ext: JsonObject): void {
  const adserver = isJsonObject(data.adserver) ? data.adserver : {};
  if (adserver.name === 'gam' && typeof adserver.adslot === 'string' && adserver.adslot !== '') ext[AD_UNIT_KEY] = adserver.adslot;
  else if (typeof data.pbadslot === 'string') ext[AD_UNIT_KEY] = data.pbadslot;

  const pairs = typeof ext[DEALS_TARGETING_KEY] === 'string' && ext[DEALS_TARGETING_KEY] !== '' ? [ext[DEALS_TARGETING_KEY] as string] : [];
  for (const [rawKey, value] of Object.entries(data)) {
    if (rawKey === 'pbadslot' || rawKey === 'adserver') continue;
    const text = targetingText(value);
    if (text !== undefined) pairs.push(`${rawKey.trim()}=${text}`);
  }
  if (pairs.length > 0) ext[DEALS_TARGETING_KEY] = pairs.join('|');
}

function targetingText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) return value.join(',');
  return undefined;
}

function parseWholeNumber(text: string): number | undefined {
  const trimmed = text.trim();
  return /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

function parseDecimal(text: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}
