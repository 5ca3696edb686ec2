/**
 * Criteo bidder: the whole auction share goes to Criteo in one call, unchanged (Criteo reads its zone or network
 * from `imp.ext.bidder` itself). Every bid states its media type in `bid.ext.prebid.type`, and may name the demand
 * network in `bid.ext.prebid.networkName`.
 */
import {
  badServerResponse,
  bidResponseCurrency,
  fieldIgnoringCase,
  isJsonObject,
  MEDIA_TYPES,
  readBidResponse,
  seatBids,
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
      const currency = bidResponseCurrency(read.body) ?? 'USD';
      const result: MakeBidsResult = errors.length > 0 ? { currency, bids, errors } : { currency, bids };
      const fledgeAuctionConfigs = auctionConfigs(read.body.ext, config.name);
      if (fledgeAuctionConfigs) result.fledgeAuctionConfigs = fledgeAuctionConfigs;
      return result;
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

function missingType(bid: unknown): BidderError {
  const impId = isJsonObject(bid) && typeof bid.impid === 'string' ? bid.impid : '';
  return badServerResponse(`Missing ext.prebid.type in bid for impression : ${impId}.`);
}
