/**
 * Outbrain's native markup, read and written the way Prebid Server does: decoded by json-iterator into the OpenRTB
 * Native 1.2 response structs of `github.com/prebid/openrtb/v20/native1/response` (member names matched ignoring ASCII
 * case, a later duplicate decoded over the earlier one, unknown members dropped, a value of the wrong type an error in
 * the decoder's words), impression event trackers moved to the older `imptrackers`/`jstracker`, and encoded again with
 * Go's `encoding/json` rules (the struct's names and field order, `omitempty`, HTML-safe string escapes, raw `ext`
 * values as written).
 */
import { goCompactJson, GoDecodeError, goDecodeErrorText, goFieldNameMatches, parseJsonText, type JsonText } from '../../core/api/index.js';

type StructKind = { type: 'struct'; goType: string; fields: Field[]; pointer: boolean };
type Kind = { type: 'string' | 'int64' | 'int8' | 'int64Pointer' | 'raw' | 'strings' } | StructKind | { type: 'list'; sliceType: string; element: StructKind };

interface Field {
  /** The JSON name Go writes. */
  key: string;
  /** The Go field name, which the decoder's error texts give. */
  goName: string;
  kind: Kind;
  omitEmpty: boolean;
}

/** A decoded Go value: strings, integers, lists, structs (as ordered records), or `undefined` for nil. */
type GoValue = string | bigint | GoValue[] | GoStruct | RawJson | undefined;
type GoStruct = { [key: string]: GoValue };
/** A `json.RawMessage`: the value's text, written back as Go marshals it. */
class RawJson {
  constructor(readonly text: string) {}
}

const field = (key: string, goName: string, kind: Kind, omitEmpty = true): Field => ({ key, goName, kind, omitEmpty });
const scalar = (type: 'string' | 'int64' | 'int8' | 'int64Pointer' | 'raw' | 'strings'): Kind => ({ type });
const struct = (name: string, fields: Field[], pointer = true): StructKind => ({ type: 'struct', goType: `response.${name}`, fields, pointer });
const list = (element: StructKind): Kind => ({ type: 'list', sliceType: `[]${element.goType}`, element: { ...element, pointer: false } });
const ext = field('ext', 'Ext', scalar('raw'));

const LINK: Field[] = [field('url', 'URL', scalar('string'), false), field('clicktrackers', 'ClickTrackers', scalar('strings')), field('fallback', 'Fallback', scalar('string')), ext];
const ASSET = struct('Asset', [
  field('id', 'ID', scalar('int64Pointer')),
  field('required', 'Required', scalar('int8')),
  field('title', 'Title', struct('Title', [field('text', 'Text', scalar('string'), false), field('len', 'Len', scalar('int64')), ext])),
  field('img', 'Img', struct('Image', [field('type', 'Type', scalar('int64')), field('url', 'URL', scalar('string'), false), field('w', 'W', scalar('int64')), field('h', 'H', scalar('int64')), ext])),
  field('video', 'Video', struct('Video', [field('vasttag', 'VASTTag', scalar('string'), false)])),
  field('data', 'Data', struct('Data', [field('type', 'Type', scalar('int64')), field('len', 'Len', scalar('int64')), field('label', 'Label', scalar('string')), field('value', 'Value', scalar('string'), false), ext])),
  field('link', 'Link', struct('Link', LINK)),
  ext,
]);
const EVENT_TRACKER = struct('EventTracker', [
  field('event', 'Event', scalar('int64'), false),
  field('method', 'Method', scalar('int64'), false),
  field('url', 'URL', scalar('string')),
  field('customdata', 'CustomData', scalar('raw')),
  ext,
]);
const RESPONSE = struct('Response', [
  field('ver', 'Ver', scalar('string')),
  field('assets', 'Assets', list(ASSET)),
  field('assetsurl', 'AssetsURL', scalar('string')),
  field('dcourl', 'DCOURL', scalar('string')),
  field('link', 'Link', struct('Link', LINK, false), false),
  field('imptrackers', 'ImpTrackers', scalar('strings')),
  field('jstracker', 'JSTracker', scalar('string')),
  field('eventtrackers', 'EventTrackers', list(EVENT_TRACKER)),
  field('privacy', 'Privacy', scalar('string')),
  ext,
], false);

const EVENT_IMPRESSION = 1n;
const METHOD_IMAGE = 1n;
const METHOD_JS = 2n;

/**
 * The markup with its impression event trackers rewritten, or the reason it is not a native response: the text
 * Prebid Server passes on from its decoder (outbrain.go), e.g. `expect { or n, but found [` or
 * `cannot unmarshal response.Response.Ver: expects " or n, but found 1`.
 */
