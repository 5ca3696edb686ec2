import {
  BidderErrorCode,
  ConversionNotFoundError,
  currencyCodeProblem,
  isJsonObject,
  NonBidReason,
  type AuctionBid,
  type BidderError,
  type BidderExchange,
  type BidderRequest,
  type BidRequest,
  type FledgeAuctionConfig,
  type MediaType,
  type RequestData,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
  type Warning,
} from '../api/index.js';
import type { BidderEntry } from '../bidders/catalog.js';
import { asPrebidMeta, prebidMetaOf } from '../bids/bid-meta.js';
import type { AuctionObserver, BidderCallFact } from '../context/observer.js';
import type { ConvertPrice } from '../currency/index.js';
import { isTimeout, ResponseTooLargeError, HostQueueFullError, type AuctionCalls, type BidderTransport } from '../bidders/transport.js';

/**
 * One exchange with a bidder's server, as `ext.debug.httpcalls.<bidder>[]` reports it: Prebid Server's `ExtHttpCall`,
 * whose five members are always written, each at its zero value when there is nothing to show (a GET has body `""`,
 * a call with no headers `null`, a call that brought no answer status `0` and body `""`).
 */
export interface HttpCallRecord {
  uri: string;
  requestbody: string;
  /** As Prebid Server reports them: each header's values as a list. */
  requestheaders: Record<string, string[]> | null;
  responsebody: string;
  status: number;
}

export interface BidderCallResult {
  bids: AuctionBid[];
  errors: BidderError[];
  httpCalls: HttpCallRecord[];
  /** How each exchange ended on the wire, for the raw-bidder-response hooks. */
  exchanges: BidderExchange[];
  /** Protected Audience configs from every answer, in the order the answers were read; absent when none gave any. */
  fledgeAuctionConfigs?: FledgeAuctionConfig[];
  /** The calls that failed (no answer, or a failure status), with the seat non-bid reason for their imps. */
  failedCalls?: FailedCall[];
}

/** A call that brought no answer to read: its imps are seat non-bids (Prebid Server's `rejectImps`). */
export interface FailedCall {
  impIds: readonly string[];
  /** `NonBidReason`: 101 timeout, 103 bidder unreachable, 100 anything else. */
  reason: number;
}

/**
 * A call's body as JSON text. With `branchTexts`, a plain-object body is written member by member and the text of
 * each object member is kept for the auction: the bidders of one auction mostly send the very same `site`, `device`,
 * `user`, `regs` and `source` objects (their shares copy only what differs), so each is written once, not once per
 * bidder. The text is what `JSON.stringify` of the body gives.
 */
export function serialiseBody(call: RequestData, branchTexts?: Map<object, string>): string | undefined {
  const body = call.body;
  if (body === undefined || call.method === 'GET') return undefined;
  if (typeof body === 'string') return body;
  if (branchTexts === undefined || !isPlainObject(body)) return JSON.stringify(body);
  // Pieces joined once: one flat string, as the socket write needs, rather than a rope of concatenations.
  const pieces = ['{'];
  for (const key of Object.keys(body)) {
    const value = body[key];
    let valueText: string | undefined;
    if (typeof value === 'object' && value !== null) {
      valueText = branchTexts.get(value);
      if (valueText === undefined) {
        valueText = JSON.stringify(value);
        branchTexts.set(value, valueText);
      }
    } else valueText = scalarJson(value);
    // Members JSON leaves out (undefined, functions) are left out here too.
    if (valueText === undefined) continue;
    if (pieces.length > 1) pieces.push(',');
    pieces.push(memberOpening(key), valueText);
  }
  pieces.push('}');
  return pieces.join('');
}

/** An object JSON writes member by member: no prototype of its own, no `toJSON` to answer for it. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** A scalar as JSON: numbers and booleans written here, a JSON.stringify call costing more than the text it makes. */
function scalarJson(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value);
}

/** `"key":` for each member name seen, kept for the names a request's top level uses (a bounded few). */
const memberOpenings = new Map<string, string>();

function memberOpening(key: string): string {
  let opening = memberOpenings.get(key);
  if (opening === undefined) {
    opening = JSON.stringify(key) + ':';
    if (memberOpenings.size < 256) memberOpenings.set(key, opening);
  }
  return opening;
}

