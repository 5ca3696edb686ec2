import { GoDecodeError, goFloat, goInt, goSlice, goString, goStruct } from './go-decoding.js';
import { isJsonObject, type JsonObject } from './helpers.js';
import type { BidRequest } from './openrtb.js';

/**
 * Prebid Server's Go structs for the request (`openrtb2`, prebid/openrtb v20), as far as a request's JSON meets them.
 * Prebid Server decodes the request into them before anything else reads it, and a Go adapter sends them encoded
 * again. Decoding, a member whose JSON type the field cannot hold fails the request (`cannot unmarshal
 * openrtb2.Site.Publisher: expect { or n, but found 1`). Encoding, a member the struct has no field for is gone, and a
 * field tagged `omitempty` whose value is zero (0, "", false, an empty list, `null`) is left out; a field Go holds as
 * a pointer (`imp.secure`, `video.w`, `device.dnt`) keeps an explicit 0, and a `null` one is left out; a field
 * without `omitempty` (`video.mimes`, `native.request`, `deal.id`) is always written, as its zero when the JSON left it
 * out or wrote `null`. `ext` members are raw JSON and go as they are.
 */

/** How a field keeps a zero: left out (`omitempty` on a value), kept (a pointer; `null` left out), or always written. */
const enum Zero {
  Omitted,
  Kept,
  Always,
}

/** The JSON a field's Go type takes: string, integer, float, list of strings or integers, struct, list of structs, raw. */
type Kind = 's' | 'i' | 'f' | 'S' | 'I' | 'o' | 'O' | 'r';

interface GoField {
  zero: Zero;
  kind: Kind;
  /** `<package>.<Type>.<Field>`, as the decoder names the field in its errors. */
  link: string;
  /** Go's type of a list (`[]string`, `[]openrtb2.Format`), named for a failing element. */
  sliceType: string | undefined;
  /** The struct the field holds (or a list of), when this table describes it. */
  nested: GoStruct | undefined;
}

/** A Go struct's fields by JSON name. */
type GoStruct = ReadonlyMap<string, GoField>;

/** Each struct's Go type (`openrtb2.Imp`), for the list types that hold it. */
const STRUCT_NAMES = new Map<GoStruct, string>();

/**
 * Each struct's fields without `omitempty`, with the zero Go writes for them when the JSON left them out (or `null`):
 * Go always writes such a field, so a video without `mimes` goes with `"mimes": null` and a native without `request`
 * with `"request": ""`.
 */
const ALWAYS_WRITTEN = new Map<GoStruct, ReadonlyArray<readonly [name: string, zero: unknown]>>();

/** The JSON Go writes for a field of the kind holding its zero value: a nil slice or pointer is `null`. */
function goZeroOf(kind: Kind): unknown {
  if (kind === 's') return '';
  if (kind === 'i' || kind === 'f') return 0;
  return null;
}

