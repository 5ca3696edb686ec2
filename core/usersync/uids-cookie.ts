/**
 * The `uids` cookie (reference-behaviour section 6): base64 of
 * `{"tempUIDs":{"<syncer key>":{"uid":"...","expires":"<RFC 3339>"}},"optout":true?}`. The JSON shape is Prebid
 * Server's, so a host moving between the two keeps its users' ids.
 */

const UIDS_COOKIE_NAME = 'uids';
import { isJsonObject } from '../api/index.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Bidder ids from the `uids` cookie, keyed by each bidder's user-sync key. */
export type CookieUids = Record<string, string>;

export interface UidEntry {
  uid: string;
  /** Epoch ms after which the id is no longer used. */
  expires: number;
}

/** The decoded cookie: every entry it held (live or not) and the user's opt-out. */
export interface UidsCookie {
  uids: Map<string, UidEntry>;
  optOut: boolean;
}

interface UidsCookieJson {
  tempUIDs?: Record<string, { uid?: unknown; expires?: unknown }>;
  optout?: unknown;
}


function emptyCookie(): UidsCookie {
  return { uids: new Map(), optOut: false };
}

/**
 * Decodes the cookie. Entries without a usable uid or expiry are skipped; a cookie that is not base64 JSON reads
 * as empty (a browser may carry any junk under our name, and that must never fail a request).
 */
export function readUidsCookie(value: string | undefined): UidsCookie {
  if (!value) return emptyCookie();
  let decoded: unknown;
  try {
    // Buffer's base64 decoder takes both the standard and the URL-safe alphabet, padded or not.
    decoded = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return emptyCookie();
  }
  if (!isJsonObject(decoded)) return emptyCookie();
  const json = decoded as UidsCookieJson;
  const cookie: UidsCookie = { uids: new Map(), optOut: json.optout === true };
  if (!isJsonObject(json.tempUIDs)) return cookie;
  for (const [key, entry] of Object.entries(json.tempUIDs)) {
    if (!isJsonObject(entry) || typeof entry.uid !== 'string' || entry.uid === '') continue;
    const expires = typeof entry.expires === 'string' ? Date.parse(entry.expires) : NaN;
    if (Number.isNaN(expires)) continue;
    cookie.uids.set(key, { uid: entry.uid, expires });
  }
  return cookie;
}

/** The ids still live at `now`, keyed by syncer key: what the auction gives bidders as `user.buyeruid`. */
export function liveUids(cookie: UidsCookie, now: number): CookieUids {
  const live: CookieUids = {};
  for (const [key, entry] of cookie.uids) if (entry.expires > now) live[key] = entry.uid;
  return live;
}

/** Reads the cookie's live ids; malformed or expired entries yield nothing. */
export function parseUidsCookie(value: string | undefined, now: number): CookieUids {
  return liveUids(readUidsCookie(value), now);
}

/** Stores (or replaces) one id, live for `ttlDays` from `now`. */
export function setUid(cookie: UidsCookie, key: string, uid: string, now: number, ttlDays: number): void {
  cookie.uids.set(key, { uid, expires: now + ttlDays * DAY_MS });
}

/** A time as Go's `time.RFC3339Nano` writes a UTC one, which Prebid Server's cookie carries: no trailing zero digits. */
function rfc3339Nano(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.?0+Z$/, 'Z');
}

/**
 * Encodes the cookie value: URL-safe base64 with padding, as Prebid Server writes it (its reader insists on the
 * padding; ours takes either).
 */
export function encodeUidsCookie(cookie: UidsCookie): string {
  const tempUIDs: Record<string, { uid: string; expires: string }> = {};
  for (const [key, entry] of cookie.uids) tempUIDs[key] = { uid: entry.uid, expires: rfc3339Nano(entry.expires) };
  const json: UidsCookieJson = { tempUIDs };
  if (cookie.optOut) json.optout = true;
  const base64 = Buffer.from(JSON.stringify(json), 'utf8').toString('base64url');
  return base64.padEnd(Math.ceil(base64.length / 4) * 4, '=');
}

/** Bytes the browser counts for the cookie against its size limit: `uids=<value>`. */
export function cookieSize(encodedValue: string): number {
  return UIDS_COOKIE_NAME.length + 1 + encodedValue.length;
}

/**
 * Makes the cookie fit for writing: expired entries go, then, while `uids=<value>` is over `maxBytes`, the entry
 * that expires first. Returns the encoded value.
 */
export function fitUidsCookie(cookie: UidsCookie, now: number, maxBytes: number): string {
  for (const [key, entry] of cookie.uids) if (entry.expires <= now) cookie.uids.delete(key);
  const soonestFirst = [...cookie.uids].sort(([, a], [, b]) => a.expires - b.expires).map(([key]) => key);
  let encoded = encodeUidsCookie(cookie);
  for (const key of soonestFirst) {
    if (cookieSize(encoded) <= maxBytes) break;
    cookie.uids.delete(key);
    encoded = encodeUidsCookie(cookie);
  }
  return encoded;
}

export interface CookieAttributes {
  maxAgeSeconds: number;
  domain?: string;
}

/**
 * The `Set-Cookie` value. `SameSite=None` because the cookie is read and written from publishers' pages (a
 * third-party context), and browsers refuse `SameSite=None` without `Secure`; `HttpOnly` because no script needs it.
 * An empty value with `Max-Age=0` deletes the cookie.
 */
export function uidsSetCookieHeader(encodedValue: string, attributes: CookieAttributes): string {
  const parts = [`${UIDS_COOKIE_NAME}=${encodedValue}`, 'Path=/', `Max-Age=${attributes.maxAgeSeconds}`];
  if (attributes.domain) parts.push(`Domain=${attributes.domain}`);
  parts.push('SameSite=None', 'Secure', 'HttpOnly');
  return parts.join('; ');
}

/**
 * The `uids` cookie /setuid writes, in the form of Prebid Server's `WriteCookie` (Go's `http.Cookie` in its order):
 * `uids=<value>; Path=/[; Domain=<domain>]; Expires=<now + cookieTtlDays>`; a cookie left with no id is written empty.
 * Unlike Prebid Server, which adds `Secure; SameSite=None` only for the Chromes that need them (by the user agent) and
 * never `HttpOnly`, every browser gets `Secure; SameSite=None; HttpOnly`: the cookie is read in third-party contexts,
 * which needs the first two wherever a browser honours them, and no script of any page needs to read user ids.
 */
export function writtenUidsCookie(encodedValue: string, config: { cookieTtlDays: number; cookieDomain?: string }, now: number): string {
  const parts = [`${UIDS_COOKIE_NAME}=${encodedValue}`, 'Path=/'];
  if (config.cookieDomain) parts.push(`Domain=${config.cookieDomain.replace(/^\./, '')}`);
  parts.push(`Expires=${new Date(now + config.cookieTtlDays * DAY_MS).toUTCString()}`, 'Secure', 'SameSite=None', 'HttpOnly');
  return parts.join('; ');
}

/** Cookie attributes from the host's `userSync` config. */
export function cookieAttributes(config: { cookieTtlDays: number; cookieDomain?: string }): CookieAttributes {
  return { maxAgeSeconds: config.cookieTtlDays * DAY_MS / 1000, domain: config.cookieDomain };
}

/** One cookie's value from a `Cookie` request header, or undefined. */
export function requestCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    const value = pair.slice(separator + 1).trim();
    return value.startsWith('"') && value.endsWith('"') && value.length >= 2 ? value.slice(1, -1) : value;
  }
  return undefined;
}
