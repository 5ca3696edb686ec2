import type { AuctionBid, BidRequest, SeatResult } from '../api/index.js';

/**
 * Marks each imp's winner (highest adjusted price; a tie goes to the bidder called first) and each bidder's best
 * bid per imp. Bids for imps the request does not have are ignored.
 */
export function markWinners(request: BidRequest, seats: SeatResult[]): void {
  const winners = new Map<string, AuctionBid>();
  const bidderBest = new Map<string, AuctionBid>();
  for (const seat of seats) {
    for (const bid of seat.bids) {
      bid.winner = false;
      bid.bidderBest = false;
      const impId = bid.bid.impid;
      const current = winners.get(impId);
      if (!current || bid.bid.price > current.bid.price) winners.set(impId, bid);
      const key = `${seat.bidder}\u0000${impId}`;
      const best = bidderBest.get(key);
      if (!best || bid.bid.price > best.bid.price) bidderBest.set(key, bid);
    }
  }
  const impIds = new Set(request.imp.map((imp) => imp.id));
  for (const [impId, bid] of winners) if (impIds.has(impId)) bid.winner = true;
  for (const bid of bidderBest.values()) if (impIds.has(bid.bid.impid)) bid.bidderBest = true;
}
