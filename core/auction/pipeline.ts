import {
  BidderErrorCode,
  type AuctionBid,
  type BidderError,
  type BidderRequest,
  type BidRequest,
  type BidResponse,
  type EndpointName,
  type PluginLogger,
  type SeatBid,
  type SeatResult,
  type Stage,
  type StagePayloads,
} from '../api/index.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { BidderTransport } from '../bidders/transport.js';
import type { GavelConfig } from '../config/index.js';
import type { ConvertPrice, CurrencyService } from '../currency/index.js';
import { HookRequestState, runStage, type TraceLevel } from '../hooks/executor.js';
import type { ExecutionPlans } from '../hooks/plan.js';
import type { Clock } from '../app/tokens.js';
import { auctionOutcomeLabel, recordBidderSeat, type Metrics } from '../metrics/index.js';
import { callBidder, type HttpCallRecord } from './bidder-call.js';
import { requestOptions, type Namespace } from './namespace.js';
import { markWinners } from './winners.js';
import { applyCookieBuyerIds, type CookieUids } from './buyer-ids.js';

export interface AuctionInput {
  endpoint: EndpointName;
  request: BidRequest;
  namespace: Namespace;
  /** Epoch ms when the HTTP request arrived: tmax counts from here. */
  receivedAt: number;
  secure: boolean;
  /** Bidder ids read from the `uids` cookie, keyed by sync key. */
  cookieUids?: CookieUids;
  /** The request as it was before hooks ran, for `ext.debug.resolvedrequest`. */
  hookState?: HookRequestState;
}

export type AuctionOutcome =
  | { kind: 'invalid'; messages: string[] }
  | { kind: 'rejected'; response: BidResponse }
  | { kind: 'completed'; response: BidResponse; request: BidRequest; seats: SeatResult[] };

/** The parts of the service the pipeline needs, resolved once at boot. */
export interface AuctionDeps {
  config: GavelConfig;
  bidders: BidderCatalog;
  plans: ExecutionPlans;
  transport: BidderTransport;
  logger: PluginLogger;
  clock: Clock;
  metrics: Metrics;
  currency: CurrencyService;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Effective tmax: the request's, else the host default; never above the host maximum. */
export function effectiveTmax(request: BidRequest, config: GavelConfig): number {
  const asked = typeof request.tmax === 'number' && request.tmax > 0 ? request.tmax : config.auction.defaultTmaxMs;
  return Math.min(asked, config.auction.maxTmaxMs);
}

export function traceLevelOf(request: BidRequest, namespace: Namespace): TraceLevel | undefined {
  const trace = requestOptions(request, namespace).trace;
  return trace === 'basic' || trace === 'verbose' ? trace : undefined;
}

/**
 * The auction: request stages, the split into per-bidder shares, the bidder calls within the deadline, bid
 * processing, winners, targeting and caching, then the OpenRTB response. Endpoints (auction, AMP, video) build the
 * request and read the response; everything between is here.
 */
export class AuctionPipeline {
  constructor(private readonly deps: AuctionDeps) {}

  newHookState(endpoint: EndpointName, namespace: Namespace, receivedAt: number, tmax: number, secure: boolean, trace: TraceLevel | undefined): HookRequestState {
    return new HookRequestState({ endpoint, namespace, deadline: receivedAt + tmax, secure, logger: this.deps.logger }, trace);
  }

  /**
   * Runs one stage. The result is a plain value when every hook answered synchronously (the usual case for the
   * built-ins and for stages with no hooks): callers await only a real promise, so an idle stage costs no microtask.
   */
  stage<S extends Stage>(endpoint: EndpointName, stage: S, payload: StagePayloads[S], state: HookRequestState) {
    return runStage(stage, this.deps.plans[endpoint][stage], payload, state, this.deps.logger, this.deps.metrics);
  }

  async run(input: AuctionInput): Promise<AuctionOutcome> {
    const outcome = await this.runAuction(input);
    this.deps.metrics.auctionCompleted(input.endpoint, auctionOutcomeLabel(outcome.kind), this.deps.clock.now() - input.receivedAt);
    return outcome;
  }