/** Go's field names where they are not the JSON name with a capital first letter. */
const GO_NAMES: Readonly<Record<string, string>> = {
  id: 'ID', imp: 'Imp', tmax: 'TMax', at: 'AT', wseat: 'WSeat', bseat: 'BSeat', allimps: 'AllImps', wlang: 'WLang', wlangb: 'WLangB',
  acat: 'ACat', bcat: 'BCat', cattax: 'CatTax', badv: 'BAdv', bapp: 'BApp', dooh: 'DOOH', displaymanager: 'DisplayManager',
  displaymanagerver: 'DisplayManagerVer', tagid: 'TagID', bidfloor: 'BidFloor', bidfloorcur: 'BidFloorCur', clickbrowser: 'ClickBrowser',
  iframebuster: 'IframeBuster', pmp: 'PMP', ssai: 'SSAI', dt: 'DT', wratio: 'WRatio', hratio: 'HRatio', wmin: 'WMin', wmax: 'WMax',
  hmax: 'HMax', hmin: 'HMin', btype: 'BType', battr: 'BAttr', mimes: 'MIMEs', topframe: 'TopFrame', expdir: 'ExpDir', api: 'API',
  vcm: 'VCm', minduration: 'MinDuration', maxduration: 'MaxDuration', startdelay: 'StartDelay', maxseq: 'MaxSeq', poddur: 'PodDur',
  podid: 'PodID', podseq: 'PodSeq', rqddurs: 'RqdDurs', skipmin: 'SkipMin', skipafter: 'SkipAfter', slotinpod: 'SlotInPod',
  mincpmpersec: 'MinCPMPerSec', maxextended: 'MaxExtended', minbitrate: 'MinBitRate', maxbitrate: 'MaxBitRate',
  boxingallowed: 'BoxingAllowed', playbackmethod: 'PlaybackMethod', playbackend: 'PlaybackEnd', companionad: 'CompanionAd',
  companiontype: 'CompanionType', poddedupe: 'PodDedupe', durfloors: 'DurFloors', nvol: 'NVol', private_auction: 'PrivateAuction',
  wadomain: 'WADomain', sectioncat: 'SectionCat', pagecat: 'PageCat', privacypolicy: 'PrivacyPolicy', kwarray: 'KwArray',
  inventorypartnerdomain: 'InventoryPartnerDomain', storeurl: 'StoreURL', url: 'URL', isrc: 'ISRC', prodq: 'ProdQ',
  videoquality: 'VideoQuality', contentrating: 'ContentRating', userrating: 'UserRating', qagmediarating: 'QAGMediaRating',
  livestream: 'LiveStream', sourcerelationship: 'SourceRelationship', langb: 'LangB', lastfix: 'LastFix', ipservice: 'IPService',
  regionfips104: 'RegionFIPS104', utcoffset: 'UTCOffset', dnt: 'DNT', ua: 'UA', sua: 'SUA', ip: 'IP', ipv6: 'IPv6',
  devicetype: 'DeviceType', os: 'OS', osv: 'OSV', hwv: 'HWV', ppi: 'PPI', pxratio: 'PxRatio', js: 'JS', geofetch: 'GeoFetch',
  flashver: 'FlashVer', mccmnc: 'MCCMNC', connectiontype: 'ConnectionType', ifa: 'IFA', didsha1: 'DIDSHA1', didmd5: 'DIDMD5',
  dpidsha1: 'DPIDSHA1', dpidmd5: 'DPIDMD5', macsha1: 'MACSHA1', macmd5: 'MACMD5', buyeruid: 'BuyerUID', customdata: 'CustomData',
  eids: 'EIDs', uids: 'UIDs', atype: 'AType', mm: 'MM', fd: 'FD', tid: 'TID', pchain: 'PChain', schain: 'SChain', asi: 'ASI',
  sid: 'SID', rid: 'RID', hp: 'HP', coppa: 'COPPA', gdpr: 'GDPR', us_privacy: 'USPrivacy', gpp: 'GPP', gpp_sid: 'GPPSID',
};

/** Go's list types of integer fields (enums of adcom1 mostly), named in an element's error. */
const INTEGER_LIST_TYPES: Readonly<Record<string, string>> = {
  btype: '[]openrtb2.BannerAdType', battr: '[]adcom1.CreativeAttribute', expdir: '[]adcom1.ExpandableDirection',
  api: '[]adcom1.APIFramework', protocols: '[]adcom1.MediaCreativeSubtype', playbackmethod: '[]adcom1.PlaybackMethod',
  delivery: '[]adcom1.DeliveryMethod', companiontype: '[]adcom1.CompanionType', poddedupe: '[]adcom1.PodDedupe',
  rqddurs: '[]int64', gpp_sid: '[]int8',
};

/**
 * A struct from its fields, each `name:kind` (see Kind); in `keepZero`, a field Go holds as a pointer, or marked `!`,
 * one without `omitempty`. Nested structs are named by field.
 */
