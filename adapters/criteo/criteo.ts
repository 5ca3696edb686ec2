/**
 * Criteo bidder: the whole auction share goes to Criteo in one call, unchanged (Criteo reads its zone or network
 * from `imp.ext.bidder` itself). Every bid states its media type in `bid.ext.prebid.type`, and may name the demand
 * network in `bid.ext.prebid.networkName`.
 */
import {
  badServerResponse,
  bidResponseCurrency,
  isJsonObject,
  MEDIA_TYPES,
  readBidResponse,
  seatBids,
  unexpectedStatusText,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type MediaType,
  type TypedBid,
} from '../../core/api/index.js';

export function createCriteoBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request) {
      const impIds = (Array.isArray(request.imp) ? request.imp : []).map((imp) => imp.id);
      return { requests: [{ method: 'POST', uri: config.endpoint, body: request, impIds }] };
    },

    makeBids(_request, _sent, response) {
      const read = readBidResponse(response, { text: (status) => `${unexpectedStatusText(status)}.` });
      if ('result' in read) return read.result;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(read.body)) {
        const ext = readBidExt(bid);
        // A bid whose ext cannot be read spoils the whole answer, as it does in Prebid Server.
        if (!ext) return { bids: [], errors: [missingType(bid)] };
        if (!ext.type) {
          errors.push(missingType(bid));
          continue;
        }
        const typed: TypedBid = { bid: bid as Bid, type: ext.type };
        if (ext.networkName) typed.meta = { networkName: ext.networkName };
        bids.push(typed);
      }
      // Protected Audience configs in `ext.igi` are not passed on: SDK v1 has no channel for them.
      const currency = bidResponseCurrency(read.body) ?? 'USD';
      return errors.length > 0 ? { currency, bids, errors } : { currency, bids };
    },
  };
}

/**
 * `bid.ext.prebid.{type, networkName}`; undefined when the bid or its ext is not shaped as Criteo's. A type that is
 * not a media type Gavel knows reads as no type.
 */
function readBidExt(bid: unknown): { type?: MediaType; networkName?: string } | undefined {
  if (!isJsonObject(bid) || !isJsonObject(bid.ext)) return undefined;
  const prebid = bid.ext.prebid ?? {};
  if (!isJsonObject(prebid)) return undefined;
  const { type, networkName } = prebid;
  if ((type !== undefined && type !== null && typeof type !== 'string') || (networkName !== undefined && networkName !== null && typeof networkName !== 'string')) {
    return undefined;
  }
  return {
    type: (MEDIA_TYPES as readonly unknown[]).includes(type) ? (type as MediaType) : undefined,
    networkName: typeof networkName === 'string' && networkName !== '' ? networkName : undefined,
  };
}

function missingType(bid: unknown): BidderError {
  const impId = isJsonObject(bid) && typeof bid.impid === 'string' ? bid.impid : '';
  return badServerResponse(`Missing ext.prebid.type in bid for impression : ${impId}.`);
}
