import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { GavelConfig } from '../config/index.js';
import type { PrivacyService } from '../privacy/index.js';
import type { AccountLoader } from '../accounts/index.js';
import { ErrorCode, type AccountSettings } from '../api/index.js';
import { readUidsCookie, requestCookie, type UidsCookie } from './uids-cookie.js';

/** What the user-sync endpoints need from the running server. */
export interface UserSyncDeps {
  config: GavelConfig;
  bidders: BidderCatalog;
  /** Consent for syncs: activity `syncUser`, GDPR purpose 1, US privacy opt-out (core/privacy). */
  privacy: PrivacyService;
  /** Loads the account a sync request names; without it, syncs run under the host's defaults. */
  accounts?: AccountLoader;
  /** Epoch ms; tests pin it to check expiry. */
  now: () => number;
}

/** The browser's sync state as one request shows it. */
export interface UserState {
  cookie: UidsCookie;
  /** The user asked not to be synced: no id is written and no sync offered. */
  optedOut: boolean;
}

/**
 * Reads the `uids` cookie and the opt-out signals: `"optout":true` inside the cookie (Prebid Server's opt-out),
 * or the host's own opt-out cookie (`userSync.optOutCookie`).
 */
export function readUserState(request: EndpointRequest, config: GavelConfig['userSync']): UserState {
  const cookie = readUidsCookie(request.uidsCookie);
  const optOutValue = requestCookie(request.headers.cookie, config.optOutCookie.name);
  const hostOptOut = optOutValue !== undefined && optOutValue !== '' && (config.optOutCookie.value === undefined || optOutValue === config.optOutCookie.value);
  return { cookie, optedOut: cookie.optOut || hostOptOut };
}

/**
 * The answer to a sync request from a user who opted out: 401, as Prebid Server answers, with its body (`/cookie_sync`
 * says `User has opted out`; `/setuid` says nothing).
 */
export function optedOutResponse(body = ''): EndpointResponse {
  return { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: body === '' ? '' : `${body}\n` };
}

/**
 * The GPP section ids of `gpp_sid` as Prebid Server reads them (a comma-separated list of 8-bit integers, nothing else
 * around them); undefined when it cannot. An empty value is an empty list.
 */
export function parseGppSid(value: string): number[] | undefined {
  if (value === '') return [];
  const ids: number[] = [];
  for (const part of value.split(',')) {
    if (!/^[+-]?\d+$/.test(part)) return undefined;
    const id = Number(part);
    if (id < -128 || id > 127) return undefined;
    ids.push(id);
  }
  return ids;
}

/** The GPP section of the TCF EU v2 string: a `gpp_sid` naming it says GDPR applies. */
export const GPP_TCF_EU_V2_SECTION = 2;

/**
 * The account a sync request names (`account`; none is Prebid Server's "unknown" publisher, which a host requiring
 * accounts refuses), else the host's defaults (`accounts.defaults`) when no account store runs; or, when the account
 * refuses the request, Prebid Server's text for why (its sync endpoints answer each with a 400).
 */
export async function syncAccountOf(deps: UserSyncDeps, accountId: unknown): Promise<{ account: AccountSettings } | { refusal: string }> {
  if (!deps.accounts) return { account: (deps.config.accounts.defaults ?? {}) as AccountSettings };
  let loaded = deps.accounts.load(typeof accountId === 'string' ? accountId : '', { deadline: deps.now() + deps.config.auction.defaultTmaxMs });
  if (loaded instanceof Promise) loaded = await loaded;
  if ('refusal' in loaded) return { refusal: ACCOUNT_REFUSALS[loaded.refusal.code] ?? loaded.refusal.message };
  return { account: loaded.account };
}

/** Prebid Server's sync endpoints' words for the account errors it tells apart. */
const ACCOUNT_REFUSALS: Record<string, string> = {
  [ErrorCode.AccountDisabled]: 'account is disabled, please reach out to the prebid server host',
  [ErrorCode.AccountRequired]: 'account must be valid if provided, please reach out to the prebid server host',
  [ErrorCode.AccountMalformed]: 'account config is malformed and could not be read',
};

/**
 * A sync endpoint's 400 as Prebid Server writes it: the text alone, as plain text (`/cookie_sync` ends each line with
 * a newline, as Go's `http.Error`; `/setuid` writes the bare text).
 */
export function badSyncRequest(messages: string[], newline: boolean): EndpointResponse {
  return { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: newline ? messages.map((message) => `${message}\n`).join('') : messages.join('\n') };
}

/** A bidder's GVL vendor id: the host's (`privacy.gdpr.bidderVendorIds`), else its adapter manifest's. */
export function vendorIdOf(deps: UserSyncDeps, bidder: string): number | undefined {
  return deps.config.privacy.gdpr.bidderVendorIds[bidder] ?? deps.bidders.get(bidder)?.info.gvlVendorId;
}
