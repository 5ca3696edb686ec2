import { isJsonObject, type BidRequest } from '../api/index.js';
import { asStoredFetchError, MalformedStoredData, type FetchOptions, type StoredDataFetcher } from '../stored/index.js';
import { loadingErrors } from './messages.js';

export type AmpLoadResult = { request: BidRequest } | { error: string };

/**
 * Loads the stored request an AMP tag names and checks the rules of spec 2.18 in the order of spec 7.4. The result
 * is the caller's own copy: the fetcher may cache the document it returned, and the endpoint edits the request.
 * A backend failure is thrown as a StoredFetchError (the host's trouble, not the page's: a 503).
 */
export async function loadAmpRequest(tagId: string | undefined, fetcher: StoredDataFetcher, options?: FetchOptions): Promise<AmpLoadResult> {
  if (tagId === undefined) return { error: loadingErrors.missingTagId() };
  let stored: unknown;
  try {
    stored = (await fetcher.fetchRequests([tagId], options)).get(tagId);
  } catch (err) {
    // A document that is not valid JSON is refused as the auction endpoint refuses it; anything else is a 503.
    if (err instanceof MalformedStoredData) return { error: err.invalidRequestMessage };
    throw asStoredFetchError(err, 'cannot fetch the AMP stored request', { kind: 'request', ids: [tagId], reason: 'failed' });
  }
  if (!isJsonObject(stored)) return { error: loadingErrors.notFound(tagId) };
  const imps = stored.imp;
  if (!Array.isArray(imps) || imps.length === 0) return { error: loadingErrors.noImps(tagId) };
  if (imps.length > 1) return { error: loadingErrors.tooManyImps(tagId, imps.length) };
  if (stored.app !== undefined && stored.app !== null) return { error: loadingErrors.hasApp() };
  return { request: structuredClone(stored) as BidRequest };
}
