/**
 * Yieldmo bidder: the whole request in one call, always. Each imp's `ext` is replaced by Yieldmo's own
 * `{placement_id, gpid}`, and a floor in another currency is converted to USD; problems with an imp are reported but
 * never keep it out of the call. Bids say their type in `bid.ext.mediatype`.
 */
import {
  badInput,
  decodeBidderParams,
  isJsonObject,
  readGoBidResponse,
  seatBids,
  withFloorInCurrency,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestInfo,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8' };
const BID_TYPES: ReadonlySet<string> = new Set<MediaType>(['banner', 'video', 'native']);

export function createYieldmoBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps = request.imp.map((imp) => prepareImp(imp, info, errors));
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body: { ...request, imp: imps }, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(_request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const decoded = readGoBidResponse(response);
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        // A bid without a media type Yieldmo can name is left out without an error.
        const type = isJsonObject(bid) && isJsonObject(bid.ext) ? bid.ext.mediatype : undefined;
        if (typeof type === 'string' && BID_TYPES.has(type)) bids.push({ bid: bid as Bid, type: type as MediaType });
      }
      return { currency: 'USD', bids };
    },
  };
}

function prepareImp(imp: Imp, info: RequestInfo, errors: BidderError[]): Imp {
  // A floor that cannot be converted is reported, and goes as it is.
  const floored = withFloorInCurrency(imp, 'USD', info);
  if ('error' in floored) errors.push(badInput(`Unable to convert provided bid floor currency from ${imp.bidfloorcur} to USD`));
  const prepared: Imp = 'imp' in floored ? { ...floored.imp } : { ...imp };

  const ext = readImpExt(imp.ext);
  if (ext.error) errors.push(badInput(ext.error));
  const placement = readPlacementId(ext.bidder);
  if (placement.error) errors.push(badInput(placement.error));
  const yieldmoExt: JsonObject = { placement_id: placement.id };
  if (ext.pbadslot !== '') yieldmoExt.gpid = ext.pbadslot;
  prepared.ext = yieldmoExt;
  return prepared;
}

/** `imp.ext` as Prebid Server reads it: the params, and the ad slot of the first-party data (`data.pbadslot`). */
function readImpExt(ext: unknown): { bidder?: unknown; pbadslot: string; error?: string } {
  if (ext === undefined) return { pbadslot: '', error: 'imp.ext: unexpected end of JSON input' };
  if (!isJsonObject(ext)) return { pbadslot: '', error: 'imp.ext: expect { or n, but found no object' };
  const data = ext.data;
  if (data !== undefined && data !== null && !isJsonObject(data)) return { pbadslot: '', error: 'cannot unmarshal imp.ext.data: expect { or n' };
  const pbadslot = isJsonObject(data) ? data.pbadslot : undefined;
  if (pbadslot !== undefined && pbadslot !== null && typeof pbadslot !== 'string') {
    return { pbadslot: '', error: 'cannot unmarshal imp.ext.data.pbadslot: expects a string' };
  }
  return { bidder: ext.bidder, pbadslot: pbadslot ?? '' };
}

function readPlacementId(bidder: unknown): { id: string; error?: string } {
  const read = decodeBidderParams(bidder, 'openrtb_ext.ExtImpYieldmo');
  if ('error' in read) return { id: '', error: read.error };
  const id = read.params.placementId;
  if (id === undefined || id === null) return { id: '' };
  return typeof id === 'string' ? { id } : { id: '', error: 'cannot unmarshal openrtb_ext.ExtImpYieldmo.placementId: expects a string' };
}
