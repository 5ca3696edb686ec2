/**
 * Media.net bidder: the whole auction share goes to Media.net in one call, as Prebid Server re-encodes it (Media.net
 * reads `cid` and `crid` from `imp.ext.bidder` itself). The endpoint carries `src`, the host's own address, so Media.net knows which
 * server integration called. Bids must say their markup type in `bid.mtype`.
 */
import {
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  mediaTypeFromMtype,
  encodeAsOpenrtb2Request,
  unknownError,
  goQueryEscape,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type TypedBid,
} from '../../core/api/index.js';

/** Prebid Server's shipped `extra_info` for Media.net; a host names its own with `bidders.medianet.extra.src`. */
export const DEFAULT_SOURCE = 'https://medianet.golang.pbs.com';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8' };

export function createMedianetBidder(config: BidderConfig): Bidder {
  const source = typeof config.extra.src === 'string' ? config.extra.src : DEFAULT_SOURCE;
  const uri = endpointWithSource(config.endpoint, source);
  return {
    makeRequests(request) {
      const impIds = (Array.isArray(request.imp) ? request.imp : []).map((imp) => imp.id);
      return { requests: [{ method: 'POST', uri, body: encodeAsOpenrtb2Request(request), headers: { ...HEADERS }, impIds }] };
    },

    makeBids(_request, _sent, response) {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;

      // The decoder's error goes back as it is (a generic error): one bad bid fails the whole answer.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeFromMtype(bid.mtype, ['banner', 'video', 'native']);
          if (type) bids.push({ bid, type });
          else errors.push(unknownError(`Unable to fetch mediaType for imp: ${bid.impid}`));
        }
      }
      // Media.net's answers are priced in USD; the response's `cur` is not read.
      return errors.length > 0 ? { currency: 'USD', bids, errors } : { currency: 'USD', bids };
    },
  };
}

/**
 * The endpoint with `src=<source>` added to its query, which is then written out as Go's `url.Values.Encode` does:
 * keys sorted, values form-encoded. No source leaves the endpoint as it is, and so does an endpoint that is not a
 * URL.
 */
export function endpointWithSource(endpoint: string, source: string): string {
  if (source === '') return endpoint;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return endpoint;
  }
  const values = new Map<string, string[]>();
  for (const [key, value] of [...url.searchParams, ['src', source] as [string, string]]) {
    values.set(key, [...(values.get(key) ?? []), value]);
  }
  url.search = [...values.keys()]
    .sort()
    .flatMap((key) => values.get(key)!.map((value) => `${goQueryEscape(key)}=${goQueryEscape(value)}`))
    .join('&');
  return url.href;
}

