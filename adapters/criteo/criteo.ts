/**
 * Criteo bidder: the whole auction share goes to Criteo in one call, unchanged (Criteo reads its zone or network
 * from `imp.ext.bidder` itself). Every bid states its media type in `bid.ext.prebid.type`, and may name the demand
 * network in `bid.ext.prebid.networkName`.
 */
import {
  badServerResponse,
  bidResponseCurrency,
  checkResponseStatus,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  fieldIgnoringCase,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type FledgeAuctionConfig,
  type MakeBidsResult,
  type MediaType,
  type TypedBid,
} from '../../core/api/index.js';

export function createCriteoBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request) {
      const impIds = (Array.isArray(request.imp) ? request.imp : []).map((imp) => imp.id);
      // Go re-encodes the request it forwards: empty top-level fields are left out.
      return { requests: [{ method: 'POST', uri: config.endpoint, body: encodeAsOpenrtb2Request(request), impIds }] };
    },

    makeBids(_request, _sent, response) {
      const statusResult = checkResponseStatus(response, { text: (status) => `${unexpectedStatusText(status)}.` });
      if (statusResult) return statusResult;
      // Go returns its decoder's error as it is: a generic error.
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const ext = readBidExt(bid.ext);
          // A bid whose ext cannot be read spoils the whole answer, as it does in Prebid Server.
          if (!ext) return { bids: [], errors: [missingType(bid)] };
          // Go passes the bid on with whatever type its ext names, none included: the core takes it as it comes.
          const typed: TypedBid = { bid, type: (ext.type ?? '') as MediaType };
          if (ext.networkName) typed.meta = { networkName: ext.networkName };
          bids.push(typed);
        }
      }
      const currency = bidResponseCurrency(decoded.value) ?? 'USD';
      const result: MakeBidsResult = { currency, bids };
      const fledgeAuctionConfigs = auctionConfigs(decoded.value.ext, config.name);
      if (fledgeAuctionConfigs) result.fledgeAuctionConfigs = fledgeAuctionConfigs;
      return result;
    },
  };
}

/**
 * `bid.ext.prebid.{type, networkName}` as Go decodes the ext into Criteo's `BidExt` (keys matched ignoring case, a
 * `null` ext the empty one); undefined when it cannot: no ext at all, or one not shaped as Criteo's. The type is
 * Go's `openrtb_ext.BidType`, a plain string: whatever the ext names.
 */
function readBidExt(ext: unknown): { type?: string; networkName?: string } | undefined {
  if (ext === null) return {};
  if (!isJsonObject(ext)) return undefined;
  const prebid = fieldIgnoringCase(ext, 'prebid') ?? {};
  if (!isJsonObject(prebid)) return undefined;
  const type = fieldIgnoringCase(prebid, 'type');
  const networkName = fieldIgnoringCase(prebid, 'networkName');
  if ((type != null && typeof type !== 'string') || (networkName != null && typeof networkName !== 'string')) return undefined;
  return {
    type: typeof type === 'string' ? type : undefined,
    networkName: typeof networkName === 'string' && networkName !== '' ? networkName : undefined,
  };
}

/**
 * Protected Audience configs from `ext.igi[]` (`{impid, igs: [{config}]}`): the first interest-group seller's config
 * of each imp, under Criteo's own name. An ext Go cannot decode into Criteo's `CriteoExt` gives none at all, and costs
 * the bids nothing; so does an ext that holds no config.
 */
function auctionConfigs(ext: unknown, bidderName: string): FledgeAuctionConfig[] | undefined {
  if (!isJsonObject(ext)) return undefined;
  const igi = fieldIgnoringCase(ext, 'igi') ?? [];
  if (!Array.isArray(igi)) return undefined;
  const configs: FledgeAuctionConfig[] = [];
  for (const entry of igi) {
    if (entry === null) continue;
    if (!isJsonObject(entry)) return undefined;
    const impId = fieldIgnoringCase(entry, 'impid') ?? '';
    const igs = fieldIgnoringCase(entry, 'igs') ?? [];
    if (typeof impId !== 'string' || !Array.isArray(igs) || igs.some((seller) => seller !== null && !isJsonObject(seller))) return undefined;
    // Go reads a `null` config as the raw text `null`, which is a config; only an absent one is none.
    const config = isJsonObject(igs[0]) ? fieldIgnoringCase(igs[0], 'config') : undefined;
    if (config !== undefined) configs.push({ impId, adapter: bidderName, config });
  }
  return configs.length > 0 ? configs : undefined;
}

function missingType(bid: Bid): BidderError {
  return badServerResponse(`Missing ext.prebid.type in bid for impression : ${bid.impid}.`);
}
