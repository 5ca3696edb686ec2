import { isJsonObject, type BidRequest, type JsonObject } from '../../core/api/index.js';

/**
 * Prebid Server sends The Trade Desk the request as Go's OpenRTB 2.6 structs encode it: fields the structs do not
 * know are left out, and so are zero or empty values of fields marked `omitempty` (a field Go holds as a pointer,
 * such as `imp.secure` or `video.w`, keeps its zero). This reproduces that for the request's top level and its imps
 * with their media objects, which is where requests carry fields of their own; the other objects go as they are.
 */
interface StructShape {
  /** Every field the Go struct has. */
  fields: readonly string[];
  /** Fields that keep a zero value (pointers, or no `omitempty`). */
  keepZero: readonly string[];
  /** Fields holding a struct (or a list of them) this table also describes. */
  nested?: Readonly<Record<string, StructShape>>;
}

const FORMAT: StructShape = { fields: ['w', 'h', 'wratio', 'hratio', 'wmin', 'ext'], keepZero: [] };

const BANNER: StructShape = {
  fields: ['format', 'w', 'h', 'wmax', 'hmax', 'wmin', 'hmin', 'btype', 'battr', 'pos', 'mimes', 'topframe', 'expdir', 'api', 'id', 'vcm', 'ext'],
  keepZero: ['w', 'h', 'wmax', 'hmax', 'wmin', 'hmin', 'pos'],
  nested: { format: FORMAT },
};

const VIDEO: StructShape = {
  fields: [
    'mimes', 'minduration', 'maxduration', 'startdelay', 'maxseq', 'poddur', 'protocols', 'protocol', 'w', 'h', 'podid', 'podseq',
    'rqddurs', 'placement', 'plcmt', 'linearity', 'skip', 'skipmin', 'skipafter', 'sequence', 'slotinpod', 'mincpmpersec', 'battr',
    'maxextended', 'minbitrate', 'maxbitrate', 'boxingallowed', 'playbackmethod', 'playbackend', 'delivery', 'pos', 'companionad',
    'api', 'companiontype', 'poddedupe', 'durfloors', 'ext',
  ],
  keepZero: ['mimes', 'startdelay', 'w', 'h', 'skip', 'boxingallowed', 'pos'],
};

const AUDIO: StructShape = {
  fields: [
    'mimes', 'minduration', 'maxduration', 'poddur', 'protocols', 'startdelay', 'rqddurs', 'podid', 'podseq', 'sequence', 'slotinpod',
    'mincpmpersec', 'battr', 'maxextended', 'minbitrate', 'maxbitrate', 'delivery', 'companionad', 'api', 'companiontype', 'maxseq',
    'feed', 'stitched', 'nvol', 'durfloors', 'ext',
  ],
  keepZero: ['mimes', 'startdelay', 'nvol'],
};

const NATIVE: StructShape = { fields: ['request', 'ver', 'api', 'battr', 'ext'], keepZero: ['request'] };

const IMP: StructShape = {
  fields: [
    'id', 'metric', 'banner', 'video', 'audio', 'native', 'pmp', 'displaymanager', 'displaymanagerver', 'instl', 'tagid', 'bidfloor',
    'bidfloorcur', 'clickbrowser', 'secure', 'iframebuster', 'rwdd', 'ssai', 'exp', 'qty', 'dt', 'refresh', 'ext',
  ],
  keepZero: ['id', 'secure'],
  nested: { banner: BANNER, video: VIDEO, audio: AUDIO, native: NATIVE },
};

const REQUEST: StructShape = {
  fields: [
    'id', 'imp', 'site', 'app', 'dooh', 'device', 'user', 'test', 'at', 'tmax', 'wseat', 'bseat', 'allimps', 'cur', 'wlang', 'wlangb',
    'acat', 'bcat', 'cattax', 'badv', 'bapp', 'source', 'regs', 'ext',
  ],
  keepZero: ['id', 'imp'],
  nested: { imp: IMP },
};

export function asGoEncodes(request: BidRequest): BidRequest {
  return encode(request, REQUEST) as BidRequest;
}

function encode(object: JsonObject, shape: StructShape): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(object)) {
    if (!shape.fields.includes(key) || value === null || value === undefined) continue;
    if (!shape.keepZero.includes(key) && isZero(value)) continue;
    const inner = shape.nested?.[key];
    if (inner && Array.isArray(value)) result[key] = value.map((item) => (isJsonObject(item) ? encode(item, inner) : item));
    else if (inner && isJsonObject(value)) result[key] = encode(value, inner);
    else result[key] = value;
  }
  return result;
}

function isZero(value: unknown): boolean {
  return value === 0 || value === '' || value === false || (Array.isArray(value) && value.length === 0);
}
