/**
 * Turns one auction imp into the imp PubMatic's translator expects: ad slot name and size, floor, and the
 * targeting keys PubMatic reads from `imp.ext`. Params are read the way Prebid Server decodes them
 * (`ExtImpBidderPubmatic`, `openrtb_ext.ExtImpPubmatic`): a field of the wrong JSON type fails the imp.
 */
import {
  embeddedExtImpBidderError,
  GoDecodeError,
  goInt,
  goSlice,
  goString,
  goStruct,
  isJsonObject,
  type Banner,
  type Imp,
  type JsonObject,
} from '../../core/api/index.js';
import { goFloatText } from './json.js';

export interface Wrapper {
  profile: number;
  version: number;
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

/** What the imp parse reads only until the request has it: the OpenWrap wrapper, the publisher id. */
export interface ParseNeeds {
  wrapper: boolean;
  publisherId: boolean;
}

const ZONE_KEY = 'pmZoneId';
const LEGACY_ZONE_KEY = 'pmZoneID';
const DEALS_TARGETING_KEY = 'key_val';
const AD_UNIT_KEY = 'dfp_ad_unit_code';

/**
 * The imp ready for PubMatic, or why it is dropped: `unmarshal` marks the decoder errors Prebid Server returns as they
 * are (code 14); its own messages, and the wrapper error it wraps with fmt.Errorf, are generic errors.
 */
export function parseImp(raw: unknown, needs: ParseNeeds, displayManager: DisplayManager | undefined): ParsedImp | { error: string; unmarshal?: true } {
  // Go decodes a `null` imp as an empty one.
  const imp: Imp = isJsonObject(raw) ? (raw as Imp) : { id: '' };
  if (!imp.banner && !imp.video && !imp.native) {
    return { error: `invalid MediaType. PubMatic only supports Banner, Video and Native. Ignoring ImpID=${imp.id}` };
  }
  const built: Imp = { ...imp };
  delete built.audio;
  if (!imp.displaymanager && !imp.displaymanagerver && displayManager) {
    built.displaymanager = displayManager.name;
    built.displaymanagerver = displayManager.version;
  }

  let impExt: JsonObject;
  let params: PubmaticParams;
  let wrapper: Wrapper | undefined;
  try {
    impExt = decodeImpExt(imp.ext);
    // Go decodes the params on their own (`openrtb_ext.ExtImpPubmatic`): absent ones give its decoder nothing to read.
    params = readParams(impExt.bidder);
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message, unmarshal: true };
    throw err;
  }
  const publisherId = needs.publisherId ? params.publisherId.trim() : '';
  if (needs.wrapper && params.wrapper !== undefined) {
    try {
      wrapper = readWrapper(params.wrapper);
    } catch (err) {
      if (!(err instanceof GoDecodeError)) throw err;
      return { error: `Error in Wrapper Parameters = ${err.message}  for ImpID = ${imp.id} WrapperExt = ${JSON.stringify(params.wrapper)}` };
    }
  }

  const slotError = applyAdSlot(built, params.adSlot.trim());
  if (slotError) return { error: slotError };
  if (built.banner) {
    const banner = withBannerSize(built.banner);
    if (!banner) return { error: `imp ${imp.id}: the banner has neither w and h nor a format to take them from` };
    built.banner = banner;
  }

  if (params.kadfloor !== '') {
    const floor = goFloatText(params.kadfloor.trim());
    // A readable floor param never lowers a floor the request already sets.
    if (floor !== undefined) built.bidfloor = Math.max(floor, typeof imp.bidfloor === 'number' ? imp.bidfloor : 0);
  }

  const ext = buildImpExt(impExt, params);
  if (Object.keys(ext).length > 0) built.ext = ext;
  else delete built.ext;
  return wrapper ? { imp: built, publisherId, wrapper } : { imp: built, publisherId };
}

/** `ExtImpBidderPubmatic`'s own members, by lower-cased JSON name: its Go field, and how it is read. */
const OWN_MEMBERS: Readonly<Record<string, (value: unknown) => unknown>> = {
  data: (value) => value,
  // Its `ae` is an int, which shadows the embedded ExtImpBidder's int8 one.
  ae: (value) => goInt(value, ['pubmatic.ExtImpBidderPubmatic.AE']),
  gpid: (value) => goString(value, ['pubmatic.ExtImpBidderPubmatic.GpId']),
  skadn: (value) => value,
};

/**
 * `imp.ext` as Go decodes it into `ExtImpBidderPubmatic` (pubmatic.go), which embeds `adapters.ExtImpBidder`: members
 * matched ignoring case and read in the order written (the last of a name wins), the first of the wrong type failing
 * with json-iterator's text. `prebid` is the embedded typed `openrtb_ext.ExtImpPrebid` (read by the SDK's
 * `decodeExtImpBidder`; json-iterator names the embedded field by its own name, `Prebid`, not its struct's), `bidder`,
 * `data` and `skadn` raw JSON, `ae` an int, `gpid` a string. Returns the members by their lower-cased names.
 */
