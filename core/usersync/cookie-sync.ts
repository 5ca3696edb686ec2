import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import { filterAllows, readCookieSyncRequest, type CookieSyncRequest, type SyncType } from './cookie-sync-request.js';
import { syncUrl } from './sync-url.js';
import { listSyncers, syncerForBidder, type Syncer } from './syncers.js';
import { liveUids, requestCookie } from './uids-cookie.js';
import { badSyncRequest, optedOutResponse, readUserState, syncAccountOf, vendorIdOf, type UserSyncDeps } from './user-state.js';
import type { AccountSettings } from '../api/index.js';
import { REJECTED_BY_PRIVACY } from '../privacy/index.js';

export const COOKIE_SYNC_PATH = '/cookie_sync';

export interface BidderSyncStatus {
  bidder: string;
  no_cookie: true;
  usersync: { url: string; type: SyncType };
}

export interface CookieSyncResponse {
  /** "ok" when the cookie already holds a live id for some bidder, else "no_cookie". */
  status: 'ok' | 'no_cookie';
  bidder_status: BidderSyncStatus[];
  /** With `debug: true`: every bidder the chooser looked at and left out, and why (Prebid Server's texts). */
  debug?: SyncSkip[];
}

/** Whether privacy lets a bidder sync (activity `syncUser`, then GDPR), as Prebid Server's chooser asks. */
export type SyncPermission = (syncer: Syncer) => boolean;

/** Why a bidder the chooser looked at gets no sync, as Prebid Server's debug answer words it. */
const NOT_SYNCED = {
  unknown: 'Unsupported bidder',
  unconfigured: 'No sync config',
  duplicate: 'Duplicate bidder',
  filtered: 'Rejected by request filter',
  synced: 'Already in sync',
  privacy: REJECTED_BY_PRIVACY,
} as const;

/** One bidder the chooser left out, with Prebid Server's debug text. */
export interface SyncSkip {
  bidder: string;
  error: string;
}

/** Prebid Server's preference: an iframe sync when the bidder has one and the page allows it, else a redirect. */
const TYPE_PREFERENCE: SyncType[] = ['iframe', 'redirect'];

/**
 * The bidder names the chooser walks, as Prebid Server's: the requested ones (every bidder that can sync when none
 * are named); with co-op sync the requested ones, then the account's priority groups, then (unless the account says
 * priority groups only) every bidder that can sync. Names may repeat; the chooser skips a name it has seen.
 */
function candidates(request: CookieSyncRequest, deps: UserSyncDeps, coop: CoopSettings): string[] {
  const available = listSyncers(deps.bidders).filter((syncer) => syncer.enabled).map((syncer) => syncer.bidder);
  const requested = request.bidders ?? [];
  if (!coop.enabled) return requested.length > 0 ? requested : available;
  return [...requested, ...coop.priorityGroups.flat(), ...(coop.priorityGroupsOnly ? [] : available)];
}

/** The sync type for the bidder as the request names it; the filters match names in any case, as Prebid Server's. */
function chooseType(syncer: Syncer, name: string, request: CookieSyncRequest, iframeDisabled: IframeDisabled): SyncType | undefined {
  const bidder = name.toLowerCase();
  return TYPE_PREFERENCE.find((type) => syncer.info[type]?.url && filterAllows(request.filters[type], bidder) && !(type === 'iframe' && iframeDisabled(bidder)));
}

/** Whether the account's `cookie_sync.disabled_iframe_bidders` ("*" for all, else names in any case) takes iframe syncs from a bidder. */
type IframeDisabled = (bidder: string) => boolean;

function iframeDisabledBy(account: AccountSettings | undefined): IframeDisabled {
  const listed = account?.cookie_sync?.disabled_iframe_bidders ?? [];
  if (listed.includes('*')) return () => true;
  const names = new Set(listed.map((name) => name.toLowerCase()));
  return (bidder) => names.has(bidder);
}

function syncStatus(name: string, syncer: Syncer, type: SyncType, request: CookieSyncRequest, deps: UserSyncDeps): BidderSyncStatus | undefined {
  const url = syncUrl(deps.config.server.externalUrl, syncer, type, request.privacy);
  if (!url) return undefined;
  return { bidder: name, no_cookie: true, usersync: { url, type } };
}

/** The co-op sync settings in force: the request's `coopSync`, else the account's `cookie_sync.default_coop_sync`. */
interface CoopSettings {
  enabled: boolean;
  priorityGroups: string[][];
  priorityGroupsOnly: boolean;
}

function coopSettings(request: CookieSyncRequest, account: AccountSettings | undefined): CoopSettings {
  const settings = account?.cookie_sync;
  return {
    enabled: request.coopSync ?? settings?.default_coop_sync ?? false,
    // As Prebid Server: the account's groups count only where it also sets default_coop_sync.
    priorityGroups: settings?.default_coop_sync !== undefined ? (settings.priority_groups ?? []) : [],
    priorityGroupsOnly: settings?.priority_groups_only === true,
  };
}

/**
 * The cap in force, as Prebid Server sets it: the request's `limit`, else the account's `cookie_sync.default_limit`
 * (0 or less is no cap), never above the account's `max_limit` (when positive).
 */
function effectiveLimit(request: CookieSyncRequest, account: AccountSettings | undefined): number {
  const settings = account?.cookie_sync;
  const asked = request.limit ?? settings?.default_limit;
  const limit = asked !== undefined && asked > 0 ? asked : Infinity;
  const max = settings?.max_limit !== undefined && settings.max_limit > 0 ? settings.max_limit : Infinity;
  return Math.min(limit, max);
}

