import { invalidRequest, jsonResponse, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import { cookieAttributes, uidsSetCookieHeader } from './uids-cookie.js';
import { readUserState, type UserSyncDeps } from './user-state.js';

export const GETUIDS_PATH = '/getuids';
export const OPTOUT_PATH = '/optout';

/**
 * GET /getuids: every id of the `uids` cookie, expired ones too (Prebid Server's `GetUIDs` does not look at expiry),
 * `{"buyeruids": {<key>: <id>}}` (`{}` when none or opted out), as Prebid Server answers.
 */
export async function handleGetUids(request: EndpointRequest, deps: UserSyncDeps): Promise<EndpointResponse> {
  const state = readUserState(request, deps.config.userSync);
  const uids: Record<string, string> = {};
  if (!state.optedOut) for (const [key, entry] of state.cookie.uids) uids[key] = entry.uid;
  const answer = jsonResponse(200, Object.keys(uids).length > 0 ? { buyeruids: uids } : {});
  answer.headers['cache-control'] = 'no-store';
  return answer;
}

/** The host's opt-out cookie, set (opted out) or removed. Same flags as the `uids` cookie: sent from publishers' pages. */
function optOutCookie(deps: UserSyncDeps, optedOut: boolean): string {
  const settings = deps.config.userSync;
  const { maxAgeSeconds, domain } = cookieAttributes(settings);
  const parts = [`${settings.optOutCookie.name}=${optedOut ? (settings.optOutCookie.value ?? '1') : ''}`, 'Path=/', `Max-Age=${optedOut ? maxAgeSeconds : 0}`];
  if (domain) parts.push(`Domain=${domain}`);
  parts.push('SameSite=None', 'Secure', 'HttpOnly');
  return parts.join('; ');
}

function page(optedOut: boolean): string {
  const status = optedOut ? 'You have opted out: this service stores no ids for you and offers no syncs.' : 'You have not opted out: bidders may store an id for you in this service\'s cookie.';
  const next = optedOut ? 'false' : 'true';
  const label = optedOut ? 'Opt back in' : 'Opt out';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>User sync opt-out</title></head>
<body>
<h1>User sync opt-out</h1>
<p id="status">${status}</p>
<button id="switch" type="button">${label}</button>
<script>
document.getElementById('switch').addEventListener('click', async () => {
  await fetch(location.pathname, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ optout: ${next} }) });
  location.reload();
});
</script>
</body></html>
`;
}

/** GET /optout: a page saying whether the user opted out, with the switch. */
export async function handleOptOutPage(request: EndpointRequest, deps: UserSyncDeps): Promise<EndpointResponse> {
  const state = readUserState(request, deps.config.userSync);
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body: page(state.optedOut) };
}

/**
 * POST /optout `{"optout": true}`: sets the host's opt-out cookie (`userSync.optOutCookie`) and deletes the `uids`
 * cookie; `{"optout": false}` removes the opt-out cookie. Answers `{"optout": <state>}`.
 */
export async function handleOptOut(request: EndpointRequest, deps: UserSyncDeps): Promise<EndpointResponse> {
  const optout = request.body?.optout;
  if (typeof optout !== 'boolean') return invalidRequest(['"optout" must be true (opt out of user syncing) or false (opt back in)']);
  const cookies = [optOutCookie(deps, optout)];
  if (optout) cookies.push(uidsSetCookieHeader('', { ...cookieAttributes(deps.config.userSync), maxAgeSeconds: 0 }));
  // Two Set-Cookie headers: the edge hands the list to Node's setHeader, which writes one header per cookie.
  return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'set-cookie': cookies as unknown as string }, body: { optout } };
}
