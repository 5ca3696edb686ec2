import {
  BidderErrorCode,
  type AuctionBid,
  type AuctionContext,
  type BidCacheService,
  type BidderError,
  type BidRequest,
  type SeatResult,
  type TargetingService,
} from '../api/index.js';
import type { RejectedBid } from '../context/request-context.js';
import type { PlannedPod } from './openrtb-request.js';

/** One targeted bid of a pod (interface specification 2.6). */
export interface PodTargeting {
  hb_pb: string;
  hb_pb_cat_dur: string;
  hb_cache_id: string;
  /** The bid's deal id, for a deal bid only (as Prebid Server's video targeting). */
  hb_deal?: string;
}

export interface AdPod {
  podid: unknown;
  targeting: PodTargeting[];
  /** Bidder name (or `general` for the pod itself) -> what went wrong; present only when something did. */
  errors?: Record<string, BidderError[]>;
}

/** The hook-point services a pod's bids are keyed and cached by, and the request's context. */
export interface PodServices {
  targeting: TargetingService;
  cache: BidCacheService;
  context: AuctionContext;
}

/** What the auction reported: its errors per bidder, and the bids it left out with the error it gave each. */
export interface AuctionReport {
  errors: Record<string, BidderError[]>;
  rejected: readonly RejectedBid[];
}

/** Error codes in `adPods[].errors` (specification 7.1). */
const REJECTED = BidderErrorCode.BadServerResponse; // the bidder answered with a bid the pod cannot take
const NOT_CACHED = BidderErrorCode.Unknown;

/** Key of pod-level problems in `adPods[].errors`, as for general warnings elsewhere. */
const GENERAL_ERRORS_KEY = 'general';

interface PodState {
  planned: PlannedPod;
  candidates: AuctionBid[];
  errors: Record<string, BidderError[]>;
}

/**
 * Turns the auction's bids into the video answer's pods. The auction has already fitted each bid's duration (2.2),
 * translated its brand category and kept one bid per category in each pod (the targeting service's brand categories,
 * which key `hb_pb_cat_dur` on every endpoint); the bids it left out are reported under their pod. Of the remaining
 * bids, only each bidder's best in each imp can be targeted (the one the auction gives bidder keys, as Prebid
 * Server's targeting does: a bidder's lower bids for the same imp get none, so its video endpoint never lists them);
 * such a bid goes to the pod of its imp if it is a video bid with VAST; every survivor carries `hb_cache_id`, the uuid of its
 * cached VAST (the bid-caching service caches those the auction did not); a bid whose VAST cannot be cached is left
 * out. Its `hb_pb` is the targeting service's price bucket, and a deal bid carries its `hb_deal`.
 */
export async function buildAdPods(pods: PlannedPod[], seats: SeatResult[], report: AuctionReport, request: BidRequest, services: PodServices): Promise<AdPod[]> {
  const states: PodState[] = pods.map((planned) => ({ planned, candidates: [], errors: {} }));
  const stateOfImp = new Map<string, PodState>();
  for (const state of states) for (const impId of state.planned.impIds) stateOfImp.set(impId, state);

  placeAuctionReport(states, stateOfImp, report);
  for (const seat of seats) {
    for (const auctionBid of seat.bids) {
      const state = stateOfImp.get(auctionBid.bid.impid);
      // Not an error: the bidder's better bid for this imp stands for it.
      if (!state || !auctionBid.bidderBest) continue;
      const reason = inadmissible(auctionBid);
      if (reason) addError(state.errors, seat.bidder, { code: REJECTED, message: `bid ${auctionBid.bid.id} rejected: ${reason}` });
      else state.candidates.push(auctionBid);
    }
  }
  await cacheVast(states, request, services);

  return states.map((state) => {
    const targeted = state.candidates
      .filter((candidate) => candidate.cache?.vastXml !== undefined)
      .sort((a, b) => b.bid.price - a.bid.price)
      .map((candidate) => targetingOf(candidate, request, services));
    const adPod: AdPod = { podid: state.planned.pod.podid, targeting: targeted };
    if (Object.keys(state.errors).length > 0) adPod.errors = state.errors;
    return adPod;
  });
}