function decodeImpExt(ext: unknown): JsonObject {
  const object = goStruct(ext, []);
  const read: JsonObject = {};
  for (const key of Object.keys(object)) {
    const name = key.toLowerCase();
    const value = object[key];
    if (name === 'prebid') {
      const error = embeddedExtImpBidderError('prebid', value);
      if (error !== undefined) throw new GoDecodeError(error);
    } else if (name === 'bidder') {
      read.bidder = value;
    } else {
      const own = OWN_MEMBERS[name];
      if (own === undefined) continue;
      own(value);
      read[name] = value;
    }
  }
  return read;
}

/** PubMatic's params once decoded (`openrtb_ext.ExtImpPubmatic`); strings are empty when not given. */
interface PubmaticParams {
  publisherId: string;
  adSlot: string;
  dctr: string;
  pmZoneId: string;
  /** Raw JSON, decoded only while the request still needs a wrapper. */
  wrapper?: unknown;
  keywords: Array<[string, string[]]>;
  kadfloor: string;
}

const PARAMS = 'openrtb_ext.ExtImpPubmatic';
const KEYWORDS_SLICE = '[]*openrtb_ext.ExtImpPubmaticKeyVal';

/**
 * The params as json-iterator decodes them into `openrtb_ext.ExtImpPubmatic`: at the top of a decoding of their own
 * (so a failure there names no type), members matched ignoring case and read in the order written, the first that
 * does not fit failing with the decoder's text (e.g. `cannot unmarshal openrtb_ext.ExtImpPubmatic.PublisherId:
 * expects " or n, but found 5`).
 */
function readParams(bidder: unknown): PubmaticParams {
  const object = goStruct(bidder, []);
  const params: PubmaticParams = { publisherId: '', adSlot: '', dctr: '', pmZoneId: '', keywords: [], kadfloor: '' };
  const strings: Readonly<Record<string, readonly [Exclude<keyof PubmaticParams, 'wrapper' | 'keywords'>, string]>> = {
    publisherid: ['publisherId', 'PublisherId'],
    adslot: ['adSlot', 'AdSlot'],
    dctr: ['dctr', 'Dctr'],
    pmzoneid: ['pmZoneId', 'PmZoneID'],
    kadfloor: ['kadfloor', 'Kadfloor'],
  };
  for (const key of Object.keys(object)) {
    const name = key.toLowerCase();
    const value = object[key];
    const stringField = strings[name];
    if (stringField) params[stringField[0]] = goString(value, [`${PARAMS}.${stringField[1]}`]);
    else if (name === 'wrapper') params.wrapper = value;
    else if (name === 'keywords') params.keywords = keywordPairs(value);
  }
  return params;
}

/**
 * The OpenWrap wrapper (`profile`, `version`, integers; `biddercode` is read but PubMatic's own is sent), decoded on
 * its own into `pubmatic.pubmaticWrapperExt` as Go does: `null` is none, anything but an object fails.
 */
export function readWrapper(value: unknown): Wrapper | undefined {
  if (value === null) return undefined;
  const wrapper = goStruct(value, []);
  const field = (name: string) => [`pubmatic.pubmaticWrapperExt.${name}`];
  const read: Wrapper = { profile: 0, version: 0 };
  for (const key of Object.keys(wrapper)) {
    const name = key.toLowerCase();
    if (name === 'profile') read.profile = goInt(wrapper[key], field('ProfileID'));
    else if (name === 'version') read.version = goInt(wrapper[key], field('VersionID'));
    else if (name === 'biddercode') goString(wrapper[key], field('BidderCode'));
  }
  return read;
}

/**
 * An ad slot is `name` or `name@WxH` (optionally `name@WxH:suffix`): the name becomes the tag id and, for banners,
 * the size becomes the banner's size.
 */
function applyAdSlot(imp: Imp, adSlot: string): string | undefined {
  if (adSlot === '') return undefined;
  if (!adSlot.includes('@')) {
    imp.tagid = adSlot;
    return undefined;
  }
  const parts = adSlot.split('@');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return `Invalid adSlot ${adSlot}`;
  imp.tagid = parts[0]!.trim();

  const dimensions = parts[1]!.toLowerCase().split('x');
  if (dimensions.length !== 2) return `Invalid size provided in adSlot ${adSlot}`;
  const width = goAtoi(dimensions[0]!.trim());
  if (width === undefined) return `Invalid width provided in adSlot ${adSlot}`;
  const height = goAtoi(dimensions[1]!.split(':')[0]!.trim());
  if (height === undefined) return `Invalid height provided in adSlot ${adSlot}`;
  // A video's size comes from its player.
  if (imp.banner) imp.banner = { ...imp.banner, w: width, h: height };
  return undefined;
}

/**
 * PubMatic needs `banner.w` and `h`: unless both are set (`null` is unset, as in Go), the first format gives them (a
 * `null` format is Go's zero format, 0x0).
 */
