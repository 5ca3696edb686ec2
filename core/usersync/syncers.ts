import { ErrorCode, GavelError, type UserSyncInfo } from '../api/index.js';
import type { BidderCatalog, BidderEntry } from '../bidders/catalog.js';
import type { GavelConfig } from '../config/index.js';

type BidderUserSyncSettings = NonNullable<GavelConfig['bidders'][string]['userSync']>;

/** A bidder that can sync: its adapter ships user-sync URLs, or the host's `bidders.<name>.userSync` gives them. */
export interface Syncer {
  /** The bidder's name in the catalog. */
  bidder: string;
  /** Where its id lives in the `uids` cookie; bidders sharing an adapter's key share one id. */
  key: string;
  info: UserSyncInfo;
  enabled: boolean;
}

/**
 * A bidder's user sync from `bidders.<name>.userSync`: it replaces the adapter's own, and its ids live under the
 * bidder's own name in the `uids` cookie unless a `key` is given (bidders sharing the `ortb` adapter are different
 * buyers, so they must not share the adapter's key).
 */
export function configuredUserSync(name: string, settings: BidderUserSyncSettings): UserSyncInfo {
  if (!settings.iframe && !settings.redirect) {
    throw new GavelError(ErrorCode.BidderConfigInvalid, `bidders.${name}.userSync needs an "iframe" or a "redirect" sync: { url: "https://sync.example/?r={{.RedirectURL}}", userMacro: "$UID" }`);
  }
  return { ...settings, key: settings.key ?? name };
}

/** The `uids` cookie key of a bidder: the key its adapter (or its config) declares, else the adapter's name. */
export function syncerKey(entry: BidderEntry): string {
  return entry.info.userSync?.key ?? entry.adapter;
}

function hasSyncUrl(info: UserSyncInfo | undefined): info is UserSyncInfo {
  return Boolean(info?.redirect?.url || info?.iframe?.url);
}

function syncerOf(entry: BidderEntry): Syncer | undefined {
  const info = entry.info.userSync;
  if (!hasSyncUrl(info)) return undefined;
  return { bidder: entry.name, key: syncerKey(entry), info, enabled: entry.enabled };
}

/** Every bidder in the catalog that can sync, in catalog order. */
export function listSyncers(bidders: BidderCatalog): Syncer[] {
  const syncers: Syncer[] = [];
  for (const entry of bidders.entries.values()) {
    const syncer = syncerOf(entry);
    if (syncer) syncers.push(syncer);
  }
  return syncers;
}

/** The syncer a bidder name denotes, if that bidder can sync. */
export function syncerForBidder(bidders: BidderCatalog, name: string): Syncer | undefined {
  const entry = bidders.get(name);
  return entry ? syncerOf(entry) : undefined;
}

/**
 * What `/setuid?bidder=` names: an enabled bidder (`appnexus`) or the cookie key of one (`adnxs`, which bidders' sync
 * redirects send). Either way the answer is the cookie key to write under; a disabled bidder has no syncer, as in
 * Prebid Server.
 */
export function resolveSyncKey(bidders: BidderCatalog, name: string): string | undefined {
  const byBidder = syncerForBidder(bidders, name);
  if (byBidder?.enabled) return byBidder.key;
  return listSyncers(bidders).find((syncer) => syncer.enabled && syncer.key === name)?.key;
}
