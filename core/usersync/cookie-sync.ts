import { invalidRequest, jsonResponse, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import { filterAllows, readCookieSyncRequest, type CookieSyncRequest, type SyncType } from './cookie-sync-request.js';
import { syncUrl } from './sync-url.js';
import { listSyncers, syncerForBidder, type Syncer } from './syncers.js';
import { liveUids, requestCookie } from './uids-cookie.js';
import { optedOutResponse, readUserState, syncAccountOf, vendorIdOf, type UserSyncDeps } from './user-state.js';
import type { AccountSettings } from '../api/index.js';
import { REJECTED_BY_PRIVACY } from '../privacy/index.js';

export const COOKIE_SYNC_PATH = '/cookie_sync';

export interface BidderSyncStatus {
  bidder: string;
  no_cookie: true;
  usersync: { url: string; type: SyncType; supportCORS?: true };
}

export interface CookieSyncResponse {
  /** "ok" when the cookie already holds a live id for some bidder, else "no_cookie". */
  status: 'ok' | 'no_cookie';
  bidder_status: BidderSyncStatus[];
  /** With `debug: true`: the bidders left out and why (Prebid Server's texts). */
  debug?: Array<{ bidder: string; error: string }>;
}

/** Whether privacy lets a bidder sync; the names it refused are collected for the debug answer. */
export type SyncPermission = (syncer: Syncer) => boolean;

/** Prebid Server's preference: an iframe sync when the bidder has one and the page allows it, else a redirect. */
const TYPE_PREFERENCE: SyncType[] = ['iframe', 'redirect'];

/** The syncers the request asks about, in its order: the named bidders, then (co-op sync) every other one. */
function candidates(request: CookieSyncRequest, deps: UserSyncDeps): Syncer[] {
  const all = listSyncers(deps.bidders);
  if (!request.bidders) return all;
  const named = request.bidders.map((name) => syncerForBidder(deps.bidders, name)).filter((syncer): syncer is Syncer => syncer !== undefined);
  return request.coopSync ? [...named, ...all] : named;
}

function chooseType(syncer: Syncer, request: CookieSyncRequest): SyncType | undefined {
  return TYPE_PREFERENCE.find((type) => syncer.info[type]?.url && filterAllows(request.filters[type], syncer.bidder));
}

function syncStatus(syncer: Syncer, type: SyncType, request: CookieSyncRequest, deps: UserSyncDeps): BidderSyncStatus | undefined {
  const url = syncUrl(deps.config.server.externalUrl, syncer, type, request.privacy);
  if (!url) return undefined;
  const usersync: BidderSyncStatus['usersync'] = { url, type };
  if (syncer.info.supportCors) usersync.supportCORS = true;
  return { bidder: syncer.bidder, no_cookie: true, usersync };
}

/**
 * The syncs to offer: enabled bidders without a live id, one per cookie key (bidders sharing a key share the id),
 * each by a sync type the page allows, at most `limit` of them.
 */
export function chooseSyncs(request: CookieSyncRequest, live: Record<string, string>, deps: UserSyncDeps, permitted?: SyncPermission): BidderSyncStatus[] {
  const offered = new Set<string>();
  const statuses: BidderSyncStatus[] = [];
  for (const syncer of candidates(request, deps)) {
    if (request.limit > 0 && statuses.length >= request.limit) break;
    if (!syncer.enabled || offered.has(syncer.key) || live[syncer.key]) continue;
    if (permitted && !permitted(syncer)) continue;
    const type = chooseType(syncer, request);
    const status = type && syncStatus(syncer, type, request, deps);
    if (!status) continue;
    offered.add(syncer.key);
    statuses.push(status);
  }
  return statuses;
}

/**
 * POST /cookie_sync: Prebid.js (with credentials, so the `uids` cookie comes along) asks which bidders need a sync
 * and gets each one's sync URL, whose redirect comes back to /setuid with the bidder's id.
 */
export async function handleCookieSync(input: EndpointRequest, deps: UserSyncDeps): Promise<EndpointResponse> {
  const read = readCookieSyncRequest(input.body ?? {}, deps.config.privacy.gdpr.defaultValue);
  if ('problems' in read) return invalidRequest(read.problems);
  const state = readUserState(input, deps.config.userSync);
  if (state.optedOut) return optedOutResponse('User has opted out');
  const live = liveUids(state.cookie, deps.now());
  const privacy = read.request.privacy;
  const found = await syncAccountOf(deps, input.body?.account);
  if ('refusal' in found) return found.refusal;
  const { account } = found;
  const consent = deps.privacy.syncConsent({ gdpr: privacy.gdpr, consent: privacy.gdprConsent, usPrivacy: privacy.usPrivacy, gppSid: privacy.gppSid }, account);
  const status = Object.keys(live).length > 0 ? 'ok' : 'no_cookie';
  // As Prebid Server's chooser: a host cookie GDPR does not allow blocks every sync before any bidder is looked at.
  if (!consent.hostCookieAllowed) return askingForCookieDeprecation(jsonResponse(200, { status, bidder_status: [] } satisfies CookieSyncResponse), input, account, deps);
  const rejected: string[] = [];
  const permitted: SyncPermission = (syncer) => {
    if (consent.bidderMaySync(syncer.bidder, vendorIdOf(deps, syncer.bidder))) return true;
    rejected.push(syncer.bidder);
    return false;
  };
  const response: CookieSyncResponse = {
    status,
    bidder_status: chooseSyncs(read.request, live, deps, permitted),
  };
  if (input.body?.debug === true && rejected.length > 0) response.debug = rejected.map((bidder) => ({ bidder, error: REJECTED_BY_PRIVACY }));
  return askingForCookieDeprecation(jsonResponse(200, response), input, account, deps);
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