/** Why a call that failed on the wire got no bid, as Prebid Server's seat non-bids say it (non_bid_reason.go). */
function failureReason(err: unknown): number {
  if (err instanceof HostQueueFullError || isTimeout(err)) return NonBidReason.ErrorTimeout;
  return isUnreachable(err) ? NonBidReason.ErrorBidderUnreachable : NonBidReason.ErrorGeneral;
}

/** A refused connection or a host name that does not resolve, on the error or the cause undici wraps. */
function isUnreachable(err: unknown): boolean {
  const code = socketError(err)?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND';
}

interface SocketError {
  code?: unknown;
  cause?: unknown;
  address?: unknown;
  port?: unknown;
  hostname?: unknown;
}

/** The error that names what went wrong on the socket: the one given, or the cause undici wraps it in. */
function socketError(err: unknown): SocketError | undefined {
  for (let at = err as SocketError | undefined, depth = 0; at && depth < 3; at = at.cause as SocketError | undefined, depth++) {
    if (typeof at.code === 'string' && !at.code.startsWith('UND_ERR_')) return at;
  }
  return undefined;
}

/**
 * The message of an answer whose status is below 200 or from 400 on: Prebid Server's bidder layer reports it this
 * way and never hands such an answer to the adapter (bidder.go, `doRequestImpl`).
 */
export function failureStatusMessage(status: number): string {
  return `Server responded with failure status: ${status}. Set request.test = 1 for debugging info.`;
}

/** Prebid Server's text for a call not made for too little time left (`errortypes.TmaxTimeout`, code 12). */
export const TMAX_EXCEEDED = 'exceeded tmax duration';

/** Prebid Server's text for a call its auction stopped waiting for: the Go context's deadline error. */
export const CALL_TIMED_OUT = 'context deadline exceeded';

function describeFailure(call: RequestData, err: unknown): BidderError {
  if (err instanceof HostQueueFullError) return { code: BidderErrorCode.Timeout, message: `Timeout: the call was not made: ${err.message}` };
  if (isTimeout(err)) return { code: BidderErrorCode.Timeout, message: CALL_TIMED_OUT };
  if (err instanceof ResponseTooLargeError) return { code: BidderErrorCode.BadServerResponse, message: `Bad server response: ${err.message}` };
  // Any other failure is Go's *url.Error in Prebid Server, an error with no code of its own (999).
  return { code: BidderErrorCode.Unknown, message: `${call.method[0]}${call.method.slice(1).toLowerCase()} ${JSON.stringify(call.uri)}: ${socketFailure(err)}` };
}

/** What Go's HTTP client says of a failed exchange, for the failures both stacks name alike; Node's own text for the rest. */
function socketFailure(err: unknown): string {
  const at = socketError(err);
  if (at?.code === 'ECONNREFUSED' && typeof at.address === 'string' && typeof at.port === 'number') {
    return `dial tcp ${at.address.includes(':') ? `[${at.address}]` : at.address}:${at.port}: connect: connection refused`;
  }
  if (at?.code === 'ENOTFOUND' && typeof at.hostname === 'string') return `dial tcp: lookup ${at.hostname}: no such host`;
  // The bidder closed the connection before a whole answer: Go reads an unexpected end of the stream.
  if ((err as { code?: unknown })?.code === 'UND_ERR_SOCKET' && at === undefined) return 'EOF';
  return (err as Error)?.message ?? String(err);
}

/** Prebid Server's text for an adapter that made no call and gave no error (`errortypes.FailedToRequestBids`). */
export const NO_REQUESTS_NO_ERRORS = 'The adapter failed to generate any bid requests, but also failed to generate an error explaining why';

/** How one auction calls its bidders: the same for every bidder of the auction, so built once per auction. */
export interface BidderCallOptions {
  endpoint: 'auction' | 'amp' | 'video';
  /** Keep each exchange for `ext.debug.httpcalls`. */
  recordCalls: boolean;
  /** The auction's currency: bid prices are converted into it. */
  currency: string;
  convert: ConvertPrice;
  /** Prebid Server's error text for a pair `convert` could not price (see conversionFailure); its rate-not-found text without it. */
  conversionFailure?: (from: string, to: string) => string;
  /** The same conversion for adapters: throws when no rate is known (`RequestInfo.convertCurrency`). */
  convertCurrency: RequestInfo['convertCurrency'];
  /** Records an adapter's warning for `response.ext.warnings.<bidder>` (the request context's `warn`). */
  warn?: (bidder: string, warning: Warning) => void;
  /** Told of each exchange when the auction is watched (debug log, inspector). */
  observer?: AuctionObserver;
  /** The auction's calls, ended together when it stops waiting. */
  calls?: AuctionCalls;
  /**
   * A call with less time than this left before `deadline` is not made: Prebid Server's `TmaxTimeout` of its enforced
   * tmax adjustments (`bidder_response_duration_min_ms`). Absent: every call is made.
   */
  minCallTimeMs?: number;
  /**
   * The JSON of the request branches already written for this auction's bidders (see serialiseBody); absent when
   * the auction has too few bidders for it to pay. A branch's text is kept until the auction ends, so a branch must
   * not change once a bidder's request holds it: a change replaces the branch instead (the SDK's `withFields`).
   */
  branchTexts?: Map<object, string>;
}

