import { MalformedStoredData, type FetchOptions, type StoredDataFetcher } from './fetcher.js';
import { mergePatch } from './merge.js';
import { randomUUID } from 'node:crypto';
import { isJsonObject } from '../api/index.js';

export type JsonObject = Record<string, unknown>;

/**
 * The request with its stored parts merged in, or the 400 messages that explain why that was not possible. With it,
 * by imp id, the stored imp's `video` for each imp whose own ext asked for it back (`options.echovideoattrs`), and
 * the stored request the body named, as fetched (read only: Prebid Server looks for the account there first), and
 * what is wrong with the merged imps' ids (`impIdError`), a 400 Prebid Server gives only once the account is loaded.
 */
export type StoredResolution =
  | { request: JsonObject; echoedVideo?: Map<string, unknown>; storedRequest?: JsonObject; impIdProblem?: string }
  | { errors: string[] };

/** Where a request refers to a stored request: an id, or a message saying what is wrong with the reference. */
type StoredRef = { id: string } | { error: string };

/**
 * Merges stored data into a request body as Prebid Server's auction endpoint does (reference behaviour, section 7;
 * its `getStoredRequests` and `processStoredRequests`):
 * - `ext.<ns>.storedrequest.id`: the stored request is the base and the body is applied over it (RFC 7386), except
 *   that a stored request whose `id` is `{{UUID}}` is applied over the body, with a fresh UUID as its id (with
 *   `settings.generateRequestId`, Prebid Server's `generate_request_id`, so is any stored request of a body with `app`);
 * - each imp of the body naming `imp[i].ext.<ns>.storedrequest.id`: the stored imp is the base and the imp is applied
 *   over it. Only the body's imps are read for references: a body without `imp` takes the stored request's as they are.
 *
 * The `storedrequest` references stay in the result, as in Prebid Server's (bidders never see them). The stored
 * request and the stored imps are fetched in parallel, each kind in one call bounded by `options.deadline`; every id
 * not found is named (Prebid Server's `Stored Request with ID="x" not found.`), the request's first. An
 * `ext.<ns>.storedrequest.id` that is not a string, or a document that is not valid JSON or not an object, is an error
 * (a 400 for the caller); a backend failure (or one too slow for the deadline) is thrown as the fetcher threw it (a
 * 503: not the client's fault).
 *
 * An imp's reference is an object with a non-empty string `id`; any other `storedrequest` names nothing here (request
 * validation refuses one that does not decode, as Prebid Server's ExtImpPrebid: the exchange-level fixtures, which
 * skip the endpoint, must not meet that check here). Neither `body` nor the fetched documents are changed: the result
 * owns every object it took from stored data.
 */
export async function resolveStoredRequest(
  body: JsonObject,
  namespace: string,
  fetcher: StoredDataFetcher,
  options?: FetchOptions,
  settings?: StoredRequestSettings,
): Promise<StoredResolution> {
  const requestRef = readRequestRef(body, namespace);
  if (requestRef && 'error' in requestRef) return { errors: [requestRef.error] };
  const imps = Array.isArray(body.imp) ? body.imp : [];
  const impRefs = imps.map((imp: unknown) => readImpRef(imp, namespace));
  const impIds = [...new Set(impRefs.filter((id): id is string => id !== undefined))];
  try {
    const [storedRequests, storedImps] = await Promise.all([
      requestRef ? fetcher.fetchRequests([requestRef.id], options) : undefined,
      impIds.length > 0 ? fetcher.fetchImps(impIds, options) : undefined,
    ]);
    const stored = requestRef ? storedRequests!.get(requestRef.id) : undefined;
    const problems = [
      ...(requestRef ? [storedDocumentProblem('Request', requestRef.id, stored)] : []),
      ...impIds.map((id) => storedDocumentProblem('Imp', id, storedImps!.get(id))),
    ].filter((problem): problem is string => problem !== undefined);
    if (problems.length > 0) return { errors: problems };

    const merged = requestRef ? mergeStoredRequest(body, stored as JsonObject, settings?.generateRequestId === true) : body;
    const resolved = impIds.length > 0 ? mergeStoredImps(merged, imps, impRefs, storedImps!, namespace)
      : Array.isArray(body.imp) ? withImpIdsChecked(merged, impRefs) : { request: merged };
    return requestRef && 'request' in resolved ? { ...resolved, storedRequest: stored as JsonObject } : resolved;
  } catch (err) {
    if (!(err instanceof MalformedStoredData)) throw err;
    return { errors: [err.kind === 'request' ? malformedStoredRequestMessage(err.id) : err.invalidRequestMessage] };
  }
}

/**
 * Prebid Server cannot merge a stored request that is not valid JSON, finds no syntax error to name (its decoder's
 * errors are not the ones it looks for), and goes on to decode an empty request: its client reads that decoder's
 * words for nothing at all. They come first here too, then what is wrong.
 */
function malformedStoredRequestMessage(id: string): string {
  return `expect { or n, but found \u0000 (stored request with id "${id}" is not valid JSON; the host must correct it)`;
}

/**
 * True when the request refers to stored data anywhere (`ext.<ns>.storedrequest` or an imp's): most requests do not,
 * and then the caller can skip the resolution, and its promises, altogether.
 */
export function namesStoredData(body: JsonObject, namespace: string): boolean {
  if (readRequestRef(body, namespace) !== undefined) return true;
  return Array.isArray(body.imp) && body.imp.some((imp) => readImpRef(imp, namespace) !== undefined);
}