/**
 * Prebid Server's chooser: walks the candidate names (each once) until `limit` syncs are chosen, and for each says
 * why it gets none, in this order: an unknown or disabled bidder, one without user-sync info, one whose cookie key
 * an earlier bidder took, one no allowed sync type is left for, one the cookie holds a live id for, one privacy
 * refuses. Bidders sharing a key share one sync.
 */
export function chooseSyncs(request: CookieSyncRequest, live: Record<string, string>, deps: UserSyncDeps, permitted?: SyncPermission, account?: AccountSettings): { chosen: BidderSyncStatus[]; skipped: SyncSkip[] } {
  const keysSeen = new Set<string>();
  const namesSeen = new Set<string>();
  const chosen: BidderSyncStatus[] = [];
  const skipped: SyncSkip[] = [];
  const limit = effectiveLimit(request, account);
  const iframeDisabled = iframeDisabledBy(account);
  for (const name of candidates(request, deps, coopSettings(request, account))) {
    if (chosen.length >= limit) break;
    if (namesSeen.has(name)) continue;
    namesSeen.add(name);
    const entry = deps.bidders.get(name);
    const syncer = entry?.enabled ? syncerForBidder(deps.bidders, name) : undefined;
    if (!syncer) {
      skipped.push({ bidder: name, error: entry?.enabled ? NOT_SYNCED.unconfigured : NOT_SYNCED.unknown });
      continue;
    }
    if (keysSeen.has(syncer.key)) {
      skipped.push({ bidder: name, error: `${NOT_SYNCED.duplicate} synced as ${syncer.key}` });
      continue;
    }
    keysSeen.add(syncer.key);
    const type = chooseType(syncer, name, request, iframeDisabled);
    if (!type) skipped.push({ bidder: name, error: NOT_SYNCED.filtered });
    else if (live[syncer.key]) skipped.push({ bidder: name, error: NOT_SYNCED.synced });
    else if (permitted && !permitted(syncer)) skipped.push({ bidder: name, error: NOT_SYNCED.privacy });
    else {
      const status = syncStatus(name, syncer, type, request, deps);
      if (status) chosen.push(status);
    }
  }
  return { chosen, skipped };
}

/**
 * POST /cookie_sync: Prebid.js (with credentials, so the `uids` cookie comes along) asks which bidders need a sync
 * and gets each one's sync URL, whose redirect comes back to /setuid with the bidder's id.
 */
export async function handleCookieSync(input: EndpointRequest, deps: UserSyncDeps): Promise<EndpointResponse> {
  // Prebid Server's order: the account, then the request's signals, then the user's opt-out.
  const found = await syncAccountOf(deps, input.body?.account);
  if ('refusal' in found) return badSyncRequest([found.refusal], true);
  const { account } = found;
  const read = readCookieSyncRequest(input.body ?? {}, deps.config.privacy.gdpr.defaultValue);
  if ('problems' in read) return badSyncRequest(read.problems, true);
  const state = readUserState(input, deps.config.userSync);
  if (state.optedOut) return optedOutResponse('User has opted out');
  const live = liveUids(state.cookie, deps.now());
  const privacy = read.request.privacy;
  const consent = deps.privacy.syncConsent({ gdpr: privacy.gdpr, consent: privacy.gdprConsent, usPrivacy: privacy.usPrivacy, gppSid: privacy.gppSid }, account);
  const status = Object.keys(live).length > 0 ? 'ok' : 'no_cookie';
  // As Prebid Server's chooser: a host cookie GDPR does not allow blocks every sync before any bidder is looked at.
  if (!consent.hostCookieAllowed) return askingForCookieDeprecation(syncAnswer({ status, bidder_status: [] }), input, account, deps);
  const permitted: SyncPermission = (syncer) => consent.bidderMaySync(syncer.bidder, vendorIdOf(deps, syncer.bidder));
  const { chosen, skipped } = chooseSyncs(read.request, live, deps, permitted, account);
  const response: CookieSyncResponse = { status, bidder_status: chosen };
  if (read.request.debug && skipped.length > 0) response.debug = skipped;
  return askingForCookieDeprecation(syncAnswer(response), input, account, deps);
}

/** The 200 answer, typed as Prebid Server types it. */
function syncAnswer(response: CookieSyncResponse): EndpointResponse {
  return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: response };
}

/** The cookie that asks Chrome to send its `Sec-Cookie-Deprecation` label to this host. */
const RECEIVE_COOKIE_DEPRECATION = 'receive-cookie-deprecation';
/** Prebid Server's default `privacy.privacysandbox.cookiedeprecation.ttl_sec`: a week. */
const COOKIE_DEPRECATION_TTL_SECONDS = 604800;

/**
 * The answer with the `receive-cookie-deprecation=1` cookie (partitioned, for the account's `ttl_sec`, a week by
 * default) when the account enables cookie deprecation and the browser does not have the cookie yet, written as
 * Prebid Server's cookie sync writes it.
 */
function askingForCookieDeprecation(answer: EndpointResponse, input: EndpointRequest, account: AccountSettings, deps: UserSyncDeps): EndpointResponse {
  const settings = account.privacy?.privacysandbox?.cookiedeprecation;
  if (settings?.enabled !== true || requestCookie(input.headers.cookie, RECEIVE_COOKIE_DEPRECATION) !== undefined) return answer;
  const ttl = typeof settings.ttl_sec === 'number' ? settings.ttl_sec : COOKIE_DEPRECATION_TTL_SECONDS;
  const expires = new Date(deps.now() + ttl * 1000).toUTCString();
  return { ...answer, headers: { ...answer.headers, 'set-cookie': `${RECEIVE_COOKIE_DEPRECATION}=1; Path=/; Expires=${expires}; HttpOnly; Secure; SameSite=None; Partitioned;` } };
}