/**
 * Asks one bidder for bids: the adapter builds the calls, the core checks each URL against the bidder's endpoint
 * (a call to anywhere else never leaves), sends them concurrently, and hands each answer back to the adapter.
 * Never throws: every failure becomes an error for this bidder alone.
 */
export function callBidder(
  entry: BidderEntry,
  share: BidderRequest,
  transport: BidderTransport,
  deadline: number,
  options: BidderCallOptions,
): Promise<BidderCallResult> {
  const result: BidderCallResult = { bids: [], errors: [], httpCalls: [], exchanges: [] };
  let built;
  try {
    built = entry.bidder!.makeRequests(share.request, { bidder: share.bidder, endpoint: options.endpoint, convertCurrency: options.convertCurrency });
  } catch (err) {
    result.errors.push({ code: BidderErrorCode.Unknown, message: `adapter ${entry.adapter} failed to build requests: ${(err as Error).message}` });
    return Promise.resolve(result);
  }
  if (built.errors) result.errors.push(...built.errors);
  recordWarnings(built.warnings, share, options);
  const calls = built.requests;
  const send = options.observer ? observedExchange : exchange;
  // Most adapters make one call per auction: its exchange is the bidder's whole answer, with no promise around it.
  if (calls.length === 1) return send(entry, share, calls[0]!, transport, deadline, options, result);
  if (calls.length === 0) {
    // Prebid Server counts an adapter that neither asks nor says why as a fault of the adapter (bidder.go).
    if (result.errors.length === 0 && !built.warnings?.length) result.errors.push({ code: BidderErrorCode.FailedToRequestBids, message: NO_REQUESTS_NO_ERRORS });
    return Promise.resolve(result);
  }
  return Promise.all(calls.map((call) => send(entry, share, call, transport, deadline, options, result))).then(() => result);
}

type ExchangeArgs = [entry: BidderEntry, share: BidderRequest, call: RequestData, transport: BidderTransport, deadline: number, options: BidderCallOptions, result: BidderCallResult];

/** An exchange of a watched auction: timed, and reported to the observer when it ends. */
async function observedExchange(...args: ExchangeArgs): Promise<BidderCallResult> {
  const [, share, call, , , options, result] = args;
  const observer = options.observer!;
  const fact: BidderCallFact = { bidder: share.bidder, host: hostOf(call.uri), sentAt: observer.now() };
  observer.bidderCallSent(fact);
  const errorsBefore = result.errors.length;
  await exchange(...args, fact);
  fact.answeredAt = observer.now();
  if (result.errors.length > errorsBefore) fact.error = result.errors[errorsBefore];
  observer.bidderCallEnded(fact);
  return result;
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return '';
  }
}

/**
 * One call: the endpoint check, the send, and the adapter's reading of the answer into `result`, which it returns.
 * One `then` on the send rather than an async function: it runs for every bidder of every auction.
 */
