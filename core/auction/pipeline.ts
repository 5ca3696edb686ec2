import {
  BidderErrorCode,
  hasOwnKeys,
  type AllBidsPayload,
  type AuctionBid,
  type BidderError,
  type BidderRequest,
  type BidRequest,
  type BidResponse,
  type BidsPayload,
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
import type { CurrencyService } from '../currency/index.js';
import { HookRequestState, runStage, type TraceLevel } from '../hooks/executor.js';
import type { ExecutionPlans } from '../hooks/plan.js';
import type { Clock } from '../app/tokens.js';
import { auctionOutcomeLabel, recordBidderSeat, type Metrics } from '../metrics/index.js';
import { callBidder, type BidderCallOptions, type HttpCallRecord } from './bidder-call.js';
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

const REQUEST_STAGES = ['raw-auction-request', 'validate-request', 'processed-auction-request'] as const;
const BID_STAGES = ['all-processed-bid-responses', 'build-targeting', 'cache-bids'] as const;

/** What every bidder call of one auction shares: the deadline, the call options, the debug record. */
interface BidderTiming {
  bidderDeadline: number;
  call: BidderCallOptions;
  /** The exchanges per bidder, kept only for a debug request. */
  httpCalls?: Map<string, HttpCallRecord[]>;
}

/** A bid the response can carry: modules may have set any price, but only a finite, non-negative one stays. */
function isPriced(bid: AuctionBid): boolean {
  return Number.isFinite(bid.bid.price) && bid.bid.price >= 0;
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

  /** True when some module hooks this stage on this endpoint; a stage nobody hooks is skipped outright. */
  hooked(endpoint: EndpointName, stage: Stage): boolean {
    return this.deps.plans[endpoint][stage].length > 0;
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

    for (const stage of REQUEST_STAGES) {
      if (!this.hooked(endpoint, stage)) continue;
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
    const httpCalls = debug ? new Map<string, HttpCallRecord[]>() : undefined;
    const seats = await this.callBidders(endpoint, shares, state, {
      bidderDeadline,
      httpCalls,
      call: { endpoint, recordCalls: debug, currency, convert },
    });

    let allBids: AllBidsPayload = { request, seats };
    for (const stage of BID_STAGES) {
      // Winners are known before targeting is built: the later stages read them.
      if (stage === 'build-targeting') markWinners(request, allBids.seats);
      if (!this.hooked(endpoint, stage)) continue;
      let outcome = this.stage(endpoint, stage, allBids, state);
      if (outcome instanceof Promise) outcome = await outcome;
      allBids = outcome.payload;
    }

    const debugInfo = httpCalls ? { httpcalls: Object.fromEntries(httpCalls), resolvedrequest: resolvedRequest } : undefined;
    const response = this.buildResponse(request, allBids.seats, state, { namespace, tmax, currency, debugInfo });
    if (!this.hooked(endpoint, 'auction-response')) return { kind: 'completed', response, request, seats: allBids.seats };
    let final = this.stage(endpoint, 'auction-response', { request, response }, state);
    if (final instanceof Promise) final = await final;
    return { kind: 'completed', response: final.payload.response, request, seats: allBids.seats };
  }

  /**
   * Asks every bidder at once. One timer per auction, not per call: when it fires, the bidders still out are counted
   * as timeouts and the auction goes on without them (the transport's own timeouts end their calls). The seats are
   * collected by hand rather than with a race per bidder: no promise per bidder beyond its own call.
   */
  private callBidders(endpoint: EndpointName, shares: BidderRequest[], state: HookRequestState, timing: BidderTiming): Promise<SeatResult[]> {
    if (shares.length === 0) return Promise.resolve([]);
    const { clock, metrics } = this.deps;
    const started = clock.now();
    const seats: Array<SeatResult | undefined> = new Array(shares.length);
    return new Promise((resolve) => {
      let outstanding = shares.length;
      let done = false;
      const settle = (): void => {
        done = true;
        clearTimeout(timer);
        for (let i = 0; i < shares.length; i++) {
          const share = shares[i]!;
          seats[i] ??= {
            bidder: share.bidder,
            adapter: share.adapter,
            bids: [],
            errors: [{ code: BidderErrorCode.Timeout, message: 'Timeout: the bidder did not answer before the auction deadline' }],
            responseTimeMs: Math.round(clock.now() - started),
          };
          recordBidderSeat(metrics, seats[i]!);
        }
        resolve(seats as SeatResult[]);
      };
      // A whole number of ms: Node keeps one timer list per distinct duration, and a fractional one is a new list
      // (and a priority-queue insert) for every auction.
      const timer = setTimeout(settle, Math.max(0, Math.floor(timing.bidderDeadline - started)));
      for (let i = 0; i < shares.length; i++) {
        const share = shares[i]!;
        this.askBidder(endpoint, share, state, timing).then(
          (seat) => {
            if (done) return;
            seats[i] = seat;
            if (--outstanding === 0) settle();
          },
          (err: unknown) => {
            this.deps.logger.error({ err, bidder: share.bidder }, 'bidder call failed unexpectedly');
            if (done) return;
            seats[i] = { bidder: share.bidder, adapter: share.adapter, bids: [], errors: [{ code: BidderErrorCode.Unknown, message: 'internal error while calling this bidder' }], responseTimeMs: 0 };
            if (--outstanding === 0) settle();
          },
        );
      }
    });
  }

  /** One bidder's part: bidder-request hooks, the calls, raw-bidder-response and adjust-bids hooks. */
  private async askBidder(endpoint: EndpointName, share: BidderRequest, state: HookRequestState, timing: BidderTiming): Promise<SeatResult> {
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
    if (this.hooked(endpoint, 'bidder-request')) {
      let prepared = this.stage(endpoint, 'bidder-request', { bidder: share.bidder, adapter: share.adapter, request: share.request }, state);
      if (prepared instanceof Promise) prepared = await prepared;
      if (prepared.rejection) {
        seat.errors.push({ code: BidderErrorCode.BadInput, message: 'bidder request rejected by a module' });
        return seat;
      }
      // The share was made for this auction by the split: it is the auction's to update.
      share.request = prepared.payload.request;
    }
    const called = await callBidder(entry, share, transport, timing.bidderDeadline, timing.call);
    for (const bid of called.bids) metrics.bidReceived(share.adapter, bid.type);
    if (called.errors.length > 0) seat.errors.push(...called.errors);
    if (timing.httpCalls) timing.httpCalls.set(share.bidder, called.httpCalls);
    seat.responseTimeMs = Math.round(clock.now() - started);
    let payload: BidsPayload = { bidder: share.bidder, request: share.request, bids: called.bids };
    if (this.hooked(endpoint, 'raw-bidder-response')) {
      let raw = this.stage(endpoint, 'raw-bidder-response', payload, state);
      if (raw instanceof Promise) raw = await raw;
      if (raw.rejection) return seat;
      payload = raw.payload;
    }
    if (this.hooked(endpoint, 'adjust-bids')) {
      let adjusted = this.stage(endpoint, 'adjust-bids', payload, state);
      if (adjusted instanceof Promise) adjusted = await adjusted;
      payload = adjusted.payload;
    }
    const bids = payload.bids;
    seat.bids = bids.every(isPriced) ? bids : bids.filter(isPriced);
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
    // Most auctions have no errors: the errors object is made only for the first one.
    let errors: Record<string, BidderError[]> | undefined = hasOwnKeys(state.errors) ? { ...state.errors } : undefined;
    for (const seat of seats) {
      responseTimes[seat.bidder] = seat.responseTimeMs;
      if (seat.errors.length > 0) ((errors ??= {})[seat.bidder] ??= []).push(...seat.errors);
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
    if (errors) ext.errors = errors;
    if (hasOwnKeys(state.warnings)) ext.warnings = state.warnings;
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
  own.meta = isObject(own.meta) ? { ...own.meta, adaptercode: auctionBid.adapter } : { adaptercode: auctionBid.adapter };
  if (hasOwnKeys(auctionBid.targeting)) own.targeting = auctionBid.targeting;
  if (auctionBid.video) own.video = { duration: auctionBid.video.duration ?? 0, primary_category: auctionBid.video.primaryCategory ?? '' };
  bidExt[ns] = own;
  bidExt.origbidcpm = auctionBid.originalPrice;
  bidExt.origbidcur = auctionBid.originalCurrency;
  bid.ext = bidExt;
  return bid;
}
