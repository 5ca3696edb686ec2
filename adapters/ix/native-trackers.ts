/**
 * Index Exchange answers native bids with OpenRTB Native 1.2 markup whose impression pixels may sit only in
 * `eventtrackers`. Older renderers read `imptrackers` alone, so every image impression tracker is copied into
 * `imptrackers` (deduplicated, sorted), and the markup is written back as Prebid Server writes it: decoded into the
 * Native response structs and encoded again (spec field order, unknown fields dropped, empty optional ones left out,
 * HTML characters not escaped). Markup that does not decode is left as it is.
 */
import { isJsonObject, type JsonObject } from '../../core/api/index.js';

/** Native 1.2 event type "impression" and tracking method "image pixel". */
const IMPRESSION_EVENT = 1;
const IMAGE_PIXEL_METHOD = 1;

/** A Go struct field: its JSON kind and whether `omitempty` leaves its zero value out. */
/** `intPointer` is Go's `*int64`: a 0 that is there is kept. */
type Kind = 'string' | 'integer' | 'intPointer' | 'strings' | 'stringMap' | 'raw' | Shape | { list: Shape };
interface Field {
  key: string;
  kind: Kind;
  omitEmpty: boolean;
}
type Shape = Field[];

const field = (key: string, kind: Kind, omitEmpty = true): Field => ({ key, kind, omitEmpty });

const LINK: Shape = [field('url', 'string', false), field('clicktrackers', 'strings'), field('fallback', 'string'), field('ext', 'raw')];
const ASSET: Shape = [
  field('id', 'intPointer'),
  field('required', 'integer'),
  field('title', [field('text', 'string', false), field('len', 'integer'), field('ext', 'raw')]),
  field('img', [field('type', 'integer'), field('url', 'string', false), field('w', 'integer'), field('h', 'integer'), field('ext', 'raw')]),
  field('video', [field('vasttag', 'string', false), field('ext', 'raw')]),
  field('data', [field('type', 'integer'), field('len', 'integer'), field('value', 'string', false), field('ext', 'raw')]),
  field('link', LINK),
  field('ext', 'raw'),
];
const EVENT_TRACKER: Shape = [
  field('event', 'integer', false),
  field('method', 'integer', false),
  field('url', 'string'),
  field('customdata', 'stringMap'),
  field('ext', 'raw'),
];
const NATIVE_RESPONSE: Shape = [
  field('ver', 'string'),
  field('assets', { list: ASSET }),
  field('assetsurl', 'string'),
  field('dcourl', 'string'),
  field('link', LINK, false),
  field('imptrackers', 'strings'),
  field('jstracker', 'string'),
  field('eventtrackers', { list: EVENT_TRACKER }),
  field('privacy', 'string'),
  field('ext', 'raw'),
];
/** Native 1.1 markup wraps the response in a `native` object. */
const NATIVE_WRAPPER: Shape = [field('native', NATIVE_RESPONSE, false)];

class Undecodable extends Error {}

/**
 * Decodes `value` as Go decodes JSON into the struct `shape` describes (a `null` or absent field is its zero value,
 * a value of another JSON type fails), and encodes it back.
 */
function reencode(value: unknown, shape: Shape): JsonObject {
  if (value !== null && value !== undefined && !isJsonObject(value)) throw new Undecodable();
  const source = value ?? {};
  const encoded: JsonObject = {};
  for (const { key, kind, omitEmpty } of shape) {
    const decoded = decodeField(source[key], kind);
    if (decoded === undefined) {
      if (!omitEmpty) encoded[key] = zeroValue(kind);
    } else {
      encoded[key] = decoded;
    }
  }
  return encoded;
}

/** A field's decoded value, or undefined when Go holds its zero value there (which `omitempty` leaves out). */
function decodeField(value: unknown, kind: Kind): unknown {
  if (kind === 'raw') return value === undefined ? undefined : value;
  if (value === undefined || value === null) return undefined;
  if (kind === 'string') return expect(typeof value === 'string', value || undefined);
  if (kind === 'integer') return expect(Number.isInteger(value), value || undefined);
  if (kind === 'intPointer') return expect(Number.isInteger(value), value);
  if (kind === 'strings') return expect(Array.isArray(value) && value.every((item) => item === null || typeof item === 'string'), (value as unknown[]).length > 0 ? (value as unknown[]).map((item) => item ?? '') : undefined);
  if (kind === 'stringMap') return expect(isJsonObject(value) && Object.values(value).every((item) => item === null || typeof item === 'string'), Object.keys(value as object).length > 0 ? value : undefined);
  if ('list' in kind) {
    if (!Array.isArray(value)) throw new Undecodable();
    return value.length > 0 ? value.map((item) => reencode(item, kind.list)) : undefined;
  }
  return reencode(value, kind);
}

function expect<T>(fits: boolean, value: T): T {
  if (!fits) throw new Undecodable();
  return value;
}

function zeroValue(kind: Kind): unknown {
  if (kind === 'string') return '';
  if (kind === 'integer' || kind === 'intPointer') return 0;
  if (kind === 'raw' || kind === 'strings' || kind === 'stringMap' || 'list' in kind) return null;
  return reencode({}, kind);
}

/** Image impression pixels of the event trackers merged into `imptrackers`, deduplicated and sorted. */
function withMergedImpressionTrackers(native: JsonObject): JsonObject {
  const urls = new Set<string>(Array.isArray(native.imptrackers) ? (native.imptrackers as string[]) : []);
  for (const tracker of native.eventtrackers as JsonObject[]) {
    if (tracker.event === IMPRESSION_EVENT && tracker.method === IMAGE_PIXEL_METHOD) urls.add((tracker.url as string | undefined) ?? '');
  }
  const merged: JsonObject = {};
  // Re-encoded in field order: imptrackers sits where the spec puts it, and an empty list is left out.
  for (const { key } of NATIVE_RESPONSE) {
    if (key === 'imptrackers') {
      if (urls.size > 0) merged.imptrackers = [...urls].sort();
    } else if (key in native) merged[key] = native[key];
  }
  return merged;
}

/** Go's encoder with HTML escaping off: JSON.stringify, but U+2028 and U+2029 escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function hasEventTrackers(native: JsonObject): boolean {
  return Array.isArray(native.eventtrackers) && native.eventtrackers.length > 0;
}

/**
 * Returns the native markup with image impression trackers from `eventtrackers` merged into `imptrackers`: first
 * as Native 1.1 (`{"native": {...}}`), then as Native 1.2. Markup that does not decode, or has no event trackers,
 * is returned unchanged.
 */
export function mergeNativeImpressionTrackers(adm: string): string {
  let markup: unknown;
  try {
    markup = JSON.parse(adm);
  } catch {
    return adm;
  }
  let result = adm;
  try {
    const wrapper = reencode(markup, NATIVE_WRAPPER);
    const native = wrapper.native as JsonObject;
    if (hasEventTrackers(native)) {
      result = goJson({ native: withMergedImpressionTrackers(native) });
      markup = JSON.parse(result);
    }
  } catch (err) {
    if (!(err instanceof Undecodable)) throw err;
  }
  try {
    const native = reencode(markup, NATIVE_RESPONSE);
    if (hasEventTrackers(native)) result = goJson(withMergedImpressionTrackers(native));
  } catch (err) {
    if (!(err instanceof Undecodable)) throw err;
  }
  return result;
}
