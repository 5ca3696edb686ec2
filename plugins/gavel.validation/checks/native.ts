/**
 * Native requests (specification 2.13): `imp.native.request` is a JSON string; its assets must not define `id`
 * because the service numbers them by their index. Validation parses it once and hands back the numbered form.
 */
import { isObject, isPresent, type JsonObject } from './values.js';

const ASSET_KINDS = ['title', 'img', 'video', 'data'];

export type NativeOutcome = { error: string } | { normalisedRequest: string };

export function normaliseNative(native: unknown, path: string): NativeOutcome {
  if (!isObject(native)) return { error: `${path} must be an object` };
  if (!isPresent(native.request)) return { error: `${path} missing required property "request"` };
  const document = parseJsonObject(native.request);
  if (document === undefined) {
    return { error: `${path}.request must be a JSON encoded string conforming to the openrtb 1.2 Native spec` };
  }
  // Native 1.0 wraps the request in {"native": {...}}; the numbered request keeps the shape it came in.
  const wrapped = isObject(document.native) && !isPresent(document.assets);
  const body = wrapped ? (document.native as JsonObject) : document;
  const assetsPath = `${path}.request${wrapped ? '.native' : ''}.assets`;
  const error = assetsError(body.assets, assetsPath);
  if (error !== undefined) return { error };
  const numbered = { ...body, assets: (body.assets as JsonObject[]).map((asset, index) => ({ id: index, ...asset })) };
  return { normalisedRequest: JSON.stringify(wrapped ? { ...document, native: numbered } : numbered) };
}

function parseJsonObject(text: unknown): JsonObject | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function assetsError(assets: unknown, path: string): string | undefined {
  if (!Array.isArray(assets) || assets.length === 0) return `${path} must be an array containing at least one object`;
  for (const [index, asset] of assets.entries()) {
    const assetPath = `${path}[${index}]`;
    if (!isObject(asset)) return `${assetPath} must be an object`;
    if (isPresent(asset.id)) {
      return `${assetPath}.id must not be defined: the service sets each asset's id to its index in the array. Remove it.`;
    }
    if (ASSET_KINDS.filter((kind) => isPresent(asset[kind])).length !== 1) {
      return `${assetPath} must define exactly one of {title, img, video, data}`;
    }
  }
  return undefined;
}
