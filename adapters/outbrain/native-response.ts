/**
 * Outbrain's native markup, read and written the way Prebid Server does: decoded into the OpenRTB Native 1.2
 * response structs of `github.com/prebid/openrtb/v20/native1/response` (unknown fields dropped, a value of the wrong
 * type is an error), impression event trackers moved to the older `imptrackers`/`jstracker`, and encoded again
 * with Go's `encoding/json` rules (struct field order, `omitempty`, HTML-safe string escapes).
 */
import { isJsonObject } from '../../core/api/index.js';

type Kind =
  | { type: 'string' | 'int64' | 'int8' | 'int64Pointer' | 'raw' | 'strings' }
  | { type: 'struct'; fields: Field[]; pointer: boolean }
  | { type: 'list'; fields: Field[] };

interface Field {
  key: string;
  kind: Kind;
  omitEmpty: boolean;
}

/** A decoded Go value: strings, numbers, lists, structs (as ordered records), or `undefined` for nil. */
type GoValue = string | number | GoValue[] | GoStruct | RawJson | undefined;
type GoStruct = { [key: string]: GoValue };
/** A `json.RawMessage`: the value is kept as it came and written back as JSON. */
class RawJson {
  constructor(readonly value: unknown) {}
}

const field = (key: string, kind: Kind, omitEmpty = true): Field => ({ key, kind, omitEmpty });
const scalar = (type: 'string' | 'int64' | 'int8' | 'int64Pointer' | 'raw' | 'strings'): Kind => ({ type });
const pointer = (fields: Field[]): Kind => ({ type: 'struct', fields, pointer: true });

const LINK: Field[] = [field('url', scalar('string'), false), field('clicktrackers', scalar('strings')), field('fallback', scalar('string')), field('ext', scalar('raw'))];
const ASSET: Field[] = [
  field('id', scalar('int64Pointer')),
  field('required', scalar('int8')),
  field('title', pointer([field('text', scalar('string'), false), field('len', scalar('int64')), field('ext', scalar('raw'))])),
  field('img', pointer([field('type', scalar('int64')), field('url', scalar('string'), false), field('w', scalar('int64')), field('h', scalar('int64')), field('ext', scalar('raw'))])),
  field('video', pointer([field('vasttag', scalar('string'), false)])),
  field('data', pointer([field('type', scalar('int64')), field('len', scalar('int64')), field('label', scalar('string')), field('value', scalar('string'), false), field('ext', scalar('raw'))])),
  field('link', pointer(LINK)),
  field('ext', scalar('raw')),
];
const EVENT_TRACKER: Field[] = [
  field('event', scalar('int64'), false),
  field('method', scalar('int64'), false),
  field('url', scalar('string')),
  field('customdata', scalar('raw')),
  field('ext', scalar('raw')),
];
const RESPONSE: Field[] = [
  field('ver', scalar('string')),
  field('assets', { type: 'list', fields: ASSET }),
  field('assetsurl', scalar('string')),
  field('dcourl', scalar('string')),
  field('link', { type: 'struct', fields: LINK, pointer: false }, false),
  field('imptrackers', scalar('strings')),
  field('jstracker', scalar('string')),
  field('eventtrackers', { type: 'list', fields: EVENT_TRACKER }),
  field('privacy', scalar('string')),
  field('ext', scalar('raw')),
];

const EVENT_IMPRESSION = 1;
const METHOD_IMAGE = 1;
const METHOD_JS = 2;

/** The markup with its impression event trackers rewritten, or the reason it is not a native response. */
export function rewriteNativeMarkup(adm: string): { adm: string } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(adm);
  } catch (err) {
    return { error: `cannot unmarshal native response: ${(err as Error).message}` };
  }
  let response: GoStruct;
  try {
    response = decodeStruct(parsed, RESPONSE, 'response');
  } catch (err) {
    return { error: (err as Error).message };
  }
  // The native-trk.js library that fires trackers does not read Native 1.2 event trackers.
  const impTrackers = (response.imptrackers as string[] | undefined) ?? [];
  for (const tracker of (response.eventtrackers as GoStruct[] | undefined) ?? []) {
    if (tracker.event !== EVENT_IMPRESSION) continue;
    if (tracker.method === METHOD_IMAGE) impTrackers.push(tracker.url as string);
    else if (tracker.method === METHOD_JS) response.jstracker = `<script src="${tracker.url as string}"></script>`;
  }
  if (impTrackers.length > 0) response.imptrackers = impTrackers;
  response.eventtrackers = undefined;
  return { adm: encodeStruct(response, RESPONSE) };
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding
// ---------------------------------------------------------------------------------------------------------------

