import { BidderErrorCode, priceBucket, vastWrapper, type AuctionBid, type BidderError, type BidRequest, type PriceGranularity, type SeatResult } from '../api/index.js';
import type { Namespace } from '../auction/namespace.js';
import type { CacheClient } from '../cache/index.js';
import { isJsonObject } from '../stored/index.js';
import type { AdServer, CategoryMapping } from './category-mappings.js';
import { fitDuration } from './durations.js';
import type { PlannedPod } from './openrtb-request.js';

/** One targeted bid of a pod (interface specification 2.6). */
export interface PodTargeting {
  hb_pb: string;
  hb_pb_cat_dur: string;
  hb_cache_id: string;
}

export interface AdPod {
  podid: unknown;
  targeting: PodTargeting[];
  /** Bidder name (or `general` for the pod itself) -> what went wrong; present only when something did. */
  errors?: Record<string, BidderError[]>;
}

/** What decides which bids a pod takes and how they are keyed. */
export interface PodRules {
  /** Allowed durations, ascending. */
  allowed: number[];
  requireExact: boolean;
  /** Present when the request asked for category translation (`includebrandcategory`). */
  categories?: { adServer: AdServer; mapping: CategoryMapping };
  granularity: PriceGranularity;
  namespace: Namespace;
}

/** Where bids without a cached VAST yet get cached, and until when. */
export interface PodCache {
  client: CacheClient;
  deadline: number;
}

/** Error codes in `adPods[].errors` (specification 7.1). */
const REJECTED = BidderErrorCode.BadServerResponse; // the bidder answered with a bid the pod cannot take
const DEDUPLICATED = BidderErrorCode.NoError; // not an error: the bid lost to a better one of its category
const NOT_CACHED = BidderErrorCode.Unknown;

/** Key of pod-level problems in `adPods[].errors`, as for general warnings elsewhere. */
export const GENERAL_ERRORS_KEY = 'general';

interface Candidate {
  auctionBid: AuctionBid;
  seconds: number;
  /** The ad server's category id, when categories are translated. */
  category?: string;
  vast: string;
  cacheId?: string;
}

interface PodState {
  planned: PlannedPod;
  candidates: Candidate[];
  errors: Record<string, BidderError[]>;
}

/**
 * Turns the auction's bids into the video answer's pods: each bid goes to the pod of its imp, if its duration fits
 * (2.2) and, with category translation, it has exactly one mappable category; within a pod one bid per category
 * survives (the highest price, earlier bidder on ties). Every survivor carries `hb_cache_id`, the uuid of its cached
 * VAST: the one the auction's cache stage stored, else one cached here; a bid whose VAST cannot be cached is left out.
 */
