import type { EndpointServices } from '../app/endpoints.js';
import type { EndpointHandler } from '../http/app.js';
import { COOKIE_SYNC_PATH, handleCookieSync } from './cookie-sync.js';
import { handleSetuid, SETUID_PATH } from './setuid.js';
import { GETUIDS_PATH, handleGetUids, handleOptOut, handleOptOutPage, OPTOUT_PATH } from './optout.js';
import type { UserSyncDeps } from './user-state.js';

export { COOKIE_SYNC_PATH, chooseSyncs, handleCookieSync, type BidderSyncStatus, type CookieSyncResponse } from './cookie-sync.js';
export { readCookieSyncRequest, type CookieSyncRequest, type PrivacySignals, type SyncType } from './cookie-sync-request.js';
export { handleSetuid, PIXEL_PNG, SETUID_PATH } from './setuid.js';
export { GETUIDS_PATH, handleGetUids, handleOptOut, handleOptOutPage, OPTOUT_PATH } from './optout.js';
export { listSyncers, resolveSyncKey, syncerForBidder, syncerKey, type Syncer } from './syncers.js';
export { setuidRedirectTemplate, syncUrl } from './sync-url.js';
export * from './uids-cookie.js';
export { readUserState, type UserState, type UserSyncDeps } from './user-state.js';

/** The user-sync handlers over explicit dependencies (tests pin the clock here). */
export function userSyncHandlers(deps: UserSyncDeps): { jsonPost: Record<string, EndpointHandler>; get: Record<string, EndpointHandler> } {
  return {
    jsonPost: { [COOKIE_SYNC_PATH]: (request) => handleCookieSync(request, deps), [OPTOUT_PATH]: (request) => handleOptOut(request, deps) },
    get: {
      [SETUID_PATH]: (request) => handleSetuid(request, deps),
      [GETUIDS_PATH]: (request) => handleGetUids(request, deps),
      [OPTOUT_PATH]: (request) => handleOptOutPage(request, deps),
    },
  };
}

/** POST /cookie_sync, GET /setuid, GET /getuids, GET and POST /optout (user sync: spec 2.12 and 4.4, reference behaviour 6). */
export function userSyncRoutes(services: EndpointServices): { jsonPost: Record<string, EndpointHandler>; get: Record<string, EndpointHandler> } {
  return userSyncHandlers({ config: services.config, bidders: services.bidders, privacy: services.privacy, accounts: services.accounts, now: Date.now });
}
