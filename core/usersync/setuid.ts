import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import { readGpp, type SetuidRefusal } from '../privacy/index.js';
import type { UserSyncInfo } from '../api/index.js';
import { listSyncers, resolveSyncKey, syncerForBidder, syncerKey } from './syncers.js';
import { cookieSize, encodeUidsCookie, fitUidsCookie, setUid, writtenUidsCookie, type UidsCookie } from './uids-cookie.js';
import { badSyncRequest, GPP_TCF_EU_V2_SECTION, optedOutResponse, parseGppSid, readUserState, syncAccountOf, vendorIdOf, type UserSyncDeps } from './user-state.js';

export const SETUID_PATH = '/setuid';

/**
 * The transparent 1x1 PNG answered to `f=i`, as Prebid Server answers it: a sync redirect lands in an `<img>`, which
 * wants an image back. Signature, IHDR (1x1, 8-bit RGBA), one zlib-deflated transparent pixel, IEND.
 */
export const PIXEL_PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000b49444154789c6360000200000500017a5eab3f0000000049454e44ae426082', 'hex');

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
  if (format === 'image') return { status: 200, headers: { ...headers, 'content-type': 'image/png' }, body: PIXEL_PNG };
  if (format === 'html') return { status: 200, headers: { ...headers, 'content-type': 'text/html' }, body: '' };
  return { status: 200, headers: { ...headers, 'content-type': 'text/plain; charset=utf-8' }, body: '' };
}

/** The bidder's cookie key and the answer's format, or Prebid Server's words for why the query names neither. */
function bidderAndFormat(request: EndpointRequest, deps: UserSyncDeps): { problem: string } | { key: string; format: SetuidFormat } {
  const { query } = request;
  const bidder = query.bidder;
  if (!bidder) return { problem: '"bidder" query param is required' };
  const key = resolveSyncKey(deps.bidders, bidder);
  if (!key) return { problem: 'The bidder name provided is not supported by Prebid Server' };
  const sync = syncerForBidder(deps.bidders, bidder)?.info ?? listSyncers(deps.bidders).find((syncer) => syncer.key === key)?.info;
  const format = formatOf(query.f, sync);
  if (!format) return { problem: '"f" query param is invalid. must be "b" or "i"' };
  return { key, format };
}

/**
 * The GDPR signal ("1", "0", "" when not said) and consent, as Prebid Server's `extractGDPRInfo` reads them: `gpp_sid`
 * naming sections decides the signal, and the GPP string's TCF EU v2 section is the consent; only when neither says
 * anything do `gdpr` (0 or 1) and `gdpr_consent` count. A signal of 1 needs a consent.
 */
function gdprOf(query: EndpointRequest['query'], gppSid: number[]): { gdpr: string; consent: string } | { problem: string } {
  let gdpr = gppSid.length === 0 ? '' : gppSid.includes(GPP_TCF_EU_V2_SECTION) ? '1' : '0';
  let consent = '';
  if (query.gpp) {
    const gpp = readGpp({ gpp: query.gpp, gpp_sid: gppSid });
    if (gpp.invalid !== undefined) return { problem: gpp.invalid };
    consent = gpp.tcfConsent ?? '';
  }
  const legacy = query.gdpr ?? '';
  if (legacy !== '' && gdpr === '' && legacy !== '0' && legacy !== '1') return { problem: `the gdpr query param must be either 0 or 1. You gave ${legacy}` };
  if (consent === '' && gdpr === '') {
    gdpr = legacy;
    consent = query.gdpr_consent ?? '';
  }
  if (consent === '' && gdpr === '1') return { problem: 'GDPR consent is required when gdpr signal equals 1' };
  return { gdpr, consent };
}

function refused(refusal: SetuidRefusal): EndpointResponse {
  return { status: refusal.status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: refusal.body };
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
  const named = bidderAndFormat(request, deps);
  if ('problem' in named) return badSyncRequest([named.problem], false);
  const { key, format } = named;
  const found = await syncAccountOf(deps, request.query.account);
  if ('refusal' in found) return badSyncRequest([found.refusal], false);
  const gppSid = parseGppSid(request.query.gpp_sid ?? '');
  if (!gppSid) return badSyncRequest(['invalid gpp_sid encoding, must be a csv list of integers'], false);

  // Named by its cookie key (`adnxs`), the bidder is the first one syncing under that key.
  const bidder = deps.bidders.get(request.query.bidder!) ? request.query.bidder! : ([...deps.bidders.entries.values()].find((entry) => syncerKey(entry) === key)?.name ?? key);
  // Prebid Server asks the syncUser activity before it reads the GDPR signals.
  const activity = deps.privacy.syncConsent({ gdpr: '0', consent: '', gppSid: request.query.gpp_sid }, found.account).setuidRefusal(bidder, undefined);
  if (activity) return refused(activity);
  const gdpr = gdprOf(request.query, gppSid);
  if ('problem' in gdpr) return badSyncRequest([gdpr.problem], false);
  const consent = deps.privacy.syncConsent({ gdpr: gdpr.gdpr, consent: gdpr.consent, gppSid: request.query.gpp_sid }, found.account);
  const refusal = consent.setuidRefusal(bidder, vendorIdOf(deps, bidder));
  if (refusal) return refused(refusal);

  const uid = request.query.uid ?? '';
  const now = deps.now();
  if (uid === '') state.cookie.uids.delete(key);
  else if (tooLongAlone(key, uid, settings.maxCookieBytes)) return badSyncRequest(["uid that's trying to be synced is bigger than MaxCookieSize"], false);
  else setUid(state.cookie, key, uid, now, settings.uidTtlDays);

  const encoded = fitUidsCookie(state.cookie, now, settings.maxCookieBytes);
  // As Prebid Server: a cookie with no id left is written empty, not deleted.
  const setCookie = writtenUidsCookie(state.cookie.uids.size === 0 ? '' : encoded, settings, now);
  return answer(format, setCookie);
}
