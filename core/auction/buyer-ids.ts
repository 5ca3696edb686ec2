import type { BidderRequest } from '../api/index.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import { syncerKey } from '../usersync/syncers.js';
import type { CookieUids } from '../usersync/uids-cookie.js';

// The cookie format lives with user sync, which writes it; the auction only reads it.
export { parseUidsCookie, type CookieUids } from '../usersync/uids-cookie.js';

/**
 * Third level of buyer-id priority (spec 2.12): a bidder whose request still has no `user.buyeruid` gets the id the
 * `uids` cookie holds under its sync key. Each share owns its `user` object (split-imps copies it), so this writes
 * only that bidder's request.
 */
export function applyCookieBuyerIds(shares: BidderRequest[], uids: CookieUids, bidders: BidderCatalog): void {
  for (const share of shares) {
    if (share.request.user?.buyeruid) continue;
    const entry = bidders.get(share.adapter);
    const key = entry ? syncerKey(entry) : share.bidder;
    // The id kept under the request's own name for the bidder, unless that name is another host bidder's: a request
    // alias that shadows a host bidder (spec 2.14 lets it) must not carry that bidder's id to the alias's adapter.
    const ownName = share.bidder === share.adapter || bidders.get(share.bidder) === undefined;
    const uid = Object.hasOwn(uids, key) ? uids[key] : ownName && Object.hasOwn(uids, share.bidder) ? uids[share.bidder] : undefined;
    if (uid) share.request.user = { ...share.request.user, buyeruid: uid };
  }
}
