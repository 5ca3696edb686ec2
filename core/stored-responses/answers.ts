import { goFoundByte, isJsonObject, type AuctionBid, type BidderRequest, type MediaType, type SeatResult } from '../api/index.js';
import { readAnswer, type BidderCallOptions, type BidderCallResult } from '../auction/bidder-call.js';
import type { BidderEntry } from '../bidders/catalog.js';
import type { StoredBidAnswer } from './read.js';

type Json = Record<string, unknown>;

/** A share with stored bid responses: the request its adapter reads them against (every imp of the bidder). */
export interface StoredShare {
  answers: StoredBidAnswer[];
  request: BidderRequest['request'];
}

/**
 * Takes the imps that have stored bid responses out of the shares' requests (no call is made for them), and returns
 * what each such share's adapter reads instead. As in Prebid Server, the bidder is called for its other imps only.
 */
export function setAsideStoredImps(shares: BidderRequest[], stored: ReadonlyMap<string, StoredBidAnswer[]>): Map<BidderRequest, StoredShare> {
  const setAside = new Map<BidderRequest, StoredShare>();
  for (const share of shares) {
    const answers = stored.get(share.bidder);
    if (!answers) continue;
    const storedImps = new Set(answers.map((answer) => answer.impId));
    setAside.set(share, { answers, request: share.request });
    share.request = { ...share.request, imp: share.request.imp.filter((imp) => !storedImps.has(imp.id)) };
  }
  return setAside;
}

/** The request body debug output shows for a stored bid response, before the imp's id (Prebid Server's `ImpIdReqBody`). */
const STORED_ANSWER_REQUEST_BODY = 'Stored bid response for impression id: ';

/**
 * Each stored bid response read by the bidder's adapter as its server's answer for that imp (a 200 with the stored
 * document as body), into `result`; the bids' `impid` is the imp's id (set in the document before the adapter reads
 * it, and on the bids after) unless the request said `replaceimpid: false`. The adapter reads it against the bidder's request with all its imps (Prebid Server passes the
 * request without them, where an adapter looking up the bid's imp finds nothing).
 */
export function readStoredAnswers(entry: BidderEntry, share: BidderRequest, stored: StoredShare, options: BidderCallOptions, result: BidderCallResult): void {
  const asAnswered: BidderRequest = { ...share, request: stored.request };
  for (const answer of stored.answers) {
    const first = result.bids.length;
    readAnswer(entry, asAnswered, { method: 'POST', uri: '', body: undefined, impIds: [answer.impId] }, { status: 200, body: answer.body, headers: {} }, options, result);
    // Debug output shows each as Prebid Server's bidder layer does: a call to no URL whose body names the imp.
    if (options.recordCalls) result.httpCalls.push({ uri: '', requestbody: `${STORED_ANSWER_REQUEST_BODY}${answer.impId}`, requestheaders: null, responsebody: answer.body, status: 200 });
    if (answer.replaceImpId) for (let i = first; i < result.bids.length; i++) result.bids[i]!.bid.impid = answer.impId;
  }
}

const MEDIA_TYPE_OF_MTYPE: Readonly<Record<number, MediaType>> = { 1: 'banner', 2: 'video', 3: 'audio', 4: 'native' };
const MEDIA_TYPES: ReadonlySet<string> = new Set(['banner', 'video', 'audio', 'native']);

/** A stored bid's media type by Prebid Server's rule (its `mtype`, else `ext.prebid.type`), or its words for none. */
function mediaTypeOf(bid: Json, impId: string): { type: MediaType } | { error: string } {
  if (typeof bid.mtype === 'number' && bid.mtype > 0) {
    const type = MEDIA_TYPE_OF_MTYPE[bid.mtype];
    return type ? { type } : { error: `Failed to parse bid mType for impression "${impId}"` };
  }
  const ext = isJsonObject(bid.ext) ? bid.ext : undefined;
  const type = isJsonObject(ext?.prebid) ? (ext!.prebid as Json).type : undefined;
  return typeof type === 'string' && MEDIA_TYPES.has(type) ? { type: type as MediaType } : { error: `Failed to parse bid mediatype for impression "${impId}"` };
}

/** What ends an auction answered from stored auction responses: Prebid Server's exchange fails it whole (a 500). */
export interface StoredAuctionFailure {
  critical: string;
}

/** `seatbid[].ext.prebid.fledge.auctionconfigs` of a stored seat bid, or nothing. */
function storedFledgeConfigs(seatBid: Json): unknown[] {
  const prebid = isJsonObject(seatBid.ext) ? seatBid.ext.prebid : undefined;
  const fledge = isJsonObject(prebid) ? prebid.fledge : undefined;
  const configs = isJsonObject(fledge) ? fledge.auctionconfigs : undefined;
  return Array.isArray(configs) ? configs : [];
}

/**
 * The seats of an auction answered from stored auction responses: each imp's document is an array of seat bids
 * (`[{seat, bid: [...]}]`); every bid is set to that imp (`impid`) and kept as it is, in the auction currency, under
 * its seat. No bidder is called. A document that is no array, or a bid whose media type cannot be told, fails the
 * whole auction, as Prebid Server's buildStoredAuctionResponse does.
 */
export function storedAuctionSeats(auction: ReadonlyMap<string, unknown>, currency: string): SeatResult[] | StoredAuctionFailure {
  const seats = new Map<string, SeatResult>();
  const seatOf = (name: string): SeatResult => {
    let seat = seats.get(name);
    if (!seat) seats.set(name, (seat = { bidder: name, adapter: name, bids: [], errors: [], responseTimeMs: 0 }));
    return seat;
  };
  for (const [impId, document] of auction) {
    if (!Array.isArray(document)) return { critical: `expect [ or n, but found ${goFoundByte(document)}` };
    for (const seatBid of document) {
      if (!isJsonObject(seatBid)) continue;
      const seat = seatOf(typeof seatBid.seat === 'string' ? seatBid.seat : '');
      for (const stored of Array.isArray(seatBid.bid) ? seatBid.bid : []) {
        if (!isJsonObject(stored)) continue;
        const bid = { ...structuredClone(stored), impid: impId } as AuctionBid['bid'];
        const typed = mediaTypeOf(bid as Json, impId);
        if ('error' in typed) return { critical: typed.error };
        const type = typed.type;
        const price = typeof bid.price === 'number' ? bid.price : 0;
        seat.bids.push({ bid, type, bidder: seat.bidder, adapter: seat.adapter, originalPrice: price, originalCurrency: currency, targeting: {}, winner: false, bidderBest: false });
      }
      // Protected Audience configs stored beside the bids, given the request's imp id as Prebid Server does.
      for (const stored of storedFledgeConfigs(seatBid)) {
        (seat.fledgeAuctionConfigs ??= []).push({ impId, adapter: seat.bidder, config: isJsonObject(stored) ? stored.config : undefined });
      }
    }
  }
  return [...seats.values()];
}
