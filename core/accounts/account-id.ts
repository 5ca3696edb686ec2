import { fieldIgnoringCase, isJsonObject, type BidRequest, type Namespace } from '../api/index.js';

/** Where a request names its account, in Prebid Server's order: the first that is present decides. */
const HOLDERS = ['app', 'site', 'dooh'] as const;

export type AccountIdResult = { id: string } | { error: string };

/**
 * The account a request belongs to, as Prebid Server reads it: for `app`, then `site`, then `dooh`, the publisher's
 * `ext.<ns>.parentAccount` (the network that holds the host relationship) before its `id`. The first of these that
 * is present decides, even when empty (then the request names no account: `''`). A value that is present and not a
 * string is the client's mistake, named in a 400.
 */
export function accountIdOf(request: BidRequest, namespace: Namespace): AccountIdResult {
  for (const holder of HOLDERS) {
    const publisher = isJsonObject(request[holder]) ? (request[holder] as Record<string, unknown>).publisher : undefined;
    if (!isJsonObject(publisher)) continue;
    const ext = isJsonObject(publisher.ext) ? publisher.ext : undefined;
    const options = ext && (isJsonObject(ext[namespace]) ? ext[namespace] : isJsonObject(ext.prebid) ? ext.prebid : undefined);
    if (isJsonObject(options) && options.parentAccount !== undefined) {
      return named(options.parentAccount, `${holder}.publisher.ext.${namespace}.parentAccount`);
    }
    if (publisher.id !== undefined) return named(publisher.id, `${holder}.publisher.id`);
  }
  return { id: '' };
}

function named(value: unknown, path: string): AccountIdResult {
  return typeof value === 'string' ? { id: value } : { error: `${path} must be a string` };
}

/**
 * The account of an AMP or video request, as Prebid Server's getAccountID reads it from the decoded request: AMP from
 * `site.publisher` only; video from `app.publisher` when the request has an `app`, else `site.publisher`. There, the
 * publisher's `ext.<ns>.parentAccount` (matched ignoring case, as decoded) when it is a non-empty string and its ext
 * decodes, else its `id` when not empty; else the request names none (`''`).
 */
export function decodedAccountIdOf(request: BidRequest, namespace: Namespace, endpoint: 'amp' | 'video'): AccountIdResult {
  const holder = endpoint === 'video' && request.app !== undefined && request.app !== null ? request.app : request.site;
  const publisher = isJsonObject(holder) ? holder.publisher : undefined;
  if (!isJsonObject(publisher)) return { id: '' };
  const parent = parentAccountOf(publisher.ext, namespace);
  if (parent !== undefined && parent !== '') return { id: parent };
  if (publisher.id === undefined || publisher.id === null || publisher.id === '') return { id: '' };
  return named(publisher.id, `${holder === request.app ? 'app' : 'site'}.publisher.id`);
}

/** `ext.<ns>.parentAccount` of a publisher as its `openrtb_ext.ExtPublisher` decodes; undefined when it does not. */
function parentAccountOf(ext: unknown, namespace: Namespace): string | undefined {
  if (!isJsonObject(ext)) return undefined;
  const options = fieldIgnoringCase(ext, namespace) ?? (namespace === 'prebid' ? undefined : fieldIgnoringCase(ext, 'prebid'));
  if (!isJsonObject(options)) return undefined;
  const parent = fieldIgnoringCase(options, 'parentAccount');
  return typeof parent === 'string' ? parent : undefined;
}
