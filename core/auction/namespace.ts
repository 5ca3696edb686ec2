import { isJsonObject as isObject, type BidRequest, type Ext, type Namespace } from '../api/index.js';

export type { Namespace } from '../api/index.js';

function mergeInto(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) merged[key] = isObject(value) && isObject(base[key]) ? mergeInto(base[key] as Record<string, unknown>, value) : value;
  return merged;
}

/**
 * The namespace the request speaks: the first of `svc` or `prebid` it uses, looking at `request.ext`, then the imps,
 * then `user`, `site`/`app` and their publishers; a request that uses neither gets the host's default.
 */
export function detectNamespace(request: BidRequest, fallback: Namespace = 'svc'): Namespace {
  const places: unknown[] = [request.ext];
  if (Array.isArray(request.imp)) for (const imp of request.imp) places.push(isObject(imp) ? imp.ext : undefined);
  places.push(request.user?.ext, request.site?.ext, request.app?.ext, request.site?.publisher?.ext, request.app?.publisher?.ext, request.regs?.ext);
  for (const ext of places) {
    if (!isObject(ext)) continue;
    if (isObject(ext.svc)) return 'svc';
    if (isObject(ext.prebid)) return 'prebid';
  }
  return fallback;
}

/**
 * Where a request may carry the namespace; when both spellings are present they merge, `svc` winning. A spelling
 * that is not an object stays where the request put it, so that validation refuses it by the name the request used.
 */
function unifyExt(ext: Ext | undefined, namespace: Namespace): void {
  if (!ext) return;
  const other = namespace === 'svc' ? 'prebid' : 'svc';
  const theirs = ext[other];
  if (!isObject(theirs)) return;
  const ours = ext[namespace];
  if (ours === undefined) ext[namespace] = theirs;
  else if (isObject(ours)) ext[namespace] = mergeInto(ext.prebid as Record<string, unknown>, ext.svc as Record<string, unknown>);
  delete ext[other];
}

/**
 * Folds `ext.svc` and `ext.prebid` into the one namespace the request uses, so that every later step reads one
 * place. Mutates the request, which the pipeline owns.
 */
export function unifyNamespaces(request: BidRequest, namespace: Namespace): void {
  unifyExt(request.ext, namespace);
  unifyExt(request.user?.ext, namespace);
  unifyExt(request.site?.publisher?.ext, namespace);
  unifyExt(request.app?.publisher?.ext, namespace);
  unifyExt(request.site?.ext, namespace);
  unifyExt(request.app?.ext, namespace);
  if (Array.isArray(request.imp)) for (const imp of request.imp) if (isObject(imp)) unifyExt(imp.ext, namespace);
}

/** The request's own options object (`request.ext.<ns>`), or an empty one. */
export function requestOptions(request: BidRequest, namespace: Namespace): Record<string, unknown> {
  const value = request.ext?.[namespace];
  return isObject(value) ? value : {};
}
