import { MalformedStoredData, type FetchOptions, type StoredDataFetcher } from './fetcher.js';
import { mergePatch } from './merge.js';
import { isJsonObject } from '../api/index.js';

export type JsonObject = Record<string, unknown>;

/**
 * The request with its stored parts merged in, or the 400 messages that explain why that was not possible. With it,
 * by imp id, the stored imp's `video` for each imp whose own ext asked for it back (`options.echovideoattrs`).
 */
export type StoredResolution = { request: JsonObject; echoedVideo?: Map<string, unknown> } | { errors: string[] };

/** Where a request refers to stored data: an id, or a message saying what is wrong with the reference. */
type StoredRef = { id: string } | { error: string };

/**
 * Merges stored data into a request body (reference behaviour, section 7):
 * - `ext.<ns>.storedrequest.id`: the stored request is the base and the body is applied over it (RFC 7386);
 * - then each `imp[i].ext.<ns>.storedrequest.id`: the stored imp is the base and the inline imp is applied over it.
 * The `storedrequest` references are removed from the result. Ids are fetched with at most one `fetchRequests` and
 * one `fetchImps` call, each bounded by `options.deadline`. A reference whose id is not a string, names nothing, or
 * names a document that is not valid JSON is an error (a 400 for the caller, as Prebid Server answers); a backend
 * failure (or one too slow for the deadline) is thrown as the fetcher threw it (a 503: not the client's fault).
 *
 * Neither `body` nor the fetched documents are changed: the result owns every object it took from stored data.
 */
export async function resolveStoredRequest(
  body: JsonObject,
  namespace: string,
  fetcher: StoredDataFetcher,
  options?: FetchOptions,
): Promise<StoredResolution> {
  try {
    const withStoredRequest = await mergeStoredRequest(body, namespace, fetcher, options);
    if ('errors' in withStoredRequest) return withStoredRequest;
    return await mergeStoredImps(withStoredRequest.request, namespace, fetcher, options);
  } catch (err) {
    if (!(err instanceof MalformedStoredData)) throw err;
    return { errors: [err.invalidRequestMessage] };
  }
}

/**
 * True when the request refers to stored data anywhere (`ext.<ns>.storedrequest` or an imp's): most requests do not,
 * and then the caller can skip the resolution, and its promises, altogether.
 */
export function namesStoredData(body: JsonObject, namespace: string): boolean {
  if (readStoredRef(body, namespace, '') !== undefined) return true;
  return Array.isArray(body.imp) && body.imp.some((imp) => isJsonObject(imp) && readStoredRef(imp, namespace, '') !== undefined);
}

async function mergeStoredRequest(body: JsonObject, namespace: string, fetcher: StoredDataFetcher, options?: FetchOptions): Promise<StoredResolution> {
  const ref = readStoredRef(body, namespace, `ext.${namespace}.storedrequest.id`);
  if (!ref) return { request: body };
  if ('error' in ref) return { errors: [ref.error] };

  const stored = (await fetcher.fetchRequests([ref.id], options)).get(ref.id);
  const problem = storedDocumentProblem('request', ref.id, stored);
  if (problem) return { errors: [problem] };

  const merged = mergePatch(structuredClone(stored), body) as JsonObject;
  return { request: withoutStoredRef(merged, namespace) };
}

async function mergeStoredImps(request: JsonObject, namespace: string, fetcher: StoredDataFetcher, options?: FetchOptions): Promise<StoredResolution> {
  const imps = request.imp;
  if (!Array.isArray(imps)) return { request };

  // An empty id names no stored imp: Prebid Server only fetches and merges a non-empty one.
  const refs = imps.map((imp: unknown, i) => {
    const ref = isJsonObject(imp) ? readStoredRef(imp, namespace, `request.imp[${i}].ext.${namespace}.storedrequest.id`) : undefined;
    return ref && 'id' in ref && ref.id === '' ? undefined : ref;
  });
  const refErrors = refs.flatMap((ref) => (ref && 'error' in ref ? [ref.error] : []));
  if (refErrors.length > 0) return { errors: refErrors };

  const ids = [...new Set(refs.flatMap((ref) => (ref && 'id' in ref ? [ref.id] : [])))];
  if (ids.length === 0) return { request };

  const storedImps = await fetcher.fetchImps(ids, options);
  const problems = ids.flatMap((id) => storedDocumentProblem('imp', id, storedImps.get(id)) ?? []);
  if (problems.length > 0) return { errors: problems };

  let echoedVideo: Map<string, unknown> | undefined;
  const resolvedImps = imps.map((imp: unknown, i) => {
    const ref = refs[i];
    if (!ref || !('id' in ref)) return imp;
    const stored = storedImps.get(ref.id) as JsonObject;
    // A copy per use: two imps may name the same stored imp, and the cached document must stay as it was.
    const merged = mergePatch(structuredClone(stored), imp) as JsonObject;
    if (stored.video !== undefined && asksForVideoEcho(imp as JsonObject, namespace)) {
      (echoedVideo ??= new Map()).set(String(merged.id), structuredClone(stored.video));
    }
    return withoutStoredRef(merged, namespace);
  });
  const resolved = { request: { ...request, imp: resolvedImps } };
  return echoedVideo ? { ...resolved, echoedVideo } : resolved;
}

/** The imp as the request sent it asks for its stored imp's `video` back with its bids (Prebid Server reads only the request's own imp). */
function asksForVideoEcho(imp: JsonObject, namespace: string): boolean {
  const serviceExt = isJsonObject(imp.ext) ? imp.ext[namespace] : undefined;
  const options = isJsonObject(serviceExt) ? serviceExt.options : undefined;
  return isJsonObject(options) && options.echovideoattrs === true;
}

/** Reads `<holder>.ext.<ns>.storedrequest`; undefined when there is none. */
function readStoredRef(holder: JsonObject, namespace: string, idPath: string): StoredRef | undefined {
  const ext = holder.ext;
  if (!isJsonObject(ext)) return undefined;
  const serviceExt = ext[namespace];
  if (!isJsonObject(serviceExt)) return undefined;
  const ref = serviceExt.storedrequest;
  if (ref === undefined || ref === null) return undefined;
  const id = isJsonObject(ref) ? ref.id : undefined;
  return typeof id === 'string' ? { id } : { error: `${idPath} must be a string` };
}

function storedDocumentProblem(kind: 'request' | 'imp', id: string, document: unknown): string | undefined {
  if (document === undefined) return `stored ${kind} with id "${id}" not found`;
  if (!isJsonObject(document)) return `stored ${kind} with id "${id}" is not a JSON object`;
  return undefined;
}

/** A copy of `holder` without `ext.<ns>.storedrequest` (and without `ext.<ns>` when that leaves it empty). */
function withoutStoredRef(holder: JsonObject, namespace: string): JsonObject {
  const ext = holder.ext as JsonObject;
  const { storedrequest: _reference, ...serviceExt } = ext[namespace] as JsonObject;
  const newExt: JsonObject = { ...ext };
  if (Object.keys(serviceExt).length > 0) newExt[namespace] = serviceExt;
  else delete newExt[namespace];
  return { ...holder, ext: newExt };
}
