/**
 * Rubicon Project (Magnite) bidder: one XAPI call per imp, or per imp and media type with `bidonmultiformat`.
 */
import { badInput, GoDecodeError, isJsonObject, requestOption, unknownError, type Bidder, type BidderError, type BidRequest, type Imp, type RequestData } from '../../core/api/index.js';
import { basicAuthorization, type RubiconHostSettings } from './host-settings.js';
import { convertUpTo26 } from './openrtb26.js';
import { readRubiconImpExt, type RubiconImpExt } from './params.js';
import { priceOverrides, readXapiBids } from './xapi-bids.js';
import { buildXapiBody, splitByMediaType, type CallContext } from './xapi-request.js';

export function createRubiconBidder(host: RubiconHostSettings): Bidder {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json;charset=utf-8',
    Accept: 'application/json',
    'User-Agent': 'prebid-server/1.0',
    Authorization: basicAuthorization(host.username, host.password),
  };

  return {
    makeRequests(incoming, info) {
      if (!host.configured) {
        return { requests: [], errors: [badInput('rubicon is not configured on this host: it needs extra.xapi.username and password (see the adapter README)')] };
      }
      const conversion = convertUpTo26(incoming);
      if ('error' in conversion) return { requests: [], errors: [unknownError(conversion.error)] };
      const request = conversion.converted;

      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      const context: CallContext = { host, info, maxBids: multibidLimit(request) };
      const imps: Array<{ imp: Imp; impExt: RubiconImpExt }> = [];
      for (const imp of request.imp) {
        let impExt: RubiconImpExt;
        try {
          impExt = readRubiconImpExt(imp);
        } catch (err) {
          if (!(err instanceof GoDecodeError)) throw err;
          errors.push(badInput(err.message));
          continue;
        }
        for (const single of impExt.params.bidOnMultiformat ? splitByMediaType(imp) : [imp]) imps.push({ imp: single, impExt });
      }
      for (const { imp, impExt } of imps) {
        const built = buildXapiBody(request, imp, impExt, context);
        if ('error' in built) errors.push(built.error);
        else requests.push({ method: 'POST', uri: host.uri, body: built.body, headers: { ...headers }, impIds: [imp.id] });
      }
      return { requests, errors };
    },

    makeBids(request, sent, response) {
      return readXapiBids(sent, response, priceOverrides(request));
    },
  };
}

/**
 * The publisher's multibid limit (`ext.<ns>.multibid[0].maxbids`), passed on to XAPI as `maxbids`. The core hands a
 * bidder only the multibid entries that concern it, as Prebid Server's does, and the adapter takes the first.
 */
function multibidLimit(request: BidRequest): number | undefined {
  const entries = requestOption(request, 'multibid');
  const first: unknown = Array.isArray(entries) ? entries[0] : undefined;
  return isJsonObject(first) && Number.isInteger(first.maxbids) ? (first.maxbids as number) : undefined;
}
