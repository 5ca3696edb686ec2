import type { AccountOutcome } from '../accounts/index.js';
import type { AccountSettings } from '../api/index.js';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import { VAST_EVENT_TYPES, type EventRequest, type VastEventType } from './event-urls.js';

/** An event `GET /event` accepted, with the account it belongs to: what the event consumers (analytics) receive. */
export interface NotificationEvent {
  request: EventRequest;
  account: AccountSettings;
}

/** Receives every event `GET /event` accepts for analytics. Must not throw or block: the pixel is answered at once. */
export type EventConsumer = (event: NotificationEvent) => void;

/**
 * The account of an id as the account service resolves it (`Tokens.Accounts`): the host's defaults under what the
 * account sets (an id no backend knows runs on the defaults), or why it may not be used (disabled, malformed...).
 */
export type AccountLoader = (id: string) => AccountOutcome | Promise<AccountOutcome>;

export interface EventEndpointServices {
  loadAccount: AccountLoader;
  onEvent: EventConsumer;
  /** Time limit of loading the account (`events.timeoutMs`). */
  timeoutMs: number;
  /** The host's bidders, to write an event's `bidder` as the host names it. */
  bidders?: Pick<BidderCatalog, 'get'>;
}

/** A transparent 1x1 PNG, the answer to `f=i`. */
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** Bytes of UTF-8, as Go's `len` counts a string. */
const INTEGRATION_MAX_LENGTH = 64;
/** Go's `unicode.IsLetter` (any letter) and `unicode.IsDigit` (decimal digits only), `-` and `_`. */
const INTEGRATION_PATTERN = /^[\p{L}\p{Nd}_-]*$/u;
/** `strconv.ParseInt(ts, 10, 64)`: an optional sign, then decimal digits, within int64. */
const TIMESTAMP_PATTERN = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const text = (status: number, body: string): EndpointResponse => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });

/**
 * `GET /event?t=win|imp|vast&b=<bid id>&a=<account>[&bidder=][&ts=][&f=b|i][&x=0|1][&int=][&vtype=]`, as Prebid
 * Server answers it: a malformed event is a 400 listing every problem; without an account, a 401; `x=0` is a 204 that
 * reaches no one; an account that does not enable events is a 401; otherwise the event goes to the consumers
 * (analytics) and the answer is a 204, or the pixel for `f=i`.
 */
export async function handleEvent(input: EndpointRequest, services: EventEndpointServices): Promise<EndpointResponse> {
  const parsed = parseEvent(input.query, services.bidders);
  if ('errors' in parsed) return text(400, parsed.errors.map((error) => `invalid request: ${error}\n`).join(''));
  const event = parsed.event;
  if (!event.accountId) return text(401, "Account 'a' is required query parameter and can't be empty");
  if (event.analytics === false) return { status: 204, headers: {}, body: undefined };

  const loaded = await accountOf(event.accountId, services);
  if ('refused' in loaded) return loaded.refused;
  const account = loaded.account;
  const events = account.events;
  if (typeof events !== 'object' || events === null || (events as { enabled?: unknown }).enabled !== true) {
    return text(401, `Account '${event.accountId}' doesn't support events`);
  }
  services.onEvent({ request: event, account });
  if (event.format === 'i') return { status: 200, headers: { 'content-type': 'image/png' }, body: PIXEL_PNG };
  return { status: 204, headers: {}, body: undefined };
}

/**
 * The account, or the answer when it cannot be used: the account service's refusal (its status, the message as
 * Prebid Server writes account errors), a 504 when it takes longer than the limit, a 500 when it fails.
 */
export async function accountOf(
  id: string,
  services: { loadAccount: AccountLoader; timeoutMs: number },
): Promise<{ account: AccountSettings } | { refused: EndpointResponse }> {
  let outcome: AccountOutcome;
  try {
    outcome = await withTimeout(Promise.resolve(services.loadAccount(id)), services.timeoutMs);
  } catch (err) {
    const timedOut = err instanceof AccountTimeout;
    return { refused: text(timedOut ? 504 : 500, `Invalid request: ${timedOut ? 'timed out reading the account' : 'the account could not be read'}\n`) };
  }
  if ('refusal' in outcome) return { refused: text(outcome.refusal.status, `Invalid request: ${outcome.refusal.message}\n`) };
  return { account: outcome.account };
}

/**
 * Reads an event from the query; every problem is listed (Prebid Server's wording). A `bidder` this host knows is
 * written as the host names it, whatever the case it came in (Prebid Server's `NormalizeBidderName`).
 */
export function parseEvent(query: Record<string, string>, bidders?: Pick<BidderCatalog, 'get'>): { event: EventRequest } | { errors: string[] } {
  const errors: string[] = [];
  const required = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined || value === '') errors.push(`parameter '${name}' is required`);
    return value || undefined;
  };
  const type = required('t');
  if (type !== undefined && type !== 'win' && type !== 'imp' && type !== 'vast') errors.push(`unknown type: '${type}'`);
  let vtype: VastEventType | undefined;
  if (type === 'vast') {
    const given = required('vtype');
    if (given !== undefined && !(VAST_EVENT_TYPES as readonly string[]).includes(given)) errors.push(`unknown vtype: '${given}'`);
    else vtype = given as VastEventType | undefined;
  } else if (query.vtype) errors.push("parameter 'vtype' is only required for t=vast");
  const bidId = required('b');

  let timestamp: number | undefined;
  if (query.ts) {
    timestamp = parseInt64(query.ts);
    if (timestamp === undefined) errors.push(`invalid request: error parsing timestamp '${query.ts}'`);
  }
  const format = query.f || undefined;
  if (format !== undefined && format !== 'b' && format !== 'i') errors.push(`unknown format: '${format}'`);
  const analytics = query.x || undefined;
  if (analytics !== undefined && analytics !== '1' && analytics !== '0') errors.push(`unknown analytics: '${analytics}'`);
  const integration = query.int ?? '';
  const badIntegration = integrationError(integration);
  if (badIntegration) errors.push(badIntegration);
  if (errors.length > 0) return { errors };

  const event: EventRequest = { type: type as EventRequest['type'], bidId: bidId!, accountId: query.a ?? '', analytics: analytics !== '0' };
  if (vtype) event.vtype = vtype;
  if (query.bidder) event.bidder = bidders?.get(query.bidder)?.name ?? query.bidder;
  if (timestamp !== undefined) event.timestamp = timestamp;
  if (format) event.format = format as EventRequest['format'];
  if (integration) event.integration = integration;
  return { event };
}

export class AccountTimeout extends Error {}

/** The promise's value, or an AccountTimeout after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AccountTimeout()), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A decimal integer as `strconv.ParseInt(text, 10, 64)` reads it, or undefined where it fails (syntax or range). */
function parseInt64(text: string): number | undefined {
  if (!TIMESTAMP_PATTERN.test(text)) return undefined;
  if (text.length > 18) {
    const exact = BigInt(text);
    if (exact < INT64_MIN || exact > INT64_MAX) return undefined;
  }
  return Number(text);
}

/**
 * What is wrong with an integration type (`int`), if anything: Prebid Server takes letters, decimal digits, `-` and
 * `_`, at most 64 bytes of UTF-8.
 */
export function integrationError(value: string): string | undefined {
  if (value.length > INTEGRATION_MAX_LENGTH || Buffer.byteLength(value) > INTEGRATION_MAX_LENGTH) return 'integration type length is too long';
  if (!INTEGRATION_PATTERN.test(value)) return "integration type can only contain numbers, letters and these characters '-', '_'";
  return undefined;
}
