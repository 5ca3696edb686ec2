import { invalidRequest, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import type { UserSyncInfo } from '../api/index.js';
import { listSyncers, resolveSyncKey, syncerForBidder, syncerKey } from './syncers.js';
import { cookieAttributes, cookieSize, encodeUidsCookie, fitUidsCookie, setUid, uidsSetCookieHeader, type UidsCookie } from './uids-cookie.js';
import { GPP_TCF_EU_V2_SECTION, optedOutResponse, parseGppSid, readUserState, syncConsentOf, vendorIdOf, type UserSyncDeps } from './user-state.js';

export const SETUID_PATH = '/setuid';

/**
 * The transparent 1x1 GIF answered to `f=i`: a sync redirect lands in an `<img>`, which wants an image back.
 * Header, 1x1 screen with a two-colour table, a graphic-control block making colour 0 transparent, one pixel.
 */
export const PIXEL_GIF = Buffer.from('47494638396101000100800000000000ffffff21f90401000000002c000000000100010000020144003b', 'hex');

/** How the answer is shaped for the element that made the call (`f`). */
type SetuidFormat = 'empty' | 'image' | 'html';

const FORMATS: Record<string, SetuidFormat> = { i: 'image', b: 'html' };

/**
 * `f` (`b` or `i`, in any case); without one, the element the bidder's own sync lands in: an iframe sync's is a
 * page, a redirect's an image, as Prebid Server defaults it by the syncer's type.
 */
function formatOf(f: string | undefined, sync: UserSyncInfo | undefined): SetuidFormat | undefined {
  if (f === undefined || f === '') return sync?.iframe?.url ? 'html' : sync?.redirect?.url ? 'image' : 'empty';
  return FORMATS[f.toLowerCase()];
}

function answer(format: SetuidFormat, setCookie: string): EndpointResponse {
  // A sync answer is per user and changes their cookie: nothing on the way may cache it.
  const headers: Record<string, string> = { 'set-cookie': setCookie, 'cache-control': 'no-store' };
  if (format === 'image') return { status: 200, headers: { ...headers, 'content-type': 'image/gif' }, body: PIXEL_GIF };
  if (format === 'html') return { status: 200, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' }, body: '' };
  return { status: 200, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body: '' };
}

/**
 * The query's problems, in Prebid Server's order and words: the bidder, the answer's format, `gpp_sid`, then the GDPR
 * signal (from `gpp_sid` when it names sections, else `gdpr`) and the consent it requires.
 */
function queryProblems(request: EndpointRequest, deps: UserSyncDeps): { problems: string[]; key?: string; format?: SetuidFormat } {
  const { query } = request;
  const bidder = query.bidder;
  if (!bidder) return { problems: ['"bidder" query param is required'] };
  const key = resolveSyncKey(deps.bidders, bidder);
  if (!key) return { problems: ['The bidder name provided is not supported by Prebid Server'] };
  const sync = syncerForBidder(deps.bidders, bidder)?.info ?? listSyncers(deps.bidders).find((syncer) => syncer.key === key)?.info;
  const format = formatOf(query.f, sync);
  if (!format) return { problems: ['"f" query param is invalid. must be "b" or "i"'] };
  const gppSid = parseGppSid(query.gpp_sid ?? '');
  if (!gppSid) return { problems: ['invalid gpp_sid encoding, must be a csv list of integers'] };
  const gdpr = query.gdpr ?? '';
  let signal = gdpr;
  if (gppSid.length > 0) signal = gppSid.includes(GPP_TCF_EU_V2_SECTION) ? '1' : '0';
  else if (gdpr !== '' && gdpr !== '0' && gdpr !== '1') return { problems: [`the gdpr query param must be either 0 or 1. You gave ${gdpr}`] };
  if (signal === '1' && !query.gdpr_consent && !query.gpp) return { problems: ['GDPR consent is required when gdpr signal equals 1'] };
  return { problems: [], key, format };
}

/** True when one id alone would not fit in the cookie: no eviction could make room for it. */
function tooLongAlone(key: string, uid: string, maxBytes: number): boolean {
  const alone: UidsCookie = { uids: new Map([[key, { uid, expires: 0 }]]), optOut: false };
  return cookieSize(encodeUidsCookie(alone)) > maxBytes;
}

/**
 * GET /setuid?bidder=<bidder or cookie key>&uid=<id>[&gdpr=&gdpr_consent=&f=i|b]: where a bidder's sync redirect
 * lands. Stores the id in the `uids` cookie (an empty or absent `uid` removes it), unless the user opted out.
 */
export async function handleSetuid(request: EndpointRequest, deps: UserSyncDeps): Promise<EndpointResponse> {
  const settings = deps.config.userSync;
  const state = readUserState(request, settings);
  if (state.optedOut) return optedOutResponse();
  const { problems, key, format } = queryProblems(request, deps);
  if (problems.length > 0 || !key || !format) return invalidRequest(problems);

  // Named by its cookie key (`adnxs`), the bidder is the first one syncing under that key.
  const bidder = deps.bidders.get(request.query.bidder!) ? request.query.bidder! : ([...deps.bidders.entries.values()].find((entry) => syncerKey(entry) === key)?.name ?? key);
  const consent = await syncConsentOf(deps, request.query.account, { gdpr: request.query.gdpr ?? '', consent: request.query.gdpr_consent ?? '', gppSid: request.query.gpp_sid });
  if ('status' in consent) return consent;
  const refusal = consent.setuidRefusal(bidder, vendorIdOf(deps, bidder));
  if (refusal) return { status: refusal.status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: refusal.body };

  const uid = request.query.uid ?? '';
  const now = deps.now();
  if (uid === '') state.cookie.uids.delete(key);
  else if (tooLongAlone(key, uid, settings.maxCookieBytes)) return invalidRequest([`"uid" query param is too long: the uids cookie may hold ${settings.maxCookieBytes} bytes`]);
  else setUid(state.cookie, key, uid, now, settings.uidTtlDays);

  const encoded = fitUidsCookie(state.cookie, now, settings.maxCookieBytes);
  const attributes = cookieAttributes(settings);
  // Nothing left to keep: delete the cookie rather than carry an empty one on every request.
  const setCookie = state.cookie.uids.size === 0 ? uidsSetCookieHeader('', { ...attributes, maxAgeSeconds: 0 }) : uidsSetCookieHeader(encoded, attributes);
  return answer(format, setCookie);
}
