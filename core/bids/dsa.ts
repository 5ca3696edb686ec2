/**
 * The EU Digital Services Act transparency signals, as Prebid Server handles them: the request's `regs.ext.dsa` goes
 * to the bidders unchanged (the account's default fills it in when the request has none), and a bid's `ext.dsa` is
 * checked against it.
 */
import { decodeExtBid, fieldIgnoringCase, isJsonObject, type AccountSettings, type Bid, type BidRequest, type JsonObject } from '../api/index.js';
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

/**
 * `regs.ext.dsa` of the request, when it has one: Prebid Server looks the member up by its exact name, and holds an
 * empty DSA object for one that is `null` (so no default is written over it, and it requires nothing).
 */
function requestDsa(request: BidRequest): JsonObject | undefined {
  const ext = request.regs?.ext;
  if (!isJsonObject(ext) || !Object.hasOwn(ext, 'dsa')) return undefined;
  return isJsonObject(ext.dsa) ? ext.dsa : ext.dsa === null ? {} : undefined;
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
  // Its members are decoded into Prebid Server's struct, so matched ignoring case.
  const pubRender = fieldIgnoringCase(dsa, 'pubrender');
  return { required: REQUIRED.has(fieldIgnoringCase(dsa, 'dsarequired') as number), pubRender: typeof pubRender === 'number' ? pubRender : undefined };
}

/** Why a bid's `ext.dsa` does not meet the request's, or undefined when it does (Prebid Server's messages). */
export function dsaError(bid: Bid, requirements: DsaRequirements | undefined): string | undefined {
  const dsa = bidDsa(bid.ext);
  if (!dsa) return requirements?.required ? 'DSA object missing when required' : undefined;
  const behalf = fieldIgnoringCase(dsa, 'behalf');
  if (typeof behalf === 'string' && tooLong(behalf)) return 'DSA behalf exceeds limit of 100 chars';
  const paid = fieldIgnoringCase(dsa, 'paid');
  if (typeof paid === 'string' && tooLong(paid)) return 'DSA paid exceeds limit of 100 chars';
  const adrender = fieldIgnoringCase(dsa, 'adrender');
  const adRender = typeof adrender === 'number' ? adrender : undefined;
  if (requirements?.pubRender !== undefined && adRender !== undefined) {
    if (requirements.pubRender === PUBLISHER_CANNOT_RENDER && adRender !== ADVERTISER_WILL_RENDER) return 'DSA publisher and buyer both signal will not render';
    if (requirements.pubRender === PUBLISHER_WILL_RENDER && adRender === ADVERTISER_WILL_RENDER) return 'DSA publisher and buyer both signal will render';
  }
  return undefined;
}

/**
 * A bid's DSA object as Prebid Server reads it, decoding `bid.ext` into its `openrtb_ext.ExtBid`: `dsa` matched
 * ignoring case, and none (as if missing) when it is `null` or when any typed member of the ext does not decode (a
 * `behalf` that is not a string, an `adrender` that is not an int8, a `prebid.meta` of the wrong shape...). The ext is
 * decoded only when it has a DSA object, the one case where the answer depends on it.
 */
function bidDsa(ext: unknown): JsonObject | undefined {
  if (!isJsonObject(ext)) return undefined;
  const dsa = fieldIgnoringCase(ext, 'dsa');
  if (!isJsonObject(dsa)) return undefined;
  return 'error' in decodeExtBid(ext) ? undefined : dsa;
}

/**
 * Prebid Server counts the limit in UTF-8 bytes (Go's `len`), not characters. A string of at most 33 UTF-16 units is
 * at most 99 bytes, so most never need the count.
 */
function tooLong(text: string): boolean {
  return text.length > MAX_TEXT || (text.length > MAX_TEXT / 3 && Buffer.byteLength(text, 'utf8') > MAX_TEXT);
}