/** What the host says of stored requests. */
export interface StoredRequestSettings {
  /** Prebid Server's `generate_request_id`: an app request's stored request brings a fresh id. */
  generateRequestId?: boolean;
}

/** The request with the stored request merged in (`stored` is the fetcher's document: copied, never changed). */
function mergeStoredRequest(body: JsonObject, stored: JsonObject, generateRequestId: boolean): JsonObject {
  // A stored request asking for a fresh id each time is laid over the body, as Prebid Server does for `{{UUID}}`, and
  // for an app's request (the body names `app`, even as null) when the host generates request ids.
  const merged = stored.id === GENERATED_ID_PLACEHOLDER || (generateRequestId && body.app !== undefined)
    ? (mergePatch(body, { ...structuredClone(stored), id: randomUUID() }) as JsonObject)
    : (mergePatch(structuredClone(stored), body) as JsonObject);
  return merged;
}

/** The stored request id that asks for a random request id. */
const GENERATED_ID_PLACEHOLDER = '{{UUID}}';

function mergeStoredImps(request: JsonObject, imps: unknown[], refs: Array<string | undefined>, storedImps: Map<string, unknown>, namespace: string): StoredResolution {
  let echoedVideo: Map<string, unknown> | undefined;
  const resolvedImps = imps.map((imp: unknown, i) => {
    const id = refs[i];
    if (id === undefined) return imp;
    const stored = storedImps.get(id) as JsonObject;
    // A copy per use: two imps may name the same stored imp, and the cached document must stay as it was.
    const merged = mergePatch(structuredClone(stored), imp) as JsonObject;
    if (stored.video !== undefined && asksForVideoEcho(imp as JsonObject, namespace) && typeof merged.id === 'string') {
      (echoedVideo ??= new Map()).set(merged.id, structuredClone(stored.video));
    }
    return merged;
  });
  const resolved = withImpIdsChecked({ ...request, imp: resolvedImps }, refs);
  return echoedVideo ? { ...resolved, echoedVideo } : resolved;
}

/**
 * The request, with the error Prebid Server's `processStoredRequests` stops at when it reads each imp's id after the
 * merge: an id that is not a string, or one missing (from an imp merged with a stored imp, jsonparser's own words).
 */
function withImpIdsChecked(request: JsonObject, refs: ReadonlyArray<string | undefined>): { request: JsonObject; impIdProblem?: string } {
  const impIdProblem = impIdError(request.imp as unknown[], (i) => refs[i] !== undefined);
  return impIdProblem === undefined ? { request } : { request, impIdProblem };
}

/**
 * Prebid Server reads every imp's id (`jsonparser.GetString`) once stored data is merged, before the request is
 * decoded: the first imp whose id is missing or not a string stops the request. `fromStoredImp(i)` tells an imp
 * merged with a stored imp, whose missing id gets jsonparser's bare `Key path not found`.
 */
export function impIdError(imps: readonly unknown[], fromStoredImp: (index: number) => boolean = () => false): string | undefined {
  for (let i = 0; i < imps.length; i++) {
    const imp = imps[i];
    const id = isJsonObject(imp) ? imp.id : undefined;
    if (typeof id === 'string') continue;
    if (id !== undefined) return `Value is not a string: ${JSON.stringify(id)}`;
    return fromStoredImp(i) ? 'Key path not found' : `request.imp[${i}] missing required field: "id"`;
  }
  return undefined;
}

/** The imp as the request sent it asks for its stored imp's `video` back with its bids (Prebid Server reads only the request's own imp). */
function asksForVideoEcho(imp: JsonObject, namespace: string): boolean {
  const serviceExt = isJsonObject(imp.ext) ? imp.ext[namespace] : undefined;
  const options = isJsonObject(serviceExt) ? serviceExt.options : undefined;
  return isJsonObject(options) && options.echovideoattrs === true;
}

/** `<holder>.ext.<ns>.storedrequest`, when it is an object. */
function storedRefOf(holder: unknown, namespace: string): JsonObject | undefined {
  const ext = isJsonObject(holder) ? holder.ext : undefined;
  const serviceExt = isJsonObject(ext) ? ext[namespace] : undefined;
  const ref = isJsonObject(serviceExt) ? serviceExt.storedrequest : undefined;
  return isJsonObject(ref) ? ref : undefined;
}

/**
 * `ext.<ns>.storedrequest.id` as Prebid Server's `getStoredRequestId` reads it: no reference unless the id is there
 * (`storedrequest: {}` names nothing); any id but a string (null included) is an error; an empty one is looked up.
 */
function readRequestRef(body: JsonObject, namespace: string): StoredRef | undefined {
  const ref = storedRefOf(body, namespace);
  if (!ref || !Object.hasOwn(ref, 'id')) return undefined;
  return typeof ref.id === 'string' ? { id: ref.id } : { error: `ext.${namespace}.storedrequest.id must be a string` };
}

/** An imp's stored imp id: only a non-empty one names a stored imp (Prebid Server fetches and merges no other). */
function readImpRef(imp: unknown, namespace: string): string | undefined {
  const id = storedRefOf(imp, namespace)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** Prebid Server's texts for a stored document that is missing, or that is not a JSON object. */
function storedDocumentProblem(kind: 'Request' | 'Imp', id: string, document: unknown): string | undefined {
  if (document === undefined) return `Stored ${kind} with ID="${id}" not found.`;
  if (!isJsonObject(document)) return `Stored ${kind} with ID="${id}" is not a JSON object.`;
  return undefined;
}