function decodeStruct(value: unknown, fields: Field[], path: string): GoStruct {
  if (value === null || value === undefined) value = {};
  if (!isJsonObject(value)) throw new Error(`cannot unmarshal ${path}: expect { or n`);
  const decoded: GoStruct = {};
  for (const { key, kind } of fields) decoded[key] = decodeValue(value[key], kind, `${path}.${key}`);
  return decoded;
}

function decodeValue(value: unknown, kind: Kind, path: string): GoValue {
  const absent = value === undefined || value === null;
  switch (kind.type) {
    case 'string':
      if (absent) return '';
      if (typeof value === 'string') return value;
      break;
    case 'int64':
    case 'int8':
    case 'int64Pointer':
      if (absent) return kind.type === 'int64Pointer' ? undefined : 0;
      if (Number.isSafeInteger(value) && (kind.type !== 'int8' || ((value as number) >= -128 && (value as number) <= 127))) return value as number;
      break;
    case 'raw':
      return value === undefined ? undefined : new RawJson(value);
    case 'strings':
      if (absent) return undefined;
      if (Array.isArray(value) && value.every((item) => typeof item === 'string' || item === null)) return value.map((item) => item ?? '');
      break;
    case 'struct':
      if (absent) return kind.pointer ? undefined : decodeStruct({}, kind.fields, path);
      return decodeStruct(value, kind.fields, path);
    case 'list':
      if (absent) return undefined;
      if (Array.isArray(value)) return value.map((item, i) => decodeStruct(item, kind.fields, `${path}[${i}]`));
      break;
  }
  throw new Error(`cannot unmarshal ${path}: unexpected ${Array.isArray(value) ? 'array' : typeof value}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------------------------

function encodeStruct(struct: GoStruct, fields: Field[]): string {
  const members: string[] = [];
  for (const { key, kind, omitEmpty } of fields) {
    const value = struct[key];
    if (omitEmpty && isEmpty(value, kind)) continue;
    members.push(`${goString(key)}:${encodeValue(value, kind)}`);
  }
  return `{${members.join(',')}}`;
}

function encodeValue(value: GoValue, kind: Kind): string {
  if (value === undefined) return 'null';
  if (value instanceof RawJson) return goJson(value.value);
  if (kind.type === 'struct') return encodeStruct(value as GoStruct, kind.fields);
  if (kind.type === 'list') return `[${(value as GoStruct[]).map((item) => encodeStruct(item, kind.fields)).join(',')}]`;
  return goJson(value);
}

/** Go's `omitempty`: nil, zero, the empty string and empty lists are left out; a pointer only when nil. */
function isEmpty(value: GoValue, kind: Kind): boolean {
  if (value === undefined) return true;
  if (kind.type === 'int64Pointer' || kind.type === 'struct') return false;
  return value === '' || value === 0 || (Array.isArray(value) && value.length === 0);
}

/** Any JSON value as Go writes it: compact, HTML-safe strings. */
function goJson(value: unknown): string {
  if (typeof value === 'string') return goString(value);
  if (Array.isArray(value)) return `[${value.map(goJson).join(',')}]`;
  if (isJsonObject(value)) return `{${Object.entries(value).map(([key, item]) => `${goString(key)}:${goJson(item)}`).join(',')}}`;
  return JSON.stringify(value);
}

/** Go 1.22+ writes these short escapes; other control characters become \u00XX. */
const GO_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A string literal as Go's encoder writes it: `<`, `>`, `&`, U+2028/U+2029 and control characters as \u escapes. */
export function goString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (GO_ESCAPES[char]) out += GO_ESCAPES[char];
    else if (code < 0x20 || char === '<' || char === '>' || char === '&' || code === 0x2028 || code === 0x2029) {
      out += `\\u${code.toString(16).padStart(4, '0')}`;
    } else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else out += char;
  }
  return `${out}"`;
}
