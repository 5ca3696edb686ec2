import type { BidRequest } from '../../core/api/index.js';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `request.ext.svc.<path>` or, from Prebid.js-style requests, `request.ext.prebid.<path>`. */
export function namespaced(request: BidRequest, ...path: string[]): unknown {
  const ext = isObject(request.ext) ? request.ext : {};
  for (const namespace of ['svc', 'prebid']) {
    let value: unknown = ext[namespace];
    for (const key of path) value = isObject(value) ? value[key] : undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}