function exchange(
  entry: BidderEntry,
  share: BidderRequest,
  call: RequestData,
  transport: BidderTransport,
  deadline: number,
  options: BidderCallOptions,
  result: BidderCallResult,
  facts?: BidderCallFact,
): Promise<BidderCallResult> {
  if (!entry.endpoint!.allows(call.uri)) {
    result.errors.push({ code: BidderErrorCode.BadInput, message: `refused to call ${call.uri}: it is not on the configured endpoint ${entry.endpoint!.template}` });
    return Promise.resolve(result);
  }
  let bodyText: string | undefined;
  let record: HttpCallRecord | undefined;
  try {
    bodyText = serialiseBody(call, options.branchTexts);
    record = options.recordCalls ? { uri: maskedUri(call), requestbody: bodyText ?? '', requestheaders: headerLists(call) ?? null, responsebody: '', status: 0 } : undefined;
  } catch (err) {
    return Promise.reject(err);
  }
  if (record) result.httpCalls.push(record);
  if (options.minCallTimeMs !== undefined && deadline - Date.now() < options.minCallTimeMs) {
    result.errors.push({ code: BidderErrorCode.TmaxTimeout, message: TMAX_EXCEEDED });
    result.exchanges.push({ failure: 'timeout' });
    (result.failedCalls ??= []).push({ impIds: call.impIds, reason: NonBidReason.ErrorGeneral });
    return Promise.resolve(result);
  }
  let sending: Promise<ResponseData>;
  try {
    sending = transport.send(call, bodyText, { timeoutMs: transportTimeout(deadline), deadline, calls: options.calls, gzip: entry.info.endpointCompression === 'gzip' });
  } catch (err) {
    sending = Promise.reject(err);
  }
  return sending.then(
    (response) => {
      result.exchanges.push({ status: response.status });
      if (facts) {
        facts.status = response.status;
        facts.bytes = Buffer.byteLength(response.body);
      }
      if (response.status < 200 || response.status >= 400) {
        // The debug record keeps status 0 and no body: Prebid Server writes the answer only for a call without error.
        result.errors.push({ code: BidderErrorCode.BadServerResponse, message: failureStatusMessage(response.status) });
        (result.failedCalls ??= []).push({ impIds: call.impIds, reason: NonBidReason.ErrorGeneral });
        return result;
      }
      if (record) {
        record.status = response.status;
        record.responsebody = response.body;
      }
      return readAnswer(entry, share, call, response, options, result);
    },
    (err: unknown) => {
      result.errors.push(describeFailure(call, err));
      result.exchanges.push({ failure: isTimeout(err) ? 'timeout' : err instanceof ResponseTooLargeError ? 'too-large' : 'network' });
      (result.failedCalls ??= []).push({ impIds: call.impIds, reason: failureReason(err) });
      return result;
    },
  );
}

/**
 * The adapter's reading of one answer into `result` (bids priced in the auction currency, errors, warnings): for an
 * answer from the bidder's server, or one kept as a stored bid response.
 */
export function readAnswer(
  entry: BidderEntry,
  share: BidderRequest,
  call: RequestData,
  response: ResponseData,
  options: BidderCallOptions,
  result: BidderCallResult,
): BidderCallResult {
  if (response.status === 204) return result;
  let parsed;
  try {
    parsed = entry.bidder!.makeBids(share.request, call, response);
  } catch (err) {
    result.errors.push({ code: BidderErrorCode.BadServerResponse, message: `adapter ${entry.adapter} failed to read the response: ${(err as Error).message}` });
    return result;
  }
  if (parsed.errors && parsed.errors.length > 0) result.errors.push(...parsed.errors);
  recordWarnings(parsed.warnings, share, options);
  // Kept whatever becomes of the bids (unpriced, dropped later): they are the browser's auction, not this one.
  if (parsed.fledgeAuctionConfigs && parsed.fledgeAuctionConfigs.length > 0) (result.fledgeAuctionConfigs ??= []).push(...parsed.fledgeAuctionConfigs);
  const currency = parsed.currency || 'USD';
  // Prebid Server reads both codes before any rate, the same currency included: one it cannot read prices no bid.
  const unreadable = parsed.bids.length > 0 ? currencyCodeProblem(currency) ?? currencyCodeProblem(options.currency) : undefined;
  if (unreadable !== undefined) {
    result.errors.push({ code: BidderErrorCode.Unknown, message: unreadable });
    return result;
  }
  let unpriced = false;
  for (const typed of parsed.bids) {
    const originalPrice = typed.bid.price;
    const price = options.convert(originalPrice, currency, options.currency);
    if (price === undefined) {
      unpriced = true;
      continue;
    }
    // The bid object came from parsing this response: the auction owns it and edits it in place from here on.
    typed.bid.price = price;
    result.bids.push(auctionBid(typed, share, originalPrice, currency));
  }
  if (unpriced) {
    const message = options.conversionFailure?.(currency, options.currency) ?? new ConversionNotFoundError(currency.toUpperCase(), options.currency.toUpperCase()).message;
    result.errors.push({ code: BidderErrorCode.Unknown, message });
  }
  return result;
}