function struct(name: string, fields: string, keepZero = '', nested: Record<string, GoStruct> = {}): GoStruct {
  const names = (list: string) => list.split(/\s+/).filter(Boolean);
  const zeros = new Map(names(keepZero).map((field) => (field.startsWith('!') ? [field.slice(1), Zero.Always] : [field, Zero.Kept])));
  const shape = new Map<string, GoField>();
  for (const token of [...names(fields), 'ext:r']) {
    const [field, kind] = token.split(':') as [string, Kind];
    const goName = GO_NAMES[field] ?? field[0]!.toUpperCase() + field.slice(1);
    const inner = nested[field];
    const sliceType = kind === 'S' ? '[]string' : kind === 'I' ? (INTEGER_LIST_TYPES[field] ?? '[]int64') : kind === 'O' ? `[]${STRUCT_NAMES.get(inner!)}` : undefined;
    // Every field object has the same members, so that the walks read them from one shape.
    shape.set(field, { zero: field === 'ext' ? Zero.Kept : (zeros.get(field) ?? Zero.Omitted), kind, link: `${name}.${goName}`, sliceType, nested: inner });
  }
  STRUCT_NAMES.set(shape, name);
  const always = [...shape].filter(([, field]) => field.zero === Zero.Always).map(([field, { kind }]) => [field, goZeroOf(kind)] as const);
  if (always.length > 0) ALWAYS_WRITTEN.set(shape, always);
  return shape;
}

const FORMAT = struct('openrtb2.Format', 'w:i h:i wratio:i hratio:i wmin:i');
const BANNER = struct(
  'openrtb2.Banner',
  'format:O w:i h:i wmax:i hmax:i wmin:i hmin:i btype:I battr:I pos:i mimes:S topframe:i expdir:I api:I id:s vcm:i',
  // wmax, hmax, wmin and hmin are plain int64s (Prebid Server's banner validation compares them with 0).
  'w h pos',
  { format: FORMAT },
);
const VIDEO = struct(
  'openrtb2.Video',
  'mimes:S minduration:i maxduration:i startdelay:i maxseq:i poddur:i protocols:I protocol:i w:i h:i podid:s podseq:i rqddurs:I '
    + 'placement:i plcmt:i linearity:i skip:i skipmin:i skipafter:i sequence:i slotinpod:i mincpmpersec:f battr:I maxextended:i '
    + 'minbitrate:i maxbitrate:i boxingallowed:i playbackmethod:I playbackend:i delivery:I pos:i companionad:O api:I companiontype:I '
    + 'poddedupe:I durfloors:r',
  '!mimes startdelay w h skip boxingallowed pos',
  { companionad: BANNER },
);
const AUDIO = struct(
  'openrtb2.Audio',
  'mimes:S minduration:i maxduration:i poddur:i protocols:I startdelay:i rqddurs:I podid:s podseq:i sequence:i slotinpod:i '
    + 'mincpmpersec:f battr:I maxextended:i minbitrate:i maxbitrate:i delivery:I companionad:O api:I companiontype:I maxseq:i feed:i '
    + 'stitched:i nvol:i durfloors:r',
  '!mimes startdelay nvol',
  { companionad: BANNER },
);
const NATIVE = struct('openrtb2.Native', 'request:s ver:s api:I battr:I', '!request');
const DEAL = struct('openrtb2.Deal', 'id:s bidfloor:f bidfloorcur:s at:i wseat:S wadomain:S guar:i mincpmpersec:f durfloors:r', '!id');
const PMP = struct('openrtb2.PMP', 'private_auction:i deals:O', '', { deals: DEAL });
const METRIC = struct('openrtb2.Metric', 'type:s value:f vendor:s', '!type !value');
const IMP = struct(
  'openrtb2.Imp',
  'id:s metric:O banner:o video:o audio:o native:o pmp:o displaymanager:s displaymanagerver:s instl:i tagid:s bidfloor:f '
    + 'bidfloorcur:s clickbrowser:i secure:i iframebuster:S rwdd:i ssai:i exp:i qty:r dt:f refresh:r',
  '!id secure',
  { metric: METRIC, banner: BANNER, video: VIDEO, audio: AUDIO, native: NATIVE, pmp: PMP },
);

