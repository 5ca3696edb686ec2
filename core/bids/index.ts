export { auctionBidRules, checkBids, checkResponseBids, identifyBids, randomBidId, type AuctionBidRules, type BidCheckSettings, type BidValidations } from './bid-checks.js';
export { alternateSeatError, readAlternateBidderCodes, type AlternateBidderCodes } from './alternate-bidder-codes.js';
export { applyDefaultDsa, dsaError, dsaRequirements } from './dsa.js';