/** Adapter warnings go to `response.ext.warnings.<bidder>`, under the name the bidder runs as in this auction. */
function recordWarnings(warnings: Warning[] | undefined, share: BidderRequest, options: BidderCallOptions): void {
  if (!warnings || warnings.length === 0 || !options.warn) return;
  for (const warning of warnings) options.warn(share.bidder, warning);
}

/** What `ext.debug.httpcalls` shows in place of a secret. */
export const MASKED = '[masked]';
/** Headers that carry credentials whatever the adapter: never shown in debug output. */
const SECRET_HEADERS = new Set(['proxy-authorization', 'cookie', 'set-cookie']);

/**
 * The call's headers as debug output shows them: each as a list, `Authorization` left out (Prebid Server's
 * `filterHeader`), other credentials and the adapter's secrets masked.
 */
function headerLists(call: RequestData): Record<string, string[]> | undefined {
  const headers = call.headers;
  if (!headers) return undefined;
  const secret = call.secret?.headers?.map((name) => name.toLowerCase());
  const lists: Record<string, string[]> = {};
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization') continue;
    lists[name] = [SECRET_HEADERS.has(lower) || secret?.includes(lower) ? MASKED : headers[name]!];
  }
  return lists;
}

/** The call's URL as debug output shows it: the query parameters the adapter marked secret masked. */
function maskedUri(call: RequestData): string {
  const params = call.secret?.params;
  if (!params || params.length === 0) return call.uri;
  let url: URL;
  try {
    url = new URL(call.uri);
  } catch {
    return call.uri;
  }
  for (const name of params) if (url.searchParams.has(name)) url.searchParams.set(name, MASKED);
  return url.toString();
}

/** Steps the transport's timeout is rounded up to. */
const TRANSPORT_TIMEOUT_STEP_MS = 25;

/**
 * How long the transport may wait for this call: the time left, rounded up to a 25 ms step. The auction stops
 * waiting at the exact deadline on its own timer; this timeout only ends the calls it abandoned. Rounded because
 * undici keeps a call's timer when the next call on the connection asks for the same duration, and Node keeps one
 * timer list per distinct duration: a duration that changes with every call costs a new timer and list each time.
 */
function transportTimeout(deadline: number): number {
  const left = Math.max(1, deadline - Date.now());
  return Math.ceil(left / TRANSPORT_TIMEOUT_STEP_MS) * TRANSPORT_TIMEOUT_STEP_MS;
}

/** The adapter's bid as the auction tracks it. Built field by field: every AuctionBid then shares one shape. */
function auctionBid(typed: TypedBid, share: BidderRequest, originalPrice: number, originalCurrency: string): AuctionBid {
  const bid: AuctionBid = {
    bid: typed.bid,
    type: typed.type,
    bidder: share.bidder,
    adapter: share.adapter,
    originalPrice,
    originalCurrency,
    targeting: {},
    winner: false,
    bidderBest: false,
  };
  if (typed.seat !== undefined) bid.seat = typed.seat;
  if (typed.dealPriority !== undefined) bid.dealPriority = typed.dealPriority;
  if (typed.video !== undefined) bid.video = typed.video;
  if (typed.meta !== undefined) bid.meta = asPrebidMeta(typed.meta);
  const ext = typed.bid.ext;
  if (ext && (ext.prebid !== undefined || ext.svc !== undefined)) takeOverBidExt(bid, ext);
  return bid;
}

/**
 * The service's own part of a bid's ext (`ext.prebid` / `ext.svc`) is the service's to write, as in Prebid Server: what
 * a bidder put there is dropped, except `meta` when the adapter gave none of its own, and the media type the bidder
 * named in `ext.prebid.type` (which price granularity by media type reads).
 */
function takeOverBidExt(bid: AuctionBid, ext: Record<string, unknown>): void {
  for (const ns of ['prebid', 'svc'] as const) {
    const own = ext[ns];
    if (own === undefined) continue;
    if (bid.meta === undefined && isJsonObject(own)) bid.meta = prebidMetaOf(own.meta);
    if (ns === 'prebid' && isJsonObject(own) && typeof own.type === 'string' && NAMED_TYPES.has(own.type)) bid.namedType = own.type as MediaType;
    delete ext[ns];
  }
}

const NAMED_TYPES: ReadonlySet<string> = new Set(['banner', 'video', 'audio', 'native']);
