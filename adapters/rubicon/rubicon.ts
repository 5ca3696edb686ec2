/**
 * Rubicon Project (Magnite) bidder: one XAPI call per imp, or per imp and media type with `bidonmultiformat`.
 */
import { badInput, isJsonObject, requestOption, type Bidder, type BidderError, type BidRequest, type RequestData } from '../../core/api/index.js';
import { basicAuthorization, type RubiconHostSettings } from './host-settings.js';
import { readRubiconParams } from './params.js';
import { priceOverrides, readXapiBids } from './xapi-bids.js';
import { buildXapiBody, splitByMediaType, type CallContext } from './xapi-request.js';

/** `bidderName` is the seat this bidder runs under; request-level debug settings are keyed by it. */
export function createRubiconBidder(host: RubiconHostSettings, bidderName: string): Bidder {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json;charset=utf-8',
    Accept: 'application/json',
    Authorization: basicAuthorization(host.username, host.password),
  };

  return {
    makeRequests(request, info) {
      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      const context: CallContext = { host, maxBids: multibidLimit(request, info.bidder) };
      for (const imp of Array.isArray(request.imp) ? request.imp : []) {
        if (!isJsonObject(imp)) {
          errors.push(badInput('request.imp holds something that is not an imp object'));
          continue;
        }
        const read = readRubiconParams(imp);
        if ('error' in read) {
          errors.push(read.error);
          continue;
        }
        const imps = read.params.bidOnMultiformat ? splitByMediaType(imp) : [imp];
        for (const single of imps) {
          const built = buildXapiBody(request, single, read.params, context);
          if ('error' in built) errors.push(built.error);
          else requests.push({ method: 'POST', uri: host.uri, body: built.body, headers: { ...headers }, impIds: [single.id] });
        }
      }
      return { requests, errors };
    },

    makeBids(request, sent, response) {
      return readXapiBids(sent, response, priceOverrides(request, bidderName));
    },
  };
}

/** The publisher's multibid limit for this bidder (`ext.<ns>.multibid[]`), passed on to XAPI as `maxbids`. */
function multibidLimit(request: BidRequest, bidder: string): number | undefined {
  const entries = requestOption(request, 'multibid');
  if (!Array.isArray(entries)) return undefined;
  for (const entry of entries) {
    if (!isJsonObject(entry)) continue;
    const names = [entry.bidder, ...(Array.isArray(entry.bidders) ? entry.bidders : [])];
    const maxBids = entry.maxbids;
    if (names.includes(bidder) && typeof maxBids === 'number' && Number.isInteger(maxBids) && maxBids > 0) return maxBids;
  }
  return undefined;
}
