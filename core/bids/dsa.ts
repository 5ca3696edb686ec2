/**
 * The EU Digital Services Act transparency signals, as Prebid Server handles them: the request's `regs.ext.dsa` goes
 * to the bidders unchanged (the account's default fills it in when the request has none), and a bid's `ext.dsa` is
 * checked against it.
 */
import { isJsonObject, type AccountSettings, type Bid, type BidRequest } from '../api/index.js';

/** `dsarequired` values under which a bid without `ext.dsa` is refused: required, and required for an online platform. */
const REQUIRED = new Set([2, 3]);
const PUBLISHER_CANNOT_RENDER = 0;
const PUBLISHER_WILL_RENDER = 2;
const ADVERTISER_WILL_RENDER = 1;
const MAX_TEXT = 100;

export interface DsaRequirements {
  required: boolean;
  pubRender?: number;
}

/** `regs.ext.dsa` of the request, when it has one. */
function requestDsa(request: BidRequest): Record<string, unknown> | undefined {
  const ext = request.regs?.ext;
  return isJsonObject(ext) && isJsonObject(ext.dsa) ? ext.dsa : undefined;
}

/**
 * Writes the account's default DSA object (`privacy.dsa.default`, a JSON string) into `regs.ext.dsa` when the request
 * has none; with `gdpr_only`, only for requests under GDPR. A default that is not a JSON object is ignored.
 */
export function applyDefaultDsa(request: BidRequest, account: AccountSettings, gdprApplies: boolean): void {
  if (requestDsa(request)) return;
  const privacy = account.privacy;
  const dsa = isJsonObject(privacy) ? privacy.dsa : undefined;
  if (!isJsonObject(dsa) || typeof dsa.default !== 'string' || dsa.default === '') return;
  if (dsa.gdpr_only === true && !gdprApplies) return;
  let defaults: unknown;
  try {
    defaults = JSON.parse(dsa.default);
  } catch {
    return;
  }
  if (!isJsonObject(defaults)) return;
  const regs = (request.regs ??= {});
  regs.ext = { ...(isJsonObject(regs.ext) ? regs.ext : {}), dsa: defaults };
}

/** What the request asks of bids, or undefined when it has no DSA object. */
export function dsaRequirements(request: BidRequest): DsaRequirements | undefined {
  const dsa = requestDsa(request);
  if (!dsa) return undefined;
  return { required: REQUIRED.has(dsa.dsarequired as number), pubRender: typeof dsa.pubrender === 'number' ? dsa.pubrender : undefined };
}

/** Why a bid's `ext.dsa` does not meet the request's, or undefined when it does (Prebid Server's messages). */
export function dsaError(bid: Bid, requirements: DsaRequirements | undefined): string | undefined {
  const ext = bid.ext;
  const dsa = isJsonObject(ext) && isJsonObject(ext.dsa) ? ext.dsa : undefined;
  if (!dsa) return requirements?.required ? 'DSA object missing when required' : undefined;
  if (typeof dsa.behalf === 'string' && dsa.behalf.length > MAX_TEXT) return 'DSA behalf exceeds limit of 100 chars';
  if (typeof dsa.paid === 'string' && dsa.paid.length > MAX_TEXT) return 'DSA paid exceeds limit of 100 chars';
  const adRender = typeof dsa.adrender === 'number' ? dsa.adrender : undefined;
  if (requirements?.pubRender !== undefined && adRender !== undefined) {
    if (requirements.pubRender === PUBLISHER_CANNOT_RENDER && adRender !== ADVERTISER_WILL_RENDER) return 'DSA publisher and buyer both signal will not render';
    if (requirements.pubRender === PUBLISHER_WILL_RENDER && adRender === ADVERTISER_WILL_RENDER) return 'DSA publisher and buyer both signal will render';
  }
  return undefined;
}
