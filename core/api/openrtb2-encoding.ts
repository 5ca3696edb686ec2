import { isJsonObject, type JsonObject } from './helpers.js';
import type { BidRequest } from './openrtb.js';

/**
 * How Prebid Server's Go structs (`openrtb2`, prebid/openrtb v20) write a request back out. A Go adapter never sees
 * JSON: the request was decoded into structs, and whatever the adapter sends is those structs encoded again. So a
 * member the struct has no field for is gone, and a field tagged `omitempty` whose value is zero (0, "", false, an
 * empty list, `null`) is left out; a field Go holds as a pointer (`imp.secure`, `video.w`, `device.dnt`) keeps an
 * explicit 0, and a `null` one is left out. `ext` members are raw JSON and go as they are.
 */
/** How a field keeps a zero: left out (`omitempty` on a value), kept (a pointer; `null` left out), or always written. */
const enum Zero {
  Omitted,
  Kept,
  Always,
}

interface GoField {
  zero: Zero;
  /** The struct the field holds (or a list of), when this table describes it. */
  nested?: GoStruct;
  /** `ext`: raw JSON, written as it came unless `null`. */
  raw?: true;
}

/** A Go struct's fields by JSON name. */
type GoStruct = ReadonlyMap<string, GoField>;

/** A struct from its field names; in `keepZero`, a name marked `!` is a field without `omitempty`. */
function struct(fields: string, keepZero = '', nested: Record<string, GoStruct> = {}): GoStruct {
  const names = (list: string) => list.split(/\s+/).filter(Boolean);
  const zeros = new Map(names(keepZero).map((name) => (name.startsWith('!') ? [name.slice(1), Zero.Always] : [name, Zero.Kept])));
  const shape = new Map<string, GoField>(names(fields).map((name) => [name, { zero: zeros.get(name) ?? Zero.Omitted, ...(nested[name] && { nested: nested[name] }) }]));
  shape.set('ext', { zero: Zero.Kept, raw: true });
  return shape;
}

const FORMAT = struct('w h wratio hratio wmin');
const BANNER = struct('format w h wmax hmax wmin hmin btype battr pos mimes topframe expdir api id vcm', 'w h wmax hmax wmin hmin pos', { format: FORMAT });
const VIDEO = struct(
  'mimes minduration maxduration startdelay maxseq poddur protocols protocol w h podid podseq rqddurs placement plcmt linearity skip '
    + 'skipmin skipafter sequence slotinpod mincpmpersec battr maxextended minbitrate maxbitrate boxingallowed playbackmethod playbackend '
    + 'delivery pos companionad api companiontype poddedupe durfloors',
  '!mimes startdelay w h skip boxingallowed pos',
  { companionad: BANNER },
);
const AUDIO = struct(
  'mimes minduration maxduration poddur protocols startdelay rqddurs podid podseq sequence slotinpod mincpmpersec battr maxextended '
    + 'minbitrate maxbitrate delivery companionad api companiontype maxseq feed stitched nvol durfloors',
  '!mimes startdelay nvol',
  { companionad: BANNER },
);
const NATIVE = struct('request ver api battr', '!request');
const DEAL = struct('id bidfloor bidfloorcur at wseat wadomain guar mincpmpersec durfloors', '!id');
const PMP = struct('private_auction deals', '', { deals: DEAL });
const METRIC = struct('type value vendor', '!type !value');
const IMP = struct(
  'id metric banner video audio native pmp displaymanager displaymanagerver instl tagid bidfloor bidfloorcur clickbrowser secure '
    + 'iframebuster rwdd ssai exp qty dt refresh',
  '!id secure',
  { metric: METRIC, banner: BANNER, video: VIDEO, audio: AUDIO, native: NATIVE, pmp: PMP },
);

const SEGMENT = struct('id name value');
const DATA = struct('id name segment', '', { segment: SEGMENT });
const PUBLISHER = struct('id name cattax cat domain');
const PRODUCER = PUBLISHER;
const NETWORK = struct('id name domain');
const CONTENT = struct(
  'id episode title series season artist genre album isrc producer url cattax cat prodq videoquality context contentrating userrating '
    + 'qagmediarating keywords kwarray livestream sourcerelationship len language langb embeddable data network channel',
  'prodq videoquality livestream sourcerelationship embeddable',
  { producer: PRODUCER, data: DATA, network: NETWORK, channel: NETWORK },
);
const SITE = struct(
  'id name domain cattax cat sectioncat pagecat page ref search mobile privacypolicy publisher content keywords kwarray inventorypartnerdomain',
  'privacypolicy',
  { publisher: PUBLISHER, content: CONTENT },
);
const APP = struct(
  'id name bundle domain storeurl cattax cat sectioncat pagecat ver privacypolicy paid publisher content keywords kwarray inventorypartnerdomain',
  'privacypolicy',
  { publisher: PUBLISHER, content: CONTENT },
);
const GEO = struct('lat lon type accuracy lastfix ipservice country region regionfips104 metro city zip utcoffset', 'lat lon');
const BRAND_VERSION = struct('brand version', '!brand');
const USER_AGENT = struct('browsers platform mobile architecture bitness model source', 'mobile', { browsers: BRAND_VERSION, platform: BRAND_VERSION });
const DEVICE = struct(
  'geo dnt lmt ua sua ip ipv6 devicetype make model os osv hwv h w ppi pxratio js geofetch flashver language langb carrier mccmnc '
    + 'connectiontype ifa didsha1 didmd5 dpidsha1 dpidmd5 macsha1 macmd5',
  // js and geofetch: kept, in doubt, as sent.
  'dnt lmt connectiontype js geofetch',
  { geo: GEO, sua: USER_AGENT },
);
const UID = struct('id atype');
const EID = struct('inserter source matcher mm uids', '', { uids: UID });
const USER = struct('id buyeruid yob gender keywords kwarray customdata geo data consent eids', '', { geo: GEO, data: DATA, eids: EID });
const SCHAIN_NODE = struct('asi sid rid name domain hp', '!asi !sid hp');
const SCHAIN = struct('complete nodes ver', '!complete !nodes !ver', { nodes: SCHAIN_NODE });
const SOURCE = struct('fd tid pchain schain', 'fd', { schain: SCHAIN });
const REGS = struct('coppa gdpr us_privacy gpp gpp_sid', 'gdpr');

/** `dooh` is written as it came (not described here): its struct is too young for this table to vouch for. */
const REQUEST = struct(
  'id imp site app dooh device user test at tmax wseat bseat allimps cur wlang wlangb acat bcat cattax badv bapp source regs',
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

/** The member as Go writes it: `DROP` when it is left out, else its value (the same one when nothing in it changes). */
function encodeMember(value: unknown, field: GoField): unknown {
  if (value === null) return field.zero === Zero.Always ? value : DROP;
  if (field.raw || value === undefined) return value;
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
    const written = isJsonObject(item) ? encodeStruct(item, inner) : item;
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