const SEGMENT = struct('openrtb2.Segment', 'id:s name:s value:s');
const DATA = struct('openrtb2.Data', 'id:s name:s segment:O', '', { segment: SEGMENT });
const PUBLISHER = struct('openrtb2.Publisher', 'id:s name:s cattax:i cat:S domain:s');
const PRODUCER = struct('openrtb2.Producer', 'id:s name:s cattax:i cat:S domain:s');
const NETWORK = struct('openrtb2.Network', 'id:s name:s domain:s');
const CHANNEL = struct('openrtb2.Channel', 'id:s name:s domain:s');
const CONTENT = struct(
  'openrtb2.Content',
  'id:s episode:i title:s series:s season:s artist:s genre:s album:s isrc:s producer:o url:s cattax:i cat:S prodq:i videoquality:i '
    + 'context:i contentrating:s userrating:s qagmediarating:i keywords:s kwarray:S livestream:i sourcerelationship:i len:i language:s '
    + 'langb:s embeddable:i data:O network:o channel:o',
  'prodq videoquality livestream sourcerelationship embeddable',
  { producer: PRODUCER, data: DATA, network: NETWORK, channel: CHANNEL },
);
const SITE = struct(
  'openrtb2.Site',
  'id:s name:s domain:s cattax:i cat:S sectioncat:S pagecat:S page:s ref:s search:s mobile:i privacypolicy:i publisher:o content:o '
    + 'keywords:s kwarray:S inventorypartnerdomain:s',
  'privacypolicy',
  { publisher: PUBLISHER, content: CONTENT },
);
const APP = struct(
  'openrtb2.App',
  'id:s name:s bundle:s domain:s storeurl:s cattax:i cat:S sectioncat:S pagecat:S ver:s privacypolicy:i paid:i publisher:o content:o '
    + 'keywords:s kwarray:S inventorypartnerdomain:s',
  'privacypolicy',
  { publisher: PUBLISHER, content: CONTENT },
);
const GEO = struct(
  'openrtb2.Geo',
  'lat:f lon:f type:i accuracy:i lastfix:i ipservice:i country:s region:s regionfips104:s metro:s city:s zip:s utcoffset:i',
  'lat lon',
);
const BRAND_VERSION = struct('openrtb2.BrandVersion', 'brand:s version:S', '!brand');
const USER_AGENT = struct(
  'openrtb2.UserAgent',
  'browsers:O platform:o mobile:i architecture:s bitness:s model:s source:i',
  'mobile',
  { browsers: BRAND_VERSION, platform: BRAND_VERSION },
);
const DEVICE = struct(
  'openrtb2.Device',
  'geo:o dnt:i lmt:i ua:s sua:o ip:s ipv6:s devicetype:i make:s model:s os:s osv:s hwv:s h:i w:i ppi:i pxratio:f js:i geofetch:i '
    + 'flashver:s language:s langb:s carrier:s mccmnc:s connectiontype:i ifa:s didsha1:s didmd5:s dpidsha1:s dpidmd5:s macsha1:s macmd5:s',
  // js and geofetch: kept, in doubt, as sent.
  'dnt lmt connectiontype js geofetch',
  { geo: GEO, sua: USER_AGENT },
);
const UID = struct('openrtb2.UID', 'id:s atype:i');
const EID = struct('openrtb2.EID', 'inserter:s source:s matcher:s mm:i uids:O', '', { uids: UID });
const USER = struct(
  'openrtb2.User',
  'id:s buyeruid:s yob:i gender:s keywords:s kwarray:S customdata:s geo:o data:O consent:s eids:O',
  '',
  { geo: GEO, data: DATA, eids: EID },
);
const SCHAIN_NODE = struct('openrtb2.SupplyChainNode', 'asi:s sid:s rid:s name:s domain:s hp:i', '!asi !sid hp');
const SCHAIN = struct('openrtb2.SupplyChain', 'complete:i nodes:O ver:s', '!complete !nodes !ver', { nodes: SCHAIN_NODE });
const SOURCE = struct('openrtb2.Source', 'fd:i tid:s pchain:s schain:o', 'fd', { schain: SCHAIN });
const REGS = struct('openrtb2.Regs', 'coppa:i gdpr:i us_privacy:s gpp:s gpp_sid:I', 'gdpr');

