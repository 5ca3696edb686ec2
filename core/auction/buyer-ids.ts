import type { BidderRequest } from '../api/index.js';
import type { BidderCatalog } from '../bidders/catalog.js';

/** Bidder ids from the `uids` cookie, keyed by each bidder's user-sync key. */
export type CookieUids = Record<string, string>;

/**
 * Third level of buyer-id priority (spec 2.12): a bidder whose request still has no `user.buyeruid` gets the id the
 * `uids` cookie holds under its sync key. Each share owns its `user` object (split-imps copies it), so this writes
 * only that bidder's request.
 */
export function applyCookieBuyerIds(shares: BidderRequest[], uids: CookieUids, bidders: BidderCatalog): void {
  for (const share of shares) {
    if (share.request.user?.buyeruid) continue;
    const entry = bidders.get(share.adapter);
    const key = entry?.info.userSync?.key ?? entry?.adapter ?? share.bidder;
    const uid = uids[key] ?? uids[share.bidder];
    if (uid) share.request.user = { ...share.request.user, buyeruid: uid };
  }
}

/**
 * Reads the `uids` cookie: base64 of `{"tempUIDs":{"<key>":{"uid":"...","expires":"<RFC 3339>"}}}`. Expired or
 * malformed entries are skipped; a malformed cookie yields nothing.
 */
export function parseUidsCookie(value: string | undefined, now: number): CookieUids {
  if (!value) return {};
  try {
    const decoded = JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as { tempUIDs?: Record<string, { uid?: unknown; expires?: unknown }> };
    const uids: CookieUids = {};
    for (const [key, entry] of Object.entries(decoded.tempUIDs ?? {})) {
      if (typeof entry?.uid !== 'string' || entry.uid === '') continue;
      const expires = typeof entry.expires === 'string' ? Date.parse(entry.expires) : NaN;
      if (!Number.isNaN(expires) && expires <= now) continue;
      uids[key] = entry.uid;
    }
    return uids;
  } catch {
    return {};
  }
}