  private async runAuction(input: AuctionInput): Promise<AuctionOutcome> {
    const { config } = this.deps;
    const { endpoint, namespace, receivedAt } = input;
    let request = input.request;
    const tmax = effectiveTmax(request, config);
    const state = input.hookState ?? this.newHookState(endpoint, namespace, receivedAt, tmax, input.secure, traceLevelOf(request, namespace));
    const debug = request.test === 1;
    const resolvedRequest = debug ? structuredClone(request) : undefined;

    for (const stage of ['raw-auction-request', 'validate-request', 'processed-auction-request'] as const) {
      let outcome = this.stage(endpoint, stage, { request }, state);
      if (outcome instanceof Promise) outcome = await outcome;
      if (outcome.invalid) return { kind: 'invalid', messages: outcome.invalid };
      if (outcome.rejection) return { kind: 'rejected', response: { id: String(request.id ?? ''), nbr: outcome.rejection.nbr ?? 0 } };
      request = outcome.payload.request;
    }

    let split = this.stage(endpoint, 'split-imps', { request, bidderRequests: [] }, state);
    if (split instanceof Promise) split = await split;
    const shares = split.payload.bidderRequests;
    if (input.cookieUids) applyCookieBuyerIds(shares, input.cookieUids, this.deps.bidders);

    const currency = Array.isArray(request.cur) && typeof request.cur[0] === 'string' ? request.cur[0] : config.auction.currency;
    const bidderDeadline = receivedAt + tmax - config.auction.networkBufferMs - config.auction.responsePrepMs;
    const convert = this.deps.currency.converterFor(request, namespace);
    const { seats, httpCalls } = await this.callBidders(endpoint, shares, state, { bidderDeadline, debug, currency, convert });

    let allBids = this.stage(endpoint, 'all-processed-bid-responses', { request, seats }, state);
    if (allBids instanceof Promise) allBids = await allBids;
    markWinners(request, allBids.payload.seats);
    let targeted = this.stage(endpoint, 'build-targeting', allBids.payload, state);
    if (targeted instanceof Promise) targeted = await targeted;
    let cached = this.stage(endpoint, 'cache-bids', targeted.payload, state);
    if (cached instanceof Promise) cached = await cached;

    const debugInfo = debug ? { httpcalls: Object.fromEntries(httpCalls), resolvedrequest: resolvedRequest } : undefined;
    const response = this.buildResponse(request, cached.payload.seats, state, { namespace, tmax, currency, debugInfo });
    let final = this.stage(endpoint, 'auction-response', { request, response }, state);
    if (final instanceof Promise) final = await final;
    return { kind: 'completed', response: final.payload.response, request, seats: cached.payload.seats };
  }