/** A pod that could not be served at all: no targeting, and why. */
export function rejectedAdPod(podid: unknown, messages: string[]): AdPod {
  return { podid, targeting: [], errors: { [GENERAL_ERRORS_KEY]: messages.map((message) => ({ code: BidderErrorCode.BadInput, message })) } };
}

/**
 * A bid the auction left out is reported under its own pod. The auction's other errors per bidder (timeouts, bad
 * responses, unsupported imps) go under every pod that bidder was offered; errors of a name no pod offers (a
 * module's, say) go under every pod.
 */
function placeAuctionReport(states: PodState[], stateOfImp: Map<string, PodState>, report: AuctionReport): void {
  const placed = new Set<BidderError>();
  for (const { bid, error } of report.rejected) {
    if (!error) continue;
    placed.add(error);
    const state = stateOfImp.get(bid.bid.impid);
    if (state) addError(state.errors, bid.seat ?? bid.bidder, error);
  }
  for (const [bidder, errors] of Object.entries(report.errors)) {
    const concerned = states.filter((state) => state.planned.bidders.has(bidder.toLowerCase()));
    for (const state of concerned.length > 0 ? concerned : states) for (const error of errors) if (!placed.has(error)) addError(state.errors, bidder, error);
  }
}

function inadmissible(auctionBid: AuctionBid): string | undefined {
  if (auctionBid.type !== 'video') return `it is a ${auctionBid.type} bid; ad pods take video bids only`;
  if (!hasVast(auctionBid)) return 'it has no VAST (neither adm nor nurl)';
  return undefined;
}

/**
 * The auction's bid caching stores each bidder's keyed bids per imp, but a cache failure (or a deadline) may have
 * left some out. Those go to the bid-caching service once more, in one call; a bid still without a cached VAST is
 * reported.
 */
async function cacheVast(states: PodState[], request: BidRequest, services: PodServices): Promise<void> {
  const missing = states.flatMap((state) => state.candidates.filter((candidate) => candidate.cache?.vastXml === undefined).map((candidate) => ({ state, candidate })));
  if (missing.length === 0) return;
  await services.cache.cacheVast(missing.map(({ candidate }) => candidate), request, services.context);
  for (const { state, candidate } of missing) {
    if (candidate.cache?.vastXml === undefined) {
      addError(state.errors, candidate.bidder, { code: NOT_CACHED, message: `bid ${candidate.bid.id} left out: its VAST could not be cached` });
    }
  }
}

/** A bid's pod keys; a targeting service that keys no durations (a replacement) leaves the bid's own duration. */
function targetingOf(candidate: AuctionBid, request: BidRequest, services: PodServices): PodTargeting {
  const bucket = services.targeting.priceBucket(candidate, request, services.context);
  const key = candidate.categoryDuration ?? `${bucket}_${candidate.video?.duration ?? candidate.bid.dur ?? 0}s`;
  const targeting: PodTargeting = { hb_pb: bucket, hb_pb_cat_dur: key, hb_cache_id: candidate.cache!.vastXml!.cacheId };
  const { dealid } = candidate.bid;
  if (typeof dealid === 'string' && dealid !== '') targeting.hb_deal = dealid;
  return targeting;
}

/** Whether the bid can serve a VAST: markup, or a win notice URL to wrap. */
function hasVast({ bid }: AuctionBid): boolean {
  return (typeof bid.adm === 'string' && bid.adm !== '') || (typeof bid.nurl === 'string' && bid.nurl !== '');
}

function addError(errors: Record<string, BidderError[]>, bidder: string, error: BidderError): void {
  (errors[bidder] ??= []).push(error);
}