function withBannerSize(banner: Banner): Banner | undefined {
  if (banner.w != null && banner.h != null) return banner;
  const formats = Array.isArray(banner.format) ? banner.format : [];
  if (formats.length === 0) return undefined;
  const first: { w?: number; h?: number } = isJsonObject(formats[0]) ? formats[0] : {};
  return { ...banner, w: first.w ?? 0, h: first.h ?? 0 };
}

function buildImpExt(impExt: JsonObject, params: PubmaticParams): JsonObject {
  const ext: JsonObject = {};
  for (const [key, values] of params.keywords) {
    if (values.length > 0) ext[key === LEGACY_ZONE_KEY ? ZONE_KEY : key] = values.join(',');
  }
  // The dedicated params win over keywords of the same name.
  if (params.dctr !== '') ext[DEALS_TARGETING_KEY] = params.dctr;
  if (params.pmZoneId !== '') ext[ZONE_KEY] = params.pmZoneId;

  if (isJsonObject(impExt.data)) addImpFirstPartyData(impExt.data, ext);
  if (typeof impExt.ae === 'number' && impExt.ae !== 0) ext.ae = impExt.ae;
  if (typeof impExt.gpid === 'string' && impExt.gpid !== '') ext.gpid = impExt.gpid;
  // Raw JSON: any value that is there is passed on, `null` included.
  if (impExt.skadn !== undefined) ext.skadn = impExt.skadn;
  return ext;
}

/**
 * `keywords`: a list of `{key, value[]}` (`[]*openrtb_ext.ExtImpPubmaticKeyVal`; entries that are `null` are
 * skipped), decoded with json-iterator's texts.
 */
function keywordPairs(keywords: unknown): Array<[string, string[]]> {
  const links = [`${PARAMS}.Keywords`];
  const inSlice = [...links, KEYWORDS_SLICE];
  return goSlice(keywords, links, KEYWORDS_SLICE).flatMap((entry): Array<[string, string[]]> => {
    if (entry === null) return [];
    const keyword = goStruct(entry, inSlice);
    let key = '';
    let values: string[] = [];
    for (const member of Object.keys(keyword)) {
      const name = member.toLowerCase();
      if (name === 'key') key = goString(keyword[member], [...inSlice, 'openrtb_ext.ExtImpPubmaticKeyVal.Key']);
      else if (name === 'value') {
        const valueLinks = [...inSlice, 'openrtb_ext.ExtImpPubmaticKeyVal.Values'];
        values = goSlice(keyword[member], valueLinks, '[]string').map((value) => goString(value, [...valueLinks, '[]string']));
      }
    }
    return [[key, values]];
  });
}

/**
 * `imp.ext.data` gives the ad unit code (the GAM ad slot, else the Prebid ad slot) and deal targeting: every other
 * attribute becomes a `key=value` pair of `key_val`, after what `dctr` already holds, pairs separated by `|` (a
 * separator is written before each attribute, even one whose value is not a string, number, boolean or list of
 * strings and so adds nothing; one trailing `|` is trimmed), list values joined by `,`.
 */
function addImpFirstPartyData(data: JsonObject, ext: JsonObject): void {
  const adserver = isJsonObject(data.adserver) ? data.adserver : {};
  if (adserver.name === 'gam' && typeof adserver.adslot === 'string' && adserver.adslot !== '') ext[AD_UNIT_KEY] = adserver.adslot;
  if (ext[AD_UNIT_KEY] === undefined && typeof data.pbadslot === 'string') ext[AD_UNIT_KEY] = data.pbadslot;

  let dctr = typeof ext[DEALS_TARGETING_KEY] === 'string' ? (ext[DEALS_TARGETING_KEY] as string) : '';
  for (const [rawKey, value] of Object.entries(data)) {
    if (rawKey === 'pbadslot' || rawKey === 'adserver') continue;
    if (dctr.length > 0) dctr += '|';
    const text = targetingText(value);
    if (text !== undefined) dctr += `${rawKey.trim()}=${text}`;
  }
  if (dctr !== '') ext[DEALS_TARGETING_KEY] = dctr.endsWith('|') ? dctr.slice(0, -1) : dctr;
}

/** A value as Go's `%v` prints it: strings trimmed, numbers in Go's shortest form, lists of strings joined. */
function targetingText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return goNumberText(value);
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) return value.map((item: string) => item.trim()).join(',');
  return undefined;
}

/** Go's `%v` of a float64: the shortest digits, in exponent form (`1e+06`, `1.5e-05`) below 1e-4 and from 1e6 on. */
function goNumberText(value: number): string {
  const [mantissa, exponentText] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (value !== 0 && (exponent < -4 || exponent >= 6)) {
    const sign = exponent < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return String(value);
}

/** Go's `strconv.Atoi`: an optional sign and decimal digits only. */
function goAtoi(text: string): number | undefined {
  return /^[+-]?\d+$/.test(text) ? Number(text) : undefined;
}
