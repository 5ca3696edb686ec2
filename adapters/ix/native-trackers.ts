/**
 * Index Exchange answers native bids with OpenRTB Native 1.2 markup whose impression pixels may sit only in
 * `eventtrackers`. Older renderers read `imptrackers` alone, so every image impression tracker is copied into
 * `imptrackers` (deduplicated, sorted) and the markup is written back in the field order of the Native spec.
 */
import { isJsonObject, type JsonObject } from '../../core/api/index.js';

/** Native 1.2 event type "impression" and tracking method "image pixel". */
const IMPRESSION_EVENT = 1;
const IMAGE_PIXEL_METHOD = 1;

/** The Native spec's field order of one markup object, and the shapes of its nested objects. */
interface Shape {
  keys: string[];
  children?: Record<string, Shape>;
}

const LINK: Shape = { keys: ['url', 'clicktrackers', 'fallback', 'ext'] };
const ASSET: Shape = {
  keys: ['id', 'required', 'title', 'img', 'video', 'data', 'link', 'ext'],
  children: {
    title: { keys: ['text', 'len', 'ext'] },
    img: { keys: ['type', 'url', 'w', 'h', 'ext'] },
    video: { keys: ['vasttag', 'ext'] },
    data: { keys: ['type', 'len', 'value', 'ext'] },
    link: LINK,
  },
};
const NATIVE_RESPONSE: Shape = {
  keys: ['ver', 'assets', 'assetsurl', 'dcourl', 'link', 'imptrackers', 'jstracker', 'eventtrackers', 'privacy', 'ext'],
  children: { assets: ASSET, link: LINK, eventtrackers: { keys: ['event', 'method', 'url', 'customdata', 'ext'] } },
};
/** Native 1.1 markup wraps the response in a `native` object. */
const NATIVE_WRAPPER: Shape = { keys: ['native'], children: { native: NATIVE_RESPONSE } };

/** Rebuilds `value` with the shape's known keys first, in spec order; keys the spec does not name follow as they were. */
function arrange(value: unknown, shape: Shape): unknown {
  if (Array.isArray(value)) return value.map((item) => arrange(item, shape));
  if (!isJsonObject(value)) return value;
  const knownKeys = shape.keys.filter((key) => key in value);
  const otherKeys = Object.keys(value).filter((key) => !shape.keys.includes(key));
  const arranged: JsonObject = {};
  for (const key of [...knownKeys, ...otherKeys]) {
    const childShape = shape.children?.[key];
    arranged[key] = childShape ? arrange(value[key], childShape) : value[key];
  }
  return arranged;
}

function hasEventTrackers(native: JsonObject): boolean {
  return Array.isArray(native.eventtrackers) && native.eventtrackers.length > 0;
}

function impressionPixelUrls(native: JsonObject): string[] {
  const urls = new Set<string>();
  for (const url of Array.isArray(native.imptrackers) ? native.imptrackers : []) {
    if (typeof url === 'string') urls.add(url);
  }
  for (const tracker of native.eventtrackers as unknown[]) {
    if (isJsonObject(tracker) && tracker.event === IMPRESSION_EVENT && tracker.method === IMAGE_PIXEL_METHOD && typeof tracker.url === 'string') {
      urls.add(tracker.url);
    }
  }
  // Sorted so the rewritten markup does not depend on the order the exchange listed its pixels in.
  return [...urls].sort();
}

function withMergedImpressionTrackers(native: JsonObject): JsonObject {
  return { ...native, imptrackers: impressionPixelUrls(native) };
}

/**
 * Returns the native markup with image impression trackers from `eventtrackers` merged into `imptrackers`.
 * Markup that is not JSON, or has no event trackers, is returned unchanged.
 */
export function mergeNativeImpressionTrackers(adm: string): string {
  let markup: unknown;
  try {
    markup = JSON.parse(adm);
  } catch {
    return adm;
  }
  if (!isJsonObject(markup)) return adm;

  let rewritten: JsonObject | undefined;
  if (isJsonObject(markup.native) && hasEventTrackers(markup.native)) {
    rewritten = arrange({ ...markup, native: withMergedImpressionTrackers(markup.native) }, NATIVE_WRAPPER) as JsonObject;
  }
  const document = rewritten ?? markup;
  if (hasEventTrackers(document)) {
    rewritten = arrange(withMergedImpressionTrackers(document), NATIVE_RESPONSE) as JsonObject;
  }
  return rewritten ? JSON.stringify(rewritten) : adm;
}
