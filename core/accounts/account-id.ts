import { isJsonObject, type BidRequest, type Namespace } from '../api/index.js';

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
