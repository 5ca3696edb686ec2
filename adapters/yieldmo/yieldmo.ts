/**
 * Yieldmo bidder: the whole request in one call, always. Each imp's `ext` is replaced by Yieldmo's own
 * `{placement_id, gpid}`, and a floor in another currency is converted to USD; problems with an imp are reported but
 * never keep it out of the call. Bids say their type in `bid.ext.mediatype`.
 */
import {
  badInput,
  checkResponseStatus,
  embeddedExtImpBidderError,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  decodeGoFields,
  GO_STRING_FIELD,
  goFoundByte,
  isJsonObject,
  encodeAsOpenrtb2Request,
  withFloorInCurrency,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type GoField,
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
const MEDIA_TYPE_FIELD: Readonly<Record<string, GoField>> = { mediatype: GO_STRING_FIELD('MediaType') };

export function createYieldmoBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps = request.imp.map((imp) => prepareImp(imp, info, errors));
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request({ ...request, imp: imps }), headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(_request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      // Prebid Server passes its decoder's error (errortypes.FailedToUnmarshal) on as it is.
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          // A bid without a media type Yieldmo can name is left out without an error. Go decodes bid.ext into its
          // ExtBid (keys in any case, in the order written, the first of the wrong type failing it).
          const decoded = isJsonObject(bid.ext) ? decodeGoFields(bid.ext, 'yieldmo.ExtBid', MEDIA_TYPE_FIELD) : undefined;
          const type = decoded && 'values' in decoded ? decoded.values.mediatype : undefined;
          if (typeof type === 'string' && BID_TYPES.has(type)) bids.push({ bid, type: type as MediaType });
        }
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

/**
 * `imp.ext` as Prebid Server decodes it into `ExtImpBidderYieldmo` (preprocess, yieldmo.go), which embeds
 * `adapters.ExtImpBidder`: the raw params, the embedded typed `prebid` (an `openrtb_ext.ExtImpPrebid`) and `ae` (an
 * int8), and the ad slot of the first-party data (`data.pbadslot`). Go's decoder reads keys in order (ignoring case)
 * and stops at the first bad value, keeping what it read before it: a `bidder` that comes after a bad `data`,
 * `prebid` or `ae` is never read.
 */
function readImpExt(ext: unknown): { bidder?: unknown; pbadslot: string; error?: string } {
  if (ext !== null && !isJsonObject(ext)) return { pbadslot: '', error: `expect { or n, but found ${goFoundByte(ext)}` };
  const read: { bidder?: unknown; pbadslot: string; error?: string } = { pbadslot: '' };
  for (const key in ext ?? {}) {
    const value = (ext as JsonObject)[key];
    const name = key.toLowerCase();
    if (name === 'bidder') read.bidder = value;
    if (name === 'prebid' || name === 'ae') {
      const error = embeddedExtImpBidderError(name, value);
      if (error !== undefined) return { ...read, error };
    }
    if (name !== 'data') continue;
    if (value === null) {
      read.pbadslot = '';
      continue;
    }
    if (!isJsonObject(value)) return { ...read, error: `cannot unmarshal yieldmo.ExtImpBidderYieldmo.Data: expect { or n, but found ${goFoundByte(value)}` };
    for (const field in value) {
      if (field.toLowerCase() !== 'pbadslot') continue;
      const pbadslot = value[field];
      if (pbadslot !== null && typeof pbadslot !== 'string') {
        return { ...read, error: `cannot unmarshal yieldmo.ExtData.PbAdslot: expects " or n, but found ${goFoundByte(pbadslot)}` };
      }
      read.pbadslot = pbadslot ?? '';
    }
  }
  return read;
}


/** `imp.ext.bidder` decoded into `openrtb_ext.ExtImpYieldmo`: the placement id read before any error, and the error. */
function readPlacementId(bidder: unknown): { id: string; error?: string } {
  if (bidder === null) return { id: '' };
  if (!isJsonObject(bidder)) return { id: '', error: `expect { or n, but found ${goFoundByte(bidder)}` };
  let id = '';
  for (const key in bidder) {
    if (key.toLowerCase() !== 'placementid') continue;
    const value = bidder[key];
    if (value !== null && typeof value !== 'string') return { id, error: `cannot unmarshal openrtb_ext.ExtImpYieldmo.PlacementId: expects " or n, but found ${goFoundByte(value)}` };
    id = value ?? '';
  }
  return { id };
}