/** `dooh` goes as it came (raw here): its struct is too young in prebid/openrtb for this table to vouch for. */
const REQUEST = struct(
  'openrtb2.BidRequest',
  'id:s imp:O site:o app:o dooh:r device:o user:o test:i at:i tmax:i wseat:S bseat:S allimps:i cur:S wlang:S wlangb:S acat:S bcat:S '
    + 'cattax:i badv:S bapp:S source:o regs:o',
  '!id !imp',
  { imp: IMP, site: SITE, app: APP, device: DEVICE, user: USER, source: SOURCE, regs: REGS },
);

/**
 * The request as `openrtb2.BidRequest` encodes it once a Go adapter has it: unknown members and zero `omitempty`
 * fields left out at every level this table knows, `ext` untouched. The request is not changed: the top level is a
 * new object (an adapter may set members on it), and below it a branch with nothing to leave out is the request's
 * own, shared, so that a request Go would send as it is costs a walk and one copy.
 */
export function encodeAsOpenrtb2Request(request: BidRequest): BidRequest {
  const object = request as unknown as JsonObject;
  const encoded = encodeStruct(object, REQUEST);
  return (encoded === object ? { ...object } : encoded) as unknown as BidRequest;
}

/**
 * A supply chain as Go writes `openrtb2.SupplyChain`, for an adapter that forwards one it decoded into that struct
 * outside the request's own fields (a request `ext.schain`): `complete`, `nodes` and `ver` always, each node's `asi`
 * and `sid` always, unknown members dropped. The object itself when nothing changes.
 */
export function encodeAsOpenrtb2SupplyChain(schain: JsonObject): JsonObject {
  return encodeStruct(schain, SCHAIN);
}

/**
 * A list of eids as Go writes `[]openrtb2.EID`, for one moved out of the request's own field (`user.eids` into
 * `user.ext.eids` for an OpenRTB 2.5 bidder): members the structs lack dropped. The list itself when nothing changes.
 */
export function encodeAsOpenrtb2Eids(eids: unknown[]): unknown[] {
  return encodeList(eids, EID);
}

/** The member as Go writes it: `DROP` when it is left out, else its value (the same one when nothing in it changes). */
function encodeMember(value: unknown, field: GoField): unknown {
  if (value === null) return field.zero === Zero.Always ? goZeroOf(field.kind) : DROP;
  if (field.kind === 'r' || value === undefined) return value;
  if (field.zero === Zero.Omitted && isGoZero(value)) return DROP;
  const inner = field.nested;
  if (inner === undefined) return value;
  if (Array.isArray(value)) return encodeList(value, inner);
  return isJsonObject(value) ? encodeStruct(value, inner) : value;
}

const DROP = Symbol('dropped');

/** The object as Go writes the struct, or the object itself when that changes nothing. */
function encodeStruct(object: JsonObject, shape: GoStruct): JsonObject {
  let out: JsonObject | undefined;
  // Parsed JSON: plain objects, every enumerable member their own.
  for (const key in object) {
    const value = object[key];
    let name = key;
    let field = shape.get(key);
    // Go matches a member to its field ignoring case, and writes the field's own name.
    if (field === undefined) field = shape.get((name = key.toLowerCase()));
    const written = field === undefined ? DROP : encodeMember(value, field);
    if (out === undefined) {
      if (written === value && name === key) continue;
      out = copyUpTo(object, key);
    }
    if (written !== DROP && written !== undefined) out[name] = written;
  }
  for (const [name, zero] of ALWAYS_WRITTEN.get(shape) ?? []) {
    if ((out ?? object)[name] !== undefined) continue;
    out ??= { ...object };
    out[name] = zero;
  }
  return out ?? object;
}

/** The object's own members before `key`, which were all written as they are. */
function copyUpTo(object: JsonObject, key: string): JsonObject {
  const copy: JsonObject = {};
  for (const earlier in object) {
    if (earlier === key) break;
    copy[earlier] = object[earlier];
  }
  return copy;
}

