/**
 * The EU Digital Services Act transparency signals, as Prebid Server handles them: the request's `regs.ext.dsa` goes
 * to the bidders unchanged (the account's default fills it in when the request has none), and a bid's `ext.dsa` is
 * checked against it.
 */
import { isJsonObject, type AccountSettings, type Bid, type BidRequest } from '../api/index.js';
import { unpackDsaDefault } from '../accounts/dsa-default.js';

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
 * has none; with `gdpr_only`, only for requests where GDPR is enforced (`gdprEnforced`: it applies, by signal or by
 * the host's guess from geo, and is switched on), as Prebid Server's dsa.Writer is given its `GDPREnforced`. The
 * default is written as Prebid Server unpacks it (`openrtb_ext.ExtRegsDSA`, see unpackDsaDefault).
 */
export function applyDefaultDsa(request: BidRequest, account: AccountSettings, gdprEnforced: boolean): void {
  if (requestDsa(request)) return;
  const privacy = account.privacy;
  const dsa = isJsonObject(privacy) ? privacy.dsa : undefined;
  if (!isJsonObject(dsa) || typeof dsa.default !== 'string' || dsa.default === '') return;
  if (dsa.gdpr_only === true && !gdprEnforced) return;
  const defaults = unpackedDefault(dsa.default);
  if (!defaults) return;
  const regs = (request.regs ??= {});
  regs.ext = { ...(isJsonObject(regs.ext) ? regs.ext : {}), dsa: defaults };
}

/** The last default unpacked: an account's default is the same string on every request. */
let lastDefault: { text: string; unpacked: Record<string, unknown> | undefined } = { text: '', unpacked: undefined };

/**
 * The account's default as Prebid Server's `ExtRegsDSA` holds it (see unpackDsaDefault; an account whose default does
 * not unpack is refused when it is loaded). A fresh copy each time: each request's `regs` is its own.
 */
function unpackedDefault(text: string): Record<string, unknown> | undefined {
  if (lastDefault.text !== text) {
    const unpacked = unpackDsaDefault(text);
    lastDefault = { text, unpacked: 'value' in unpacked ? unpacked.value : undefined };
  }
  return lastDefault.unpacked && structuredClone(lastDefault.unpacked);
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
  if (typeof dsa.behalf === 'string' && tooLong(dsa.behalf)) return 'DSA behalf exceeds limit of 100 chars';
  if (typeof dsa.paid === 'string' && tooLong(dsa.paid)) return 'DSA paid exceeds limit of 100 chars';
  const adRender = typeof dsa.adrender === 'number' ? dsa.adrender : undefined;
  if (requirements?.pubRender !== undefined && adRender !== undefined) {
    if (requirements.pubRender === PUBLISHER_CANNOT_RENDER && adRender !== ADVERTISER_WILL_RENDER) return 'DSA publisher and buyer both signal will not render';
    if (requirements.pubRender === PUBLISHER_WILL_RENDER && adRender === ADVERTISER_WILL_RENDER) return 'DSA publisher and buyer both signal will render';
  }
  return undefined;
}

/**
 * Prebid Server counts the limit in UTF-8 bytes (Go's `len`), not characters. A string of at most 33 UTF-16 units is
 * at most 99 bytes, so most never need the count.
 */
function tooLong(text: string): boolean {
  return text.length > MAX_TEXT || (text.length > MAX_TEXT / 3 && Buffer.byteLength(text, 'utf8') > MAX_TEXT);
}
