import {
  BidderErrorCode,
  type AuctionBid,
  type BidderError,
  type BidderRequest,
  type BidRequest,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../api/index.js';
import type { BidderEntry } from '../bidders/catalog.js';
import type { ConvertPrice } from '../currency/index.js';
import { isTimeout, ResponseTooLargeError, type BidderTransport } from '../bidders/transport.js';

/** One exchange with a bidder's server, as `ext.debug.httpcalls.<bidder>[]` reports it. */
export interface HttpCallRecord {
  uri: string;
  requestbody?: string;
  requestheaders?: Record<string, string>;
  responsebody?: string;
  status?: number;
}

export interface BidderCallResult {
  bids: AuctionBid[];
  errors: BidderError[];
  httpCalls: HttpCallRecord[];
}

function serialiseBody(call: RequestData): string | undefined {
  if (call.body === undefined || call.method === 'GET') return undefined;
  return typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
}

function describeFailure(err: unknown): BidderError {
  if (isTimeout(err)) return { code: BidderErrorCode.Timeout, message: 'Timeout: the bidder did not answer before the auction deadline' };
  if (err instanceof ResponseTooLargeError) return { code: BidderErrorCode.BadServerResponse, message: `Bad server response: ${err.message}` };
  return { code: BidderErrorCode.BadServerResponse, message: `Server error: ${(err as Error)?.message ?? String(err)}` };
}

/** How one auction calls its bidders: the same for every bidder of the auction, so built once per auction. */
export interface BidderCallOptions {
  endpoint: 'auction' | 'amp' | 'video';
  /** Keep each exchange for `ext.debug.httpcalls`. */
  recordCalls: boolean;
  /** The auction's currency: bid prices are converted into it. */
  currency: string;
  convert: ConvertPrice;
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
  const result: BidderCallResult = { bids: [], errors: [], httpCalls: [] };
  let built;
  try {
    built = entry.bidder!.makeRequests(share.request, { bidder: share.bidder, endpoint: options.endpoint });
  } catch (err) {
    result.errors.push({ code: BidderErrorCode.Unknown, message: `adapter ${entry.adapter} failed to build requests: ${(err as Error).message}` });
    return Promise.resolve(result);
  }
  if (built.errors) result.errors.push(...built.errors);
  const calls = built.requests;
  // Most adapters make one call per auction: its exchange is the bidder's whole answer, with no promise around it.
  if (calls.length === 1) return exchange(entry, share, calls[0]!, transport, deadline, options, result);
  if (calls.length === 0) return Promise.resolve(result);
  return Promise.all(calls.map((call) => exchange(entry, share, call, transport, deadline, options, result))).then(() => result);
}

/** One call: the endpoint check, the send, and the adapter's reading of the answer into `result`, which it returns. */
async function exchange(
  entry: BidderEntry,
  share: BidderRequest,
  call: RequestData,
  transport: BidderTransport,
  deadline: number,
  options: BidderCallOptions,
  result: BidderCallResult,
): Promise<BidderCallResult> {
  if (!entry.endpoint!.allows(call.uri)) {
    result.errors.push({ code: BidderErrorCode.BadInput, message: `refused to call ${call.uri}: it is not on the configured endpoint ${entry.endpoint!.template}` });
    return result;
  }
  const bodyText = serialiseBody(call);
  const record: HttpCallRecord | undefined = options.recordCalls ? { uri: call.uri, requestbody: bodyText, requestheaders: call.headers } : undefined;
  if (record) result.httpCalls.push(record);
  let response: ResponseData;
  try {
    response = await transport.send(call, bodyText, { timeoutMs: transportTimeout(deadline), gzip: entry.info.endpointCompression === 'gzip' });
  } catch (err) {
    result.errors.push(describeFailure(err));
    return result;
  }
  if (record) {
    record.status = response.status;
    record.responsebody = response.body;
  }
  if (response.status === 204) return result;
  let parsed;
  try {
    parsed = entry.bidder!.makeBids(share.request, call, response);
  } catch (err) {
    result.errors.push({ code: BidderErrorCode.BadServerResponse, message: `adapter ${entry.adapter} failed to read the response: ${(err as Error).message}` });
    return result;
  }
  if (parsed.errors && parsed.errors.length > 0) result.errors.push(...parsed.errors);
  const currency = parsed.currency || 'USD';
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
    result.errors.push({ code: BidderErrorCode.Unknown, message: `Currency conversion rate not found: '${currency}' => '${options.currency}'. Bids dropped.` });
  }
  return result;
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
  return bid;
}