function encodeList(list: unknown[], inner: GoStruct): unknown[] {
  let out: unknown[] | undefined;
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    // A `null` element decodes to the zero struct, which Go writes as an object.
    const written = isJsonObject(item) ? encodeStruct(item, inner) : item === null ? encodeStruct({}, inner) : item;
    if (out === undefined) {
      if (written === item) continue;
      out = list.slice(0, index);
    }
    out.push(written);
  }
  return out ?? list;
}

/** What `omitempty` counts as empty for a value: 0, "", false, an empty list. */
function isGoZero(value: unknown): boolean {
  return value === 0 || value === '' || value === false || (Array.isArray(value) && value.length === 0);
}

/** Where a member sits while the request is decoded: enough to spell its path and the decoder's chain on failure. */
interface Place {
  up: Place | undefined;
  /** The JSON key, or the index in a list. */
  key: string | number;
  /** The decoder's link for this step: a field (`openrtb2.Imp.Banner`) or a list's type (`[]openrtb2.Imp`). */
  link: string;
}

/** What a JSON value of the wrong kind reads as in `request...` terms (Gavel's half of the message). */
const KIND_NOUNS: Readonly<Record<Kind, string>> = {
  s: 'a string', i: 'an integer', f: 'a number', S: 'a list of strings', I: 'a list of integers', o: 'an object', O: 'a list of objects', r: 'JSON',
};

/**
 * The first member of the request whose JSON type its openrtb2 field cannot hold, in Prebid Server's words and order
 * (members as they come, depth first: json-iterator stops at the first), followed by the field's path; undefined
 * when the request decodes. `ext` members are raw JSON here: they are read, and checked, where they are used.
 */