export function rewriteNativeMarkup(adm: string): { adm: string } | { error: string } {
  const parsed = parseJsonText(adm);
  if (parsed === undefined) return { error: unreadableMarkupText(adm) };
  let response: GoStruct;
  try {
    response = decodeStruct(parsed, RESPONSE, undefined, []);
  } catch (err) {
    if (err instanceof GoDecodeError) return { error: err.message };
    throw err;
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
  return { adm: encodeStruct(response, RESPONSE.fields) };
}

/**
 * Markup that is not JSON. json-iterator fails on the first character when it cannot start an object (nothing at
 * all reads as NUL); past that, its texts for broken JSON are not reproduced, and the parser's message stands in.
 */
function unreadableMarkupText(adm: string): string {
  const first = adm.replace(/^[ \t\n\r]+/, '')[0];
  if (first !== '{' && first !== 'n') return `expect { or n, but found ${first ?? '\u0000'}`;
  try {
    JSON.parse(adm);
  } catch (err) {
    return `cannot unmarshal response.Response: ${(err as Error).message}`;
  }
  return 'cannot unmarshal response.Response';
}

// ---------------------------------------------------------------------------------------------------------------
// Decoding, as json-iterator decodes: into the value already there, so a duplicate member adds to what came before
// ---------------------------------------------------------------------------------------------------------------

/** `links` is json-iterator's error chain down to this value: `<Type>.<Field>` for fields, `[]<Type>` for slices. */
function decodeStruct(node: JsonText, kind: StructKind, previous: GoStruct | undefined, links: readonly string[]): GoStruct {
  const decoded = previous ?? zeroStruct(kind.fields);
  // `null` leaves a struct as it is (a pointer to one is handled by the caller).
  if (node.kind === 'null') return decoded;
  if (node.kind !== 'object') fail(links, 'readObjectStart', `expect { or n, but found ${node.text[0]}`);
  for (const { key, value } of node.members) {
    const target = kind.fields.find((candidate) => goFieldNameMatches(key, candidate.key));
    if (target) decoded[target.key] = decodeValue(value, target.kind, decoded[target.key], [...links, `${kind.goType}.${target.goName}`]);
  }
  return decoded;
}

function decodeValue(node: JsonText, kind: Kind, previous: GoValue, links: readonly string[]): GoValue {
  switch (kind.type) {
    case 'string':
      // json-iterator reads a null string as "".
      if (node.kind === 'null') return '';
      if (node.kind !== 'string') fail(links, 'ReadString', `expects " or n, but found ${node.text[0]}`);
      return node.value;
    case 'int64':
    case 'int8':
      // A null number leaves the field as it was.
      return node.kind === 'null' ? previous : decodeInteger(node, kind.type, links);
    case 'int64Pointer':
      return node.kind === 'null' ? undefined : decodeInteger(node, 'int64', links);
    case 'raw':
      return node.kind === 'null' ? undefined : new RawJson(node.text);
    case 'strings':
      if (node.kind === 'null') return undefined;
      if (node.kind !== 'array') fail([...links, '[]string'], 'decode slice', `expect [ or n, but found ${node.text[0]}`);
      return node.items.map((item) => decodeValue(item, { type: 'string' }, undefined, [...links, '[]string']));
    case 'struct':
      if (kind.pointer && node.kind === 'null') return undefined;
      return decodeStruct(node, kind, previous as GoStruct | undefined, links);
    case 'list': {
      if (node.kind === 'null') return undefined;
      if (node.kind !== 'array') fail([...links, kind.sliceType], 'decode slice', `expect [ or n, but found ${node.text[0]}`);
      // The slice's elements are decoded over those of the previous one, as Go reuses its backing array.
      const before = (previous as GoStruct[] | undefined) ?? [];
      return node.items.map((item, i) => decodeStruct(item, kind.element, before[i], [...links, kind.sliceType]));
    }
  }
}

/**
 * An integer as json-iterator reads it, from its digits: anything but a number is an "unexpected character" (the
 * byte it prints is not valid UTF-8, written as U+FFFD), a fraction cannot be an integer, and a value beyond the
 * type's range overflows. An exponent is refused as a fraction is: json-iterator stops at the `e` and fails on it.
 */
function decodeInteger(node: JsonText, type: 'int64' | 'int8', links: readonly string[]): bigint {
  if (node.kind !== 'number') fail(links, 'readUint64', 'unexpected character: \ufffd');
  if (/[.eE]/.test(node.text)) fail(links, 'assertInteger', 'can not decode float as int');
  const value = BigInt(node.text);
  const magnitude = value < 0n ? -value : value;
  const limit = type === 'int8' ? 127n : 2n ** 63n - 1n;
  if (magnitude > (value < 0n ? limit + 1n : limit)) fail(links, type === 'int8' ? 'ReadInt8' : 'ReadInt64', `overflow: ${magnitude}`);
  return value;
}

function zeroStruct(fields: Field[]): GoStruct {
  const zero: GoStruct = {};
  for (const { key, kind } of fields) {
    if (kind.type === 'string') zero[key] = '';
    else if (kind.type === 'int64' || kind.type === 'int8') zero[key] = 0n;
    else if (kind.type === 'struct' && !kind.pointer) zero[key] = zeroStruct(kind.fields);
    else zero[key] = undefined;
  }
  return zero;
}

function fail(links: readonly string[], operation: string, detail: string): never {
  throw new GoDecodeError(goDecodeErrorText(links, operation, detail));
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
  if (value instanceof RawJson) return goCompactJson(value.text);
  if (kind.type === 'struct') return encodeStruct(value as GoStruct, kind.fields);
  if (kind.type === 'list') return `[${(value as GoStruct[]).map((item) => encodeStruct(item, kind.element.fields)).join(',')}]`;
  if (kind.type === 'strings') return `[${(value as string[]).map(goString).join(',')}]`;
  return typeof value === 'string' ? goString(value) : String(value);
}

/** Go's `omitempty`: nil, zero, the empty string and empty lists are left out; a pointer only when nil. */
function isEmpty(value: GoValue, kind: Kind): boolean {
  if (value === undefined) return true;
  if (kind.type === 'int64Pointer' || kind.type === 'struct') return false;
  return value === '' || value === 0n || (Array.isArray(value) && value.length === 0);
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