  /**
   * Asks every bidder at once. One timer per auction, not per call: when it fires, the bidders still out are counted
   * as timeouts and the auction goes on without them (the transport's own timeouts end their calls).
   */
  private async callBidders(
    endpoint: EndpointName,
    shares: BidderRequest[],
    state: HookRequestState,
    timing: { bidderDeadline: number; debug: boolean; currency: string; convert: ConvertPrice },
  ): Promise<{ seats: SeatResult[]; httpCalls: Map<string, HttpCallRecord[]> }> {
    const { clock } = this.deps;
    const httpCalls = new Map<string, HttpCallRecord[]>();
    const started = clock.now();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, timing.bidderDeadline - started));
    });
    try {
      const seats = await Promise.all(
        shares.map((share) =>
          Promise.race([
            this.askBidder(endpoint, share, state, timing, httpCalls),
            expired.then((): SeatResult => ({
              bidder: share.bidder,
              adapter: share.adapter,
              bids: [],
              errors: [{ code: BidderErrorCode.Timeout, message: 'Timeout: the bidder did not answer before the auction deadline' }],
              responseTimeMs: Math.round(clock.now() - started),
            })),
          ]),
        ),
      );
      for (const seat of seats) recordBidderSeat(this.deps.metrics, seat);
      return { seats, httpCalls };
    } finally {
      clearTimeout(timer);
    }
  }

  /** One bidder's part: bidder-request hooks, the calls, raw-bidder-response and adjust-bids hooks. */
  private async askBidder(
    endpoint: EndpointName,
    share: BidderRequest,
    state: HookRequestState,
    timing: { bidderDeadline: number; debug: boolean; currency: string; convert: ConvertPrice },
    httpCalls: Map<string, HttpCallRecord[]>,
  ): Promise<SeatResult> {
    const { clock, transport, bidders, config, metrics } = this.deps;
    const started = clock.now();
    const seat: SeatResult = { bidder: share.bidder, adapter: share.adapter, bids: [], errors: [], responseTimeMs: 0 };
    const entry = bidders.get(share.adapter);
    if (!entry?.bidder) {
      seat.errors.push({ code: BidderErrorCode.BadInput, message: `bidder ${share.bidder} is not enabled on this host` });
      return seat;
    }
    if (timing.bidderDeadline - started < config.auction.minBidderTimeMs) {
      seat.errors.push({ code: BidderErrorCode.Timeout, message: 'Timeout: not enough time left in tmax to call this bidder' });
      return seat;
    }
    let prepared = this.stage(endpoint, 'bidder-request', { bidder: share.bidder, adapter: share.adapter, request: share.request }, state);
    if (prepared instanceof Promise) prepared = await prepared;
    if (prepared.rejection) {
      seat.errors.push({ code: BidderErrorCode.BadInput, message: 'bidder request rejected by a module' });
      return seat;
    }
    const called = await callBidder(entry, { ...share, request: prepared.payload.request }, transport, timing.bidderDeadline, {
      endpoint,
      recordCalls: timing.debug,
      currency: timing.currency,
      convert: timing.convert,
    });
    for (const bid of called.bids) metrics.bidReceived(share.adapter, bid.type);
    seat.errors.push(...called.errors);
    if (timing.debug) httpCalls.set(share.bidder, called.httpCalls);
    seat.responseTimeMs = Math.round(clock.now() - started);
    let raw = this.stage(endpoint, 'raw-bidder-response', { bidder: share.bidder, request: prepared.payload.request, bids: called.bids }, state);
    if (raw instanceof Promise) raw = await raw;
    if (raw.rejection) return seat;
    let adjusted = this.stage(endpoint, 'adjust-bids', raw.payload, state);
    if (adjusted instanceof Promise) adjusted = await adjusted;
    seat.bids = adjusted.payload.bids.filter((bid) => Number.isFinite(bid.bid.price) && bid.bid.price >= 0);
    return seat;
  }

  private buildResponse(
    request: BidRequest,
    seats: SeatResult[],
    state: HookRequestState,
    options: { namespace: Namespace; tmax: number; currency: string; debugInfo?: Record<string, unknown> },
  ): BidResponse {
    const ns = options.namespace;
    const seatbid: SeatBid[] = [];
    const bySeat = new Map<string, SeatBid>();
    const responseTimes: Record<string, number> = {};
    const errors: Record<string, BidderError[]> = { ...state.errors };
    for (const seat of seats) {
      responseTimes[seat.bidder] = seat.responseTimeMs;
      if (seat.errors.length > 0) (errors[seat.bidder] ??= []).push(...seat.errors);
      for (const auctionBid of seat.bids) {
        const seatName = auctionBid.seat ?? seat.bidder;
        let group = bySeat.get(seatName);
        if (!group) {
          group = { seat: seatName, bid: [] };
          bySeat.set(seatName, group);
          seatbid.push(group);
        }
        group.bid.push(responseBid(auctionBid, ns));
      }
    }
    const ext: Record<string, unknown> = { responsetimemillis: responseTimes, tmaxrequest: options.tmax };
    if (Object.keys(errors).length > 0) ext.errors = errors;
    if (Object.keys(state.warnings).length > 0) ext.warnings = state.warnings;
    if (options.debugInfo) ext.debug = options.debugInfo;
    if (state.trace) ext[ns] = { modules: { trace: state.trace } };
    const response: BidResponse = { id: String(request.id), seatbid, cur: options.currency, ext };
    return response;
  }
}

/** The bid as the response carries it: the bidder's bid (owned by the auction, so edited in place) plus our ext. */
function responseBid(auctionBid: AuctionBid, ns: Namespace): AuctionBid['bid'] {
  const bid = auctionBid.bid;
  const bidExt = isObject(bid.ext) ? bid.ext : {};
  const own = isObject(bidExt[ns]) ? (bidExt[ns] as Record<string, unknown>) : {};
  own.type = auctionBid.type;
  own.meta = { ...(isObject(own.meta) ? own.meta : {}), adaptercode: auctionBid.adapter };
  if (Object.keys(auctionBid.targeting).length > 0) own.targeting = auctionBid.targeting;
  if (auctionBid.video) own.video = { duration: auctionBid.video.duration ?? 0, primary_category: auctionBid.video.primaryCategory ?? '' };
  bidExt[ns] = own;
  bidExt.origbidcpm = auctionBid.originalPrice;
  bidExt.origbidcur = auctionBid.originalCurrency;
  bid.ext = bidExt;
  return bid;
}