export function openrtb2DecodeProblem(request: JsonObject): string | undefined {
  try {
    decodeStruct(request, REQUEST, undefined);
    return undefined;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

function decodeStruct(object: JsonObject, shape: GoStruct, up: Place | undefined): void {
  for (const key in object) {
    const value = object[key];
    if (value === null || value === undefined) continue;
    const field = shape.get(key) ?? shape.get(key.toLowerCase());
    if (field === undefined || field.kind === 'r') continue;
    decodeValue(value, field, up, key);
  }
}

/** A member at `key` below `up`; its own place is made only when it has members of its own, or fails. */
function decodeValue(value: unknown, field: GoField, up: Place | undefined, key: string): void {
  switch (field.kind) {
    case 's':
      if (typeof value !== 'string') refuse({ up, key, link: field.link }, field.kind, (links) => goString(value, links));
      return;
    case 'i':
      if (typeof value !== 'number' || !Number.isInteger(value)) refuse({ up, key, link: field.link }, field.kind, (links) => goInt(value, links));
      return;
    case 'f':
      if (typeof value !== 'number') refuse({ up, key, link: field.link }, field.kind, (links) => goFloat(value, links));
      return;
    case 'o':
      if (!isJsonObject(value)) refuse({ up, key, link: field.link }, field.kind, (links) => goStruct(value, links));
      else decodeStruct(value, field.nested!, { up, key, link: field.link });
      return;
    default:
      if (!Array.isArray(value)) refuse({ up, key, link: field.link }, field.kind, (links) => goSlice(value, links, field.sliceType!));
      else decodeList(value, field, { up, key, link: field.link });
  }
}

function decodeList(list: unknown[], field: GoField, place: Place): void {
  for (let index = 0; index < list.length; index++) {
    const item = list[index];
    if (item === null) continue;
    if (field.kind === 'O') {
      if (!isJsonObject(item)) refuse({ up: place, key: index, link: field.sliceType! }, 'o', (links) => goStruct(item, links));
      else decodeStruct(item, field.nested!, { up: place, key: index, link: field.sliceType! });
    } else if (field.kind === 'S') {
      if (typeof item !== 'string') refuse({ up: place, key: index, link: field.sliceType! }, 's', (links) => goString(item, links));
    } else if (typeof item !== 'number' || !Number.isInteger(item)) {
      refuse({ up: place, key: index, link: field.sliceType! }, 'i', (links) => goInt(item, links));
    }
  }
}

/** Throws the decoder's error for the member at `place` (through the SDK's json-iterator readers), with its path. */
function refuse(place: Place, kind: Kind, read: (links: string[]) => unknown): never {
  const links: string[] = [];
  const path: Array<string | number> = [];
  for (let step: Place | undefined = place; step !== undefined; step = step.up) {
    links.unshift(step.link);
    path.unshift(step.key);
  }
  // A list's element has its list's field and the list's type as links; its own key is an index.
  try {
    read(links);
  } catch (err) {
    if (!(err instanceof GoDecodeError)) throw err;
    const spelled = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${key}`)).join('');
    throw new GoDecodeError(`${err.message} (request${spelled} must be ${KIND_NOUNS[kind]})`);
  }
  throw new Error(`no decoder error for request member of kind ${kind}`);
}

const MERGE_SHAPES = { site: SITE, app: APP, user: USER, device: DEVICE, imp: IMP } as const;

/**
 * `base` (the request's `site`, `app`, `user` or `device`, an imp, or undefined) with `patch` laid over it as Prebid Server's
 * jsonutil.MergeClone decodes a JSON object onto a copy of the struct: a member the struct has no field for is
 * ignored; objects merge member by member and lists are replaced; `null` empties a string, list, object or pointer
 * field but leaves a plain number (`device.w`) and an `ext` as they were; an `ext` is merged as a JSON merge patch
 * (taken as it is where there was none). The patch must decode into the struct (openrtb2DecodeProblem). Copies only
 * the branches it changes.
 */
export function mergeOpenrtb2Member(part: keyof typeof MERGE_SHAPES, base: JsonObject | undefined, patch: JsonObject): JsonObject {
  return mergeStruct(base ?? {}, patch, MERGE_SHAPES[part]);
}

function mergeStruct(base: JsonObject, patch: JsonObject, shape: GoStruct): JsonObject {
  const result: JsonObject = { ...base };
  for (const key in patch) {
    const name = shape.has(key) ? key : key.toLowerCase();
    const field = shape.get(name);
    if (field === undefined) continue;
    const value = patch[key];
    const current = result[name];
    if (value === null) {
      // Go's decoder leaves a plain number as it was on `null`, and Prebid Server's merge keeps an ext.
      if (field.kind === 'r' || ((field.kind === 'i' || field.kind === 'f') && field.zero !== Zero.Kept)) continue;
      delete result[name];
    } else if (field.kind === 'r') {
      result[name] = current === undefined || current === null ? value : jsonMergePatchGo(current, value);
    } else if (field.kind === 'o' && isJsonObject(value)) {
      result[name] = field.nested ? mergeStruct(isJsonObject(current) ? current : {}, value, field.nested) : value;
    } else {
      result[name] = value;
    }
  }
  return result;
}

/**
 * RFC 7396 merge patch as Prebid Server's json-patch library applies it: a member new to the document comes with the
 * `null`s inside its objects (also objects in lists) dropped; a member that replaces one comes as it is.
 */
export function jsonMergePatchGo(document: unknown, patch: unknown): unknown {
  if (!isJsonObject(document)) return withoutNulls(patch);
  if (!isJsonObject(patch)) return patch;
  const result: JsonObject = { ...document };
  for (const key in patch) {
    const value = patch[key];
    if (value === null) delete result[key];
    else if (Object.hasOwn(result, key) && result[key] !== null) result[key] = jsonMergePatchGo(result[key], value);
    else result[key] = withoutNulls(value);
  }
  return result;
}

/** The value with the `null` members of its objects dropped, at any depth (`null` items of lists stay). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.some((item) => item !== null && typeof item === 'object') ? value.map(withoutNulls) : value;
  if (!isJsonObject(value)) return value;
  const result: JsonObject = {};
  for (const key in value) if (value[key] !== null) result[key] = withoutNulls(value[key]);
  return result;
}
