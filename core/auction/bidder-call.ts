import {
  BidderErrorCode,
  type AuctionBid,
  type BidderError,
  type BidderRequest,
  type BidRequest,
  type RequestData,
  type ResponseData,
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

/**
 * Asks one bidder for bids: the adapter builds the calls, the core checks each URL against the bidder's endpoint
 * (a call to anywhere else never leaves), sends them concurrently, and hands each answer back to the adapter.
 * Never throws: every failure becomes an error for this bidder alone.
 */
export async function callBidder(
  entry: BidderEntry,
  share: BidderRequest,
  transport: BidderTransport,
  deadline: number,
  options: { endpoint: 'auction' | 'amp' | 'video'; recordCalls: boolean; currency: string; convert: ConvertPrice },
): Promise<BidderCallResult> {
  const result: BidderCallResult = { bids: [], errors: [], httpCalls: [] };
  const bidder = entry.bidder!;
  let built;
  try {
    built = bidder.makeRequests(share.request, { bidder: share.bidder, endpoint: options.endpoint });
  } catch (err) {
    result.errors.push({ code: BidderErrorCode.Unknown, message: `adapter ${entry.adapter} failed to build requests: ${(err as Error).message}` });
    return result;
  }
  if (built.errors) result.errors.push(...built.errors);
  const gzip = entry.info.endpointCompression === 'gzip';

  await Promise.all(
    built.requests.map(async (call) => {
      if (!entry.endpoint!.allows(call.uri)) {
        result.errors.push({ code: BidderErrorCode.BadInput, message: `refused to call ${call.uri}: it is not on the configured endpoint ${entry.endpoint!.template}` });
        return;
      }
      const bodyText = serialiseBody(call);
      const record: HttpCallRecord | undefined = options.recordCalls ? { uri: call.uri, requestbody: bodyText, requestheaders: call.headers } : undefined;
      if (record) result.httpCalls.push(record);
      let response: ResponseData;
      try {
        response = await transport.send(call, bodyText, { timeoutMs: Math.max(1, Math.round(deadline - Date.now())), gzip });
      } catch (err) {
        result.errors.push(describeFailure(err));
        return;
      }
      if (record) {
        record.status = response.status;
        record.responsebody = response.body;
      }
      if (response.status === 204) return;
      let parsed;
      try {
        parsed = bidder.makeBids(share.request, call, response);
      } catch (err) {
        result.errors.push({ code: BidderErrorCode.BadServerResponse, message: `adapter ${entry.adapter} failed to read the response: ${(err as Error).message}` });
        return;
      }
      if (parsed.errors) result.errors.push(...parsed.errors);
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
        result.bids.push({
          ...typed,
          bidder: share.bidder,
          adapter: share.adapter,
          originalPrice,
          originalCurrency: currency,
          targeting: {},
          winner: false,
          bidderBest: false,
        });
      }
      if (unpriced) {
        result.errors.push({ code: BidderErrorCode.Unknown, message: `Currency conversion rate not found: '${currency}' => '${options.currency}'. Bids dropped.` });
      }
    }),
  );
  return result;
}

