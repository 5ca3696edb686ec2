import type { BidRequest } from '../api/index.js';
import { isJsonObject, type StoredDataFetcher } from '../stored/index.js';
import { loadingErrors } from './messages.js';

export type AmpLoadResult = { request: BidRequest } | { error: string };

/**
 * Loads the stored request an AMP tag names and checks the rules of spec 2.18 in the order of spec 7.4. The result
 * is the caller's own copy: the fetcher may cache the document it returned, and the endpoint edits the request.
 * A backend failure is thrown as the fetcher threw it (the host's trouble, not the page's).
 */
export async function loadAmpRequest(tagId: string | undefined, fetcher: StoredDataFetcher): Promise<AmpLoadResult> {
  if (tagId === undefined) return { error: loadingErrors.missingTagId() };
  const stored = (await fetcher.fetchRequests([tagId])).get(tagId);
  if (!isJsonObject(stored)) return { error: loadingErrors.notFound(tagId) };
  const imps = stored.imp;
  if (!Array.isArray(imps) || imps.length === 0) return { error: loadingErrors.noImps(tagId) };
  if (imps.length > 1) return { error: loadingErrors.tooManyImps(tagId, imps.length) };
  if (stored.app !== undefined && stored.app !== null) return { error: loadingErrors.hasApp() };
  return { request: structuredClone(stored) as BidRequest };
}