export async function buildAdPods(
  pods: PlannedPod[],
  seats: SeatResult[],
  auctionErrors: Record<string, BidderError[]>,
  request: BidRequest,
  rules: PodRules,
  cache: PodCache,
): Promise<AdPod[]> {
  const states: PodState[] = pods.map((planned) => ({ planned, candidates: [], errors: {} }));
  const stateOfImp = new Map<string, PodState>();
  for (const state of states) for (const impId of state.planned.impIds) stateOfImp.set(impId, state);

  placeAuctionErrors(states, auctionErrors);
  for (const seat of seats) {
    for (const auctionBid of seat.bids) {
      const state = stateOfImp.get(auctionBid.bid.impid);
      if (!state) continue;
      const admitted = admit(auctionBid, rules);
      if ('reason' in admitted) addError(state.errors, seat.bidder, { code: REJECTED, message: `bid ${auctionBid.bid.id} rejected: ${admitted.reason}` });
      else state.candidates.push(admitted);
    }
  }
  if (rules.categories) for (const state of states) deduplicateCategories(state);
  await cacheMissingVast(states, request, cache);

  return states.map((state) => {
    const targeted = state.candidates
      .filter((candidate) => candidate.cacheId !== undefined)
      .sort((a, b) => b.auctionBid.bid.price - a.auctionBid.bid.price)
      .map((candidate) => targetingOf(candidate, rules));
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
 * Errors the auction reported per bidder (timeouts, bad responses, unsupported imps) go under every pod that bidder
 * was offered; errors of a name no pod offers (a module's, say) go under every pod.
 */
function placeAuctionErrors(states: PodState[], auctionErrors: Record<string, BidderError[]>): void {
  for (const [bidder, errors] of Object.entries(auctionErrors)) {
    const concerned = states.filter((state) => state.planned.bidders.has(bidder.toLowerCase()));
    for (const state of concerned.length > 0 ? concerned : states) for (const error of errors) addError(state.errors, bidder, error);
  }
}

function admit(auctionBid: AuctionBid, rules: PodRules): Candidate | { reason: string } {
  if (auctionBid.type !== 'video') return { reason: `it is a ${auctionBid.type} bid; ad pods take video bids only` };
  const vast = vastOf(auctionBid);
  if (vast === undefined) return { reason: 'it has no VAST (neither adm nor nurl)' };
  const fit = fitDuration(auctionBid.video?.duration ?? auctionBid.bid.dur, rules.allowed, rules.requireExact);
  if (!fit.ok) return { reason: fit.reason };
  const candidate: Candidate = { auctionBid, seconds: fit.seconds, vast, cacheId: cachedVastId(auctionBid, rules.namespace) };
  if (!rules.categories) return candidate;
  const category = translateCategory(auctionBid, rules.categories);
  if ('reason' in category) return category;
  return { ...candidate, category: category.id };
}

/** The bid's one IAB category, translated to the ad server's id. */
function translateCategory(auctionBid: AuctionBid, { adServer, mapping }: NonNullable<PodRules['categories']>): { id: string } | { reason: string } {
  const { cat } = auctionBid.bid;
  const primary = auctionBid.video?.primaryCategory;
  const iab = Array.isArray(cat) && cat.length > 0 ? cat : primary ? [primary] : [];
  if (iab.length === 0) return { reason: 'it carries no IAB category (bid.cat), which category translation needs' };
  if (iab.length > 1) return { reason: `it carries ${iab.length} IAB categories (${iab.join(', ')}); category translation needs exactly one` };
  const mapped = mapping.get(String(iab[0]));
  if (!mapped) return { reason: `its IAB category ${iab[0]} has no ${adServer} category in this host's mapping` };
  return { id: mapped.id };
}

/** One bid per category: the highest price wins (the first seen on ties); the others are reported as deduplicated. */
function deduplicateCategories(state: PodState): void {
  const best = new Map<string, Candidate>();
  for (const candidate of state.candidates) {
    const held = best.get(candidate.category!);
    if (!held || candidate.auctionBid.bid.price > held.auctionBid.bid.price) best.set(candidate.category!, candidate);
  }
  const kept = new Set(best.values());
  for (const candidate of state.candidates) {
    if (kept.has(candidate)) continue;
    const winner = best.get(candidate.category!)!;
    addError(state.errors, candidate.auctionBid.bidder, {
      code: DEDUPLICATED,
      message: `bid ${candidate.auctionBid.bid.id} deduplicated: bid ${winner.auctionBid.bid.id} of ${winner.auctionBid.bidder} has the same category (${candidate.category}) in pod ${String(state.planned.pod.podid)} at a higher or equal price`,
    });
  }
  state.candidates = state.candidates.filter((candidate) => kept.has(candidate));
}

/**
 * The auction's cache stage caches each bidder's best bid per imp; a pod may also take a bidder's other bids, and a
 * cache failure may have left some out. Those are cached here in one call; a bid still without a uuid is reported.
 */
async function cacheMissingVast(states: PodState[], request: BidRequest, cache: PodCache): Promise<void> {
  const missing = states.flatMap((state) => state.candidates.filter((candidate) => candidate.cacheId === undefined).map((candidate) => ({ state, candidate })));
  if (missing.length === 0) return;
  const expOfImp = new Map(request.imp.map((imp) => [imp.id, imp.exp]));
  const uuids = await cache.client.put(
    missing.map(({ candidate }) => {
      const ttlseconds = smallestPositive(expOfImp.get(candidate.auctionBid.bid.impid), candidate.auctionBid.bid.exp);
      return ttlseconds === undefined ? { type: 'xml' as const, value: candidate.vast } : { type: 'xml' as const, value: candidate.vast, ttlseconds };
    }),
    cache.deadline,
  );
  missing.forEach(({ state, candidate }, index) => {
    candidate.cacheId = uuids[index];
    if (candidate.cacheId === undefined) {
      addError(state.errors, candidate.auctionBid.bidder, { code: NOT_CACHED, message: `bid ${candidate.auctionBid.bid.id} left out: its VAST could not be cached` });
    }
  });
}

function targetingOf(candidate: Candidate, rules: PodRules): PodTargeting {
  const bucket = priceBucket(candidate.auctionBid.bid.price, rules.granularity);
  const parts = candidate.category === undefined ? [bucket, `${candidate.seconds}s`] : [bucket, candidate.category, `${candidate.seconds}s`];
  return { hb_pb: bucket, hb_pb_cat_dur: parts.join('_'), hb_cache_id: candidate.cacheId! };
}

/** The VAST a bid serves: its markup, else a wrapper around its win notice URL. */
function vastOf({ bid }: AuctionBid): string | undefined {
  if (typeof bid.adm === 'string' && bid.adm !== '') return bid.adm;
  if (typeof bid.nurl === 'string' && bid.nurl !== '') return vastWrapper(bid.nurl);
  return undefined;
}

/** The uuid the auction's cache stage gave the bid's VAST (`bid.ext.<ns>.cache.vastXml.cacheId`). */
function cachedVastId(auctionBid: AuctionBid, namespace: Namespace): string | undefined {
  const own = auctionBid.bid.ext?.[namespace];
  const cacheExt = isJsonObject(own) && isJsonObject(own.cache) ? own.cache : undefined;
  const vastXml = cacheExt && isJsonObject(cacheExt.vastXml) ? cacheExt.vastXml : undefined;
  return typeof vastXml?.cacheId === 'string' && vastXml.cacheId !== '' ? vastXml.cacheId : undefined;
}

function smallestPositive(...values: Array<number | undefined>): number | undefined {
  const positive = values.filter((value): value is number => typeof value === 'number' && value > 0);
  return positive.length > 0 ? Math.min(...positive) : undefined;
}

function addError(errors: Record<string, BidderError[]>, bidder: string, error: BidderError): void {
  (errors[bidder] ??= []).push(error);
}
