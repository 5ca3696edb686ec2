import {
  BidderErrorCode,
  NonBidReason,
  hasOwnKeys,
  isJsonObject,
  requestOption,
  WarningCode,
  type AuctionBid,
  type BidderError,
  type BidderRequest,
  type BidRequest,
  type BidResponse,
  type BidsPayload,
  type FledgeAuctionConfig,
  type HookPointServices,
  type Namespace,
  type SeatBid,
  type SeatResult,
  type Stage,
  type StagePayloads,
  type Warning,
} from '../api/index.js';
import { BidderRequestShaper, type BidderRequestSettings, type ImpRecheck } from '../bidder-requests/index.js';
import type { BidderCatalog, BidderEntry } from '../bidders/catalog.js';
import { PrivacyEnforcer, type PrivacyService } from '../privacy/index.js';
import { readStoredAnswers, setAsideStoredImps, storedAuctionSeats, type StoredShare } from '../stored-responses/index.js';
import { AuctionCalls, type BidderTransport } from '../bidders/transport.js';
import type { GavelConfig } from '../config/index.js';
import type { RequestContext } from '../context/request-context.js';
import { conversionFailure, strictConversion, type CurrencyService } from '../currency/index.js';
import { runStage, type StageOutcome } from '../hooks/executor.js';
import { convertDownTo25, convertUpTo26 } from '../ortb/index.js';
import { auctionOutcomeLabel, recordBidderSeat, type Metrics } from '../metrics/index.js';
import { auctionBidRules, checkBids, checkResponseBids, identifyBids, type AuctionBidRules, type BidCheckSettings } from '../bids/index.js';
import { CALL_TIMED_OUT, callBidder, type BidderCallOptions, type BidderCallResult, type HttpCallRecord } from './bidder-call.js';
import { seatNonBids } from './non-bids.js';
import { markWinners, winnerRules } from './winners.js';
import { applyCookieBuyerIds, type CookieUids } from './buyer-ids.js';

export type AuctionOutcome =
  | { kind: 'invalid'; messages: string[] }
  /** The auction could not run to its end (Prebid Server's critical error, a 500): the message says why. */
  | { kind: 'failed'; message: string }
  | { kind: 'rejected'; response: BidResponse }
  | { kind: 'completed'; response: BidResponse; request: BidRequest; seats: SeatResult[] };

/** The parts of the service the pipeline needs, resolved once at boot. */
export interface AuctionDeps {
  config: GavelConfig;
  bidders: BidderCatalog;
  transport: BidderTransport;
  metrics: Metrics;
  currency: CurrencyService;
  /** The five hook points, as the composition root bound them. */
  services: HookPointServices;
  /** The host's side of the checks every bidder's bids go through (core/bids). */
  bidChecks: BidCheckSettings;
  /** Reads each request's privacy signals once (core/privacy). */
  privacy: PrivacyService;
}

/** Prebid Server's warning for a call of a bidder whose `debug.allow` is false, with its text. */
const BIDDER_DEBUG_DISABLED: Warning = Object.freeze({ code: WarningCode.BidderLevelDebugDisabled, message: 'debug turned off for bidder' });

/**
 * From this many bidders on, the branches their requests share are written to JSON once per auction (serialiseBody):
 * writing a body member by member costs more than one JSON.stringify of it (each call has a fixed cost), which the
 * bidders after the second pay back (production request: 8% less JSON work at 3 bidders, 40% more at 1).
 */
const SHARED_JSON_FROM_BIDDERS = 3;
/** OpenRTB 3 no-bid reason 2, "invalid request": Prebid Server's answer when no bidder is left to ask. */
const NO_BID_INVALID_REQUEST = 2;

/** What every bidder call of one auction shares: the deadline, the call options, the rules bids are checked by, the debug record. */
interface BidderTiming {
  bidderDeadline: number;
  call: BidderCallOptions;
  bidRules: AuctionBidRules;
  /** The exchanges per bidder, kept only for a debug request. */
  httpCalls?: Map<string, HttpCallRecord[]>;
  /** Shares some of whose imps are answered by stored bid responses. */
  stored?: ReadonlyMap<BidderRequest, StoredShare>;
  /** The OpenRTB 2.5 copies of the request objects the bidders share, made once per auction (convertDownTo25). */
  converted25: Map<object, Record<string, unknown>>;
  /** Set when the auction stopped waiting: a bidder still out is reported as timed out then, not by its failing call. */
  abandoned?: boolean;
}

/** A bid the response can carry: a service or module may have set any price, but only a finite, non-negative one stays. */
function isPriced(bid: AuctionBid): boolean {
  return Number.isFinite(bid.bid.price) && bid.bid.price >= 0;
}

/**
 * The bidder's bids without those no answer may carry, each dropped one reported as a bad server response (code 3)
 * and as a rejected bid: a price that is negative, infinite or not a number (a bidder's, or one an adjustment made),
 * and a bid whose id the bidder already used for the same imp in this auction. The usual seat (every bid sound) is returned as is.
 */
function soundBids(bids: AuctionBid[], seat: SeatResult, context: RequestContext): AuctionBid[] {
  let kept: AuctionBid[] | undefined;
  let ids: Set<unknown> | undefined;
  for (let i = 0; i < bids.length; i++) {
    const auctionBid = bids[i]!;
    const bid = auctionBid.bid;
    let problem: string | undefined;
    if (!isPriced(auctionBid)) problem = `Bid "${String(bid.id)}" has price ${String(bid.price)}: a bid needs a finite, non-negative price; dropped`;
    else if (bids.length > 1) {
      // The same id in another imp is a different bid (Prebid Server's exchange fixtures send such pairs).
      ids ??= new Set();
      const key = `${String(bid.impid)}\u0000${String(bid.id)}`;
      if (ids.has(key)) problem = `Bid "${String(bid.id)}" repeats the id of an earlier bid of this bidder in imp "${String(bid.impid)}"; dropped`;
      else ids.add(key);
    }
    if (problem === undefined) {
      kept?.push(auctionBid);
      continue;
    }
    kept ??= bids.slice(0, i);
    seat.errors.push({ code: BidderErrorCode.BadServerResponse, message: problem });
    context.rejectBid(auctionBid, NonBidReason.ResponseRejectedGeneral);
  }
  return kept ?? bids;
}

/** One bidder's part of an auction while it is asked: its share, its adapter, the seat being filled. */
interface BidderAsked {
  share: BidderRequest;
  entry: BidderEntry;
  seat: SeatResult;
  started: number;
  /** Its imps answered by stored bid responses, if any. */
  stored: StoredShare | undefined;
}

/** What a request stage leaves: the request as its hooks left it, or the no-bid answer when one rejected it. */
type RequestStageResult = { request: BidRequest } | { rejected: AuctionOutcome };

function requestStageResult(outcome: StageOutcome<{ request: BidRequest }>, request: BidRequest): RequestStageResult {
  if (outcome.rejection) return { rejected: { kind: 'rejected', response: { id: String(request.id ?? ''), nbr: outcome.rejection.nbr ?? 0 } } };
  return { request: outcome.payload.request };
}

/**
 * The auction, in a straight line: request hooks, request validation, imp splitting, the bidder calls within the
 * deadline (each with its hooks, bid adjustment and bid checks), the processed-bids hooks, what targeting keys from the
 * bids (brand categories), winners, bid caching, targeting, then the OpenRTB response and its hooks. Endpoints (auction, AMP, video) build the request and its context and read the
 * response; everything between is here.
 */
export class AuctionPipeline {
  private readonly bidderRequests: BidderRequestShaper;
  private readonly privacy: PrivacyEnforcer;

  /** The host's own name of a bidder it knows by this name in any letter case (an adapter or a host alias, enabled or not). */
  private readonly hostBidderName = (name: string): string | undefined => this.deps.bidders.get(name)?.name;

  /** The host's identity every bidder's request carries (`ext.<ns>.server`), when it declares one. */
  private readonly hostServer: Record<string, unknown> | undefined;

  /** The request validation service's re-check of an imp a bidder's first-party data changed, when it has one. */
  private readonly recheckImp: ImpRecheck | undefined;

  constructor(private readonly deps: AuctionDeps) {
    const settings = bidderRequestSettings(deps.config);
    this.hostServer = settings.server;
    const validator = deps.services['request-validation'];
    this.recheckImp = validator.validateImp ? (imp, index, context) => validator.validateImp!(imp, index, context) : undefined;
    this.bidderRequests = new BidderRequestShaper(settings);
    this.privacy = new PrivacyEnforcer(deps.bidders, deps.config.privacy.gdpr.bidderVendorIds);
  }

  /**
   * Runs one stage of the request's plan. The result is a plain value when every hook answered synchronously (the
   * usual case, and every stage nobody hooks): callers await only a real promise, so an idle stage costs no microtask.
   */
  stage<S extends Stage>(stage: S, payload: StagePayloads[S], context: RequestContext) {
    return runStage(stage, context.plan[stage], payload, context, this.deps.metrics);
  }

  /** True when some module hooks this stage for this request; a stage nobody hooks is skipped outright. */
  hooked(context: RequestContext, stage: Stage): boolean {
    return context.plan[stage].length > 0;
  }

  run(request: BidRequest, context: RequestContext, cookieUids?: CookieUids): Promise<AuctionOutcome> {
    return this.runAuction(request, context, cookieUids).then((outcome) => {
      this.deps.metrics.auctionCompleted(context.endpoint, auctionOutcomeLabel(outcome.kind), context.now() - context.receivedAt);
      context.observer?.finished(outcome);
      return outcome;
    });
  }

  private async runAuction(input: BidRequest, context: RequestContext, cookieUids: CookieUids | undefined): Promise<AuctionOutcome> {
    const { config, services } = this.deps;
    let request = input;
    // Every part of the auction reads the request in its OpenRTB 2.6 form; 2.5 bidders get theirs converted back.
    convertUpTo26(request, context.namespace);

    let raw = this.requestStage('raw-auction-request', request, context);
    if (raw instanceof Promise) raw = await raw;
    if ('rejected' in raw) return raw.rejected;
    request = raw.request;
    const invalid = services['request-validation'].validate(request, context);
    if (invalid !== undefined && invalid.length > 0) return { kind: 'invalid', messages: invalid };
    // The auction's currency and rates are known before the processed-request hooks: floors are converted with them.
    context.currency = Array.isArray(request.cur) && typeof request.cur[0] === 'string' ? request.cur[0] : config.auction.currency;
    context.convertCurrency = this.deps.currency.converterFor(request, context.namespace);
    let processed = this.requestStage('processed-auction-request', request, context);
    if (processed instanceof Promise) processed = await processed;
    if ('rejected' in processed) return processed.rejected;
    request = processed.request;
    const resolvedRequest = context.debug ? resolvedRequestOf(request, context.namespace, this.hostServer) : undefined;
    // The privacy signals of the request as the hooks left it: read once, for every bidder, sync and report.
    const privacy = this.deps.privacy.read(request, context.endpoint, context.account, context.namespace, (warning) => context.warn('general', warning), context.accountId);
    context.privacy = privacy;
    // Before the split: the account's default DSA object goes to the bidders with the request (its gdpr_only asks
    // whether GDPR is enforced, so after the signals are read).
    const bidRules = auctionBidRules(request, context, this.deps.bidChecks);

    const shares = services['imp-splitting'].split(request, context);
    // The bidders Prebid Server would count live before it shapes and screens their requests: one the split left out
    // for its media types is live there (its adapter refuses the imps), one blocked by privacy is not.
    const namedBidders = shares.length;
    if (cookieUids) applyCookieBuyerIds(shares, cookieUids, this.deps.bidders);
    const refused = this.bidderRequests.shape(request, shares, context, this.recheckImp);
    if (refused) return { kind: 'invalid', messages: refused };
    // What each bidder may receive is decided here, before any bidder-request hook or adapter sees its share.
    this.privacy.enforce(request, shares, privacy, context.namespace, (warning) => context.warn(context.namespace, warning));

    const currency = context.currency;
    const bidderDeadline = context.deadline - config.auction.networkBufferMs - config.auction.responsePrepMs;
    const convert = context.convertCurrency;
    const failure = (from: string, to: string): string => conversionFailure(from, to, request, context.namespace);
    const httpCalls = context.debug ? new Map<string, HttpCallRecord[]>() : undefined;
    const stored = context.storedResponses;
    // Stored auction responses answer the whole auction: no bidder is called (Prebid Server's rule).
    const storedSeats = stored?.auction ? storedAuctionSeats(stored.auction, currency) : undefined;
    if (storedSeats && 'critical' in storedSeats) return { kind: 'failed', message: storedSeats.critical };
    let seats = storedSeats
      ? storedSeats
      : await this.callBidders(shares, context, {
          bidderDeadline,
          httpCalls,
          bidRules,
          call: { endpoint: context.endpoint, recordCalls: context.debug, currency, convert, conversionFailure: failure, convertCurrency: strictConversion(convert, failure), warn: (bidder, warning) => context.warn(bidder, warning), observer: context.observer, calls: new AuctionCalls(), minCallTimeMs: config.auction.minBidderTimeMs, branchTexts: shares.length >= SHARED_JSON_FROM_BIDDERS ? new Map() : undefined },
          stored: stored?.bids ? setAsideStoredImps(shares, stored.bids) : undefined,
          converted25: new Map(),
        });
    // Prebid Server signals an invalid request (nbr 2) when no bidder was left to ask: every one blocked by privacy,
    // or the split failed as a whole (imp first-party data it cannot take); a stored auction answer with no seat too.
    const noBidderAsked = seats.length === 0 && (stored?.auction !== undefined || (namedBidders > 0 && shares.length === 0));

    if (this.hooked(context, 'all-processed-bid-responses')) {
      let all = this.stage('all-processed-bid-responses', { request, seats }, context);
      if (all instanceof Promise) all = await all;
      seats = all.payload.seats;
    }
    const auction = { request, seats };
    // What targeting keys from the bids themselves may leave some out: before winners are chosen among them.
    const unkeyable = services.targeting.prepare?.(auction, context);
    if (unkeyable) return { kind: 'invalid', messages: [unkeyable.refused] };
    // Prebid Server gives bids their host ids and event tracking only now, once floors and category mapping are done.
    identifyBids(auction.seats, bidRules, this.deps.bidChecks, context);
    // Winners are known before caching and targeting: both read them; targeting keys the cache ids.
    markWinners(request, auction.seats, winnerRules(request, context.account, this.hostBidderName));
    const cached = services['bid-caching'].cache(auction, context);
    if (cached instanceof Promise) await cached;
    services.targeting.apply(auction, context);
    seats = auction.seats;
    // Prebid Server runs these checks as it writes the response's seats, after the auction (winners, cache, targeting).
    checkResponseBids(seats, bidRules, context);

    // `httpcalls` is left out when no bidder made a call, as Prebid Server's `omitempty` map is.
    const debugInfo = httpCalls ? { ...(httpCalls.size > 0 && { httpcalls: Object.fromEntries(httpCalls) }), resolvedrequest: resolvedRequest } : undefined;
    const response = this.buildResponse(request, seats, context, currency, { auctionStart: bidRules.auctionStart, asked: storedSeats === undefined, debugInfo });
    if (noBidderAsked) response.nbr = NO_BID_INVALID_REQUEST;
    if (!this.hooked(context, 'auction-response')) return { kind: 'completed', response, request, seats };
    let final = this.stage('auction-response', { request, response }, context);
    if (final instanceof Promise) final = await final;
    return { kind: 'completed', response: final.payload.response, request, seats };
  }

  /**
   * A request stage: the request as the hooks left it, or the no-bid answer when one rejected it. A promise only
   * when a hook answered with one: most auctions have nothing to wait for here.
   */
  private requestStage(
    stage: 'raw-auction-request' | 'processed-auction-request',
    request: BidRequest,
    context: RequestContext,
  ): RequestStageResult | Promise<RequestStageResult> {
    if (!this.hooked(context, stage)) return { request };
    const outcome = this.stage(stage, { request }, context);
    return outcome instanceof Promise ? outcome.then((settled) => requestStageResult(settled, request)) : requestStageResult(outcome, request);
  }

  /**
   * Asks every bidder at once. One timer per auction, not per call: when it fires, the bidders still out are counted
   * as timeouts and the auction goes on without them (the transport's own timeouts end their calls). The seats are
   * collected by hand rather than with a race per bidder: no promise per bidder beyond its own call.
   */
  private callBidders(shares: BidderRequest[], context: RequestContext, timing: BidderTiming): Promise<SeatResult[]> {
    if (shares.length === 0) return Promise.resolve([]);
    const { metrics } = this.deps;
    const started = context.now();
    const seats: Array<SeatResult | undefined> = new Array(shares.length);
    return new Promise((resolve) => {
      let outstanding = shares.length;
      let done = false;
      const settle = (): void => {
        done = true;
        timing.abandoned = true;
        clearTimeout(timer);
        // The calls the auction no longer waits for end now, whatever their sockets are doing.
        timing.call.calls?.end();
        for (let i = 0; i < shares.length; i++) {
          const share = shares[i]!;
          if (seats[i] === undefined) {
            context.observer?.bidderAbandoned(share.bidder, context.now());
            // Its imps are seat non-bids for the timeout, as when Prebid Server's call runs out of time.
            context.rejectImps(share.bidder, share.request.imp.map((imp) => imp.id), NonBidReason.ErrorTimeout);
          }
          seats[i] ??= {
            bidder: share.bidder,
            adapter: share.adapter,
            bids: [],
            errors: [{ code: BidderErrorCode.Timeout, message: CALL_TIMED_OUT }],
            responseTimeMs: Math.round(context.now() - started),
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
        let asked: Promise<SeatResult>;
        try {
          asked = this.askBidder(share, context, timing);
        } catch (err) {
          asked = Promise.reject(err);
        }
        asked.then(
          (seat) => {
            if (done) return;
            seats[i] = seat;
            if (--outstanding === 0) settle();
          },
          (err: unknown) => {
            context.logger.error({ err, bidder: share.bidder }, 'bidder call failed unexpectedly');
            if (done) return;
            seats[i] = { bidder: share.bidder, adapter: share.adapter, bids: [], errors: [{ code: BidderErrorCode.Unknown, message: 'internal error while calling this bidder' }], responseTimeMs: 0 };
            if (--outstanding === 0) settle();
          },
        );
      }
    });
  }

  /**
   * One bidder's part: bidder-request hooks, the calls, raw-bidder-response hooks and the bid adjustment. Written as
   * steps joined by `then`, not as an async function, and a hook stage is waited for only when a hook answered with
   * a promise: this runs for every bidder of every auction, and each await is a promise and a resumption more.
   */
  private askBidder(share: BidderRequest, context: RequestContext, timing: BidderTiming): Promise<SeatResult> {
    const { bidders } = this.deps;
    const started = context.now();
    const seat: SeatResult = { bidder: share.bidder, adapter: share.adapter, bids: [], errors: [], responseTimeMs: 0 };
    const entry = bidders.get(share.adapter);
    if (!entry?.bidder) {
      seat.errors.push({ code: BidderErrorCode.BadInput, message: `bidder ${share.bidder} is not enabled on this host` });
      return Promise.resolve(seat);
    }
    const asked: BidderAsked = { share, entry, seat, started, stored: timing.stored?.get(share) };
    // A bidder all of whose imps have stored bid responses is not called at all.
    if (asked.stored && share.request.imp.length === 0) return Promise.resolve(this.answered(asked, { bids: [], errors: [], httpCalls: [], exchanges: [] }, context, timing));
    if (!this.hooked(context, 'bidder-request')) return this.call(asked, context, timing);
    const prepared = this.stage('bidder-request', { bidder: share.bidder, adapter: share.adapter, request: share.request }, context);
    return prepared instanceof Promise ? prepared.then((settled) => this.callPrepared(asked, settled, context, timing)) : this.callPrepared(asked, prepared, context, timing);
  }

  /** The call after the bidder-request hooks: none when one rejected it. */
  private callPrepared(asked: BidderAsked, prepared: StageOutcome<StagePayloads['bidder-request']>, context: RequestContext, timing: BidderTiming): Promise<SeatResult> {
    if (prepared.rejection) {
      asked.seat.errors.push(...rejectionErrors(context, asked.share.bidder, prepared.rejection.errors?.[asked.share.bidder]));
      return Promise.resolve(asked.seat);
    }
    // The share was made for this auction by the split: it is the auction's to update.
    asked.share.request = prepared.payload.request;
    return this.call(asked, context, timing);
  }

  private call(asked: BidderAsked, context: RequestContext, timing: BidderTiming): Promise<SeatResult> {
    const { share, entry } = asked;
    // Last, after the hooks: the bidder receives the request in the OpenRTB version it speaks. Prebid Server looks
    // the version up by the name the imp gives the bidder, exactly: a request alias, or a name spelled in another
    // case than the host's, has no bidder info of its own and is sent 2.5.
    if (entry.ortbVersion !== '2.6' || share.bidder !== share.adapter) share.request = convertDownTo25(share.request, context.namespace, timing.converted25);
    return callBidder(entry, share, this.deps.transport, timing.bidderDeadline, timing.call).then((called) => this.answered(asked, called, context, timing));
  }

  /** The bidder's answer read into its seat: stored bids, metrics, debug calls, the raw-bidder-response hooks, then the bids' adjustment and checks. */
  private answered(asked: BidderAsked, called: BidderCallResult, context: RequestContext, timing: BidderTiming): SeatResult | Promise<SeatResult> {
    const { share, entry, seat, stored } = asked;
    const { metrics } = this.deps;
    if (stored) readStoredAnswers(entry, share, stored, timing.call, called);
    context.observer?.bidsReceived(share.bidder, called.bids);
    for (const bid of called.bids) metrics.bidReceived(share.adapter, bid.type);
    if (called.errors.length > 0) seat.errors.push(...called.errors);
    if (called.failedCalls && !timing.abandoned) for (const failed of called.failedCalls) context.rejectImps(share.bidder, failed.impIds, failed.reason);
    if (timing.httpCalls) {
      // Prebid Server's bidder `debug.allow`: the override header shows every bidder's calls; the account's debug
      // only those of bidders that allow it, and says, for each call left out, that the bidder's debug is off.
      // A bidder that made no call has no entry (Prebid Server lists only bidders with calls).
      if (entry.debugAllow || context.debugOverride) {
        if (called.httpCalls.length > 0) timing.httpCalls.set(share.bidder, called.httpCalls);
      } else for (let i = 0; i < called.httpCalls.length; i++) context.warn(share.bidder, BIDDER_DEBUG_DISABLED);
    }
    seat.responseTimeMs = Math.round(context.now() - asked.started);
    if (!this.hooked(context, 'raw-bidder-response')) return this.finishSeat(asked, called.bids, called, context, timing);
    const payload: BidsPayload = { bidder: share.bidder, adapter: share.adapter, request: share.request, bids: called.bids, errors: seat.errors, exchanges: called.exchanges };
    const raw = this.stage('raw-bidder-response', payload, context);
    if (raw instanceof Promise) return raw.then((settled) => (settled.rejection ? seat : this.finishSeat(asked, settled.payload.bids, called, context, timing)));
    return raw.rejection ? seat : this.finishSeat(asked, raw.payload.bids, called, context, timing);
  }

  private finishSeat(asked: BidderAsked, bids: AuctionBid[], called: BidderCallResult, context: RequestContext, timing: BidderTiming): SeatResult {
    const { seat, share } = asked;
    if (bids.length > 0) this.deps.services['bid-adjustment'].adjust(bids, share, context);
    seat.bids = soundBids(bids, seat, context);
    checkBids(seat, share, timing.bidRules, this.deps.bidChecks, context);
    // After the raw-bidder-response hooks: a rejected answer loses its configs with its bids, as in Prebid Server.
    if (called.fledgeAuctionConfigs) seat.fledgeAuctionConfigs = called.fledgeAuctionConfigs;
    return seat;
  }

  private buildResponse(request: BidRequest, seats: SeatResult[], context: RequestContext, currency: string, facts: ResponseFacts): BidResponse {
    const { auctionStart, debugInfo } = facts;
    const ns = context.namespace;
    const { journal } = context;
    const seatbid: SeatBid[] = [];
    const bySeat = new Map<string, SeatBid>();
    let responseTimes: Record<string, number> | undefined;
    // Most auctions have no errors: the errors object is made only for the first one.
    let errors: Record<string, BidderError[]> | undefined = journal.errors && hasOwnKeys(journal.errors) ? { ...journal.errors } : undefined;
    const impPassthrough = passthroughByImp(request, ns);
    const echoedVideo = journal.echoedVideo;
    let fledge: FledgeResponseConfig[] | undefined;
    for (const seat of seats) {
      if (facts.asked) (responseTimes ??= {})[seat.bidder] = seat.responseTimeMs;
      if (seat.errors.length > 0) ((errors ??= {})[seat.bidder] ??= []).push(...seat.errors);
      if (seat.fledgeAuctionConfigs) (fledge ??= []).push(...seat.fledgeAuctionConfigs.map((config) => fledgeResponseConfig(config, seat.bidder)));
      for (const auctionBid of seat.bids) {
        const seatName = auctionBid.seat ?? seat.bidder;
        let group = bySeat.get(seatName);
        if (!group) {
          group = { seat: seatName, bid: [] };
          bySeat.set(seatName, group);
          seatbid.push(group);
        }
        const bid = responseBid(auctionBid, ns);
        const passthrough = impPassthrough?.get(auctionBid.bid.impid);
        if (passthrough !== undefined) (bid.ext as Record<string, Record<string, unknown>>)[ns].passthrough = passthrough;
        if (echoedVideo?.has(auctionBid.bid.impid)) (bid.ext as Record<string, unknown>).storedrequestattributes = echoedVideo.get(auctionBid.bid.impid);
        group.bid.push(bid);
      }
      if (seat.checkedSeats) {
        for (const seatName of seat.checkedSeats) {
          if (bySeat.has(seatName)) continue;
          const emptied: SeatBid = { seat: seatName, bid: [] };
          bySeat.set(seatName, emptied);
          seatbid.push(emptied);
        }
      }
    }
    // Prebid Server's `tmaxrequest` is the request's tmax (the host default when it has none), not the host's cap on
    // how long the auction waits. Its `responsetimemillis` is `omitempty` and times only the bidders asked: an
    // answer no bidder was asked for (every one screened out, or a stored auction answer) has none.
    const tmaxrequest = typeof request.tmax === 'number' && request.tmax > 0 ? request.tmax : context.tmax;
    const ext: Record<string, unknown> = responseTimes ? { responsetimemillis: responseTimes, tmaxrequest } : { tmaxrequest };
    let warnings = journal.warnings;
    // The auction's own errors and warnings (Prebid Server's errList, the `<ns>` scope) are written while its bidders
    // asked are: with none asked there are none, and with one, the errors list is there, if empty, beside the warnings.
    if (errors?.[ns] || warnings?.[ns]) {
      if (responseTimes) (errors ??= {})[ns] ??= [];
      else {
        errors = withoutScope(errors, ns);
        warnings = withoutScope(warnings, ns);
      }
    }
    if (errors) ext.errors = errors;
    if (warnings) ext.warnings = warnings;
    if (debugInfo) ext.debug = debugInfo;
    // When the auction started, as its event URLs say: Prebid Server's `ext.prebid.auctiontimestamp`, in every answer.
    const own: Record<string, unknown> = { auctiontimestamp: auctionStart };
    ext[ns] = own;
    // As Prebid Server's: a trace asked for where no hook ran has nothing to say, and no modules member.
    if (journal.trace && journal.trace.length > 0) own.modules = { trace: journal.trace };
    if ((journal.rejectedBids || journal.rejectedImps) && requestOption(request, 'returnallbidstatus') === true) {
      own.seatnonbid = seatNonBids(journal.rejectedBids ?? [], journal.rejectedImps ?? [], ns);
    }
    // The publisher's own data, handed back untouched (Prebid Server's ext.prebid.passthrough).
    const passthrough = requestOption(request, 'passthrough');
    if (passthrough !== undefined) own.passthrough = passthrough;
    // Collected apart from the seats: a bidder with configs and no bid has no seat in the response.
    if (fledge && fledge.length > 0) own.fledge = { auctionconfigs: fledge };
    // Prebid Server's `seatbid` is `omitempty`: an answer without a seat has none. (Its `cur` is too, but its own
    // fixtures state the auction's currency on such an answer, and so it stays.)
    return seatbid.length > 0 ? { id: String(request.id), seatbid, cur: currency, ext } : { id: String(request.id), cur: currency, ext };
  }
}

/** What the answer says besides the seats. */
interface ResponseFacts {
  /** When the auction started (epoch ms). */
  auctionStart: number;
  /** Whether bidders were asked (not a stored auction answer): only they are timed. */
  asked: boolean;
  debugInfo?: Record<string, unknown>;
}

/** One entry of `response.ext.<ns>.fledge.auctionconfigs`, Prebid Server's shape. */
interface FledgeResponseConfig {
  impid: string;
  bidder: string;
  adapter?: string;
  config: unknown;
}

function fledgeResponseConfig(config: FledgeAuctionConfig, bidder: string): FledgeResponseConfig {
  // Prebid Server's member order; an adapter that names itself is shown as `adapter`.
  return config.adapter ? { impid: config.impId, bidder, adapter: config.adapter, config: config.config } : { impid: config.impId, bidder, config: config.config };
}

/** Messages by scope without one scope's: undefined when none is left. */
function withoutScope<T>(messages: Record<string, T[]> | undefined, scope: string): Record<string, T[]> | undefined {
  if (!messages?.[scope]) return messages;
  const { [scope]: _left, ...rest } = messages;
  return hasOwnKeys(rest) ? rest : undefined;
}

/** `imp.ext.<ns>.passthrough` by imp id, for the bids of that imp; undefined when no imp has one (the usual case). */
function passthroughByImp(request: BidRequest, ns: Namespace): Map<string, unknown> | undefined {
  let byImp: Map<string, unknown> | undefined;
  for (const imp of request.imp) {
    const own = isJsonObject(imp.ext) ? imp.ext[ns] : undefined;
    if (isJsonObject(own) && own.passthrough !== undefined) (byImp ??= new Map()).set(imp.id, own.passthrough);
  }
  return byImp;
}

/**
 * The errors a hook gave for the bidder it rejected at bidder-request become the seat's own (so they count in the
 * bidder's metrics and appear once), else the seat gets a generic one.
 */
function rejectionErrors(context: RequestContext, bidder: string, reported: BidderError[] | undefined): BidderError[] {
  if (!reported || reported.length === 0) return [{ code: BidderErrorCode.BadInput, message: 'bidder request rejected by a module' }];
  const journalled = context.journal.errors?.[bidder];
  if (journalled) {
    const rest = journalled.filter((error) => !reported.includes(error));
    if (rest.length > 0) context.journal.errors![bidder] = rest;
    else delete context.journal.errors![bidder];
  }
  return reported;
}

/**
 * The request as debug output shows it (`ext.debug.resolvedrequest`): where Prebid Server's exchange writes it down,
 * after the processed-auction-request hooks (so with the floors they resolved) and with the host's identity in
 * `ext.<ns>.server`, before the request is split among the bidders.
 */
function resolvedRequestOf(request: BidRequest, namespace: Namespace, server: Record<string, unknown> | undefined): BidRequest {
  const resolved = structuredClone(request);
  if (!server) return resolved;
  const ext = isJsonObject(resolved.ext) ? resolved.ext : (resolved.ext = {});
  const own = isJsonObject(ext[namespace]) ? (ext[namespace] as Record<string, unknown>) : (ext[namespace] = {});
  own.server = server;
  return resolved;
}

/** What the host adds to every bidder's request: its schain node, and its identity when it declares one. */
function bidderRequestSettings(config: GavelConfig): BidderRequestSettings {
  const { externalUrl, gvlId, dataCenter } = config.server;
  // Written as Go writes its struct: all three members, a missing one at its zero value.
  const server = gvlId !== undefined || dataCenter !== undefined ? { externalurl: externalUrl, gvlid: gvlId ?? 0, datacenter: dataCenter ?? '' } : undefined;
  return { hostSchainNode: config.auction.hostSchainNode, server };
}

/**
 * The bid as the response carries it: the bidder's bid (owned by the auction, so edited in place) plus our ext. What
 * is in `ext.<ns>` by now was put there by the core or a module (the bidder's own was dropped on arrival).
 */
function responseBid(auctionBid: AuctionBid, ns: Namespace): AuctionBid['bid'] {
  const bid = auctionBid.bid;
  const bidExt = isJsonObject(bid.ext) ? bid.ext : {};
  const own = isJsonObject(bidExt[ns]) ? bidExt[ns] : {};
  own.type = auctionBid.type;
  own.meta = isJsonObject(own.meta) || auctionBid.meta ? { ...(own.meta as object | undefined), ...auctionBid.meta, adaptercode: auctionBid.adapter } : { adaptercode: auctionBid.adapter };
  if (hasOwnKeys(auctionBid.targeting)) own.targeting = auctionBid.targeting;
  if (auctionBid.video) own.video = { duration: auctionBid.video.duration ?? 0, primary_category: auctionBid.video.primaryCategory ?? '' };
  const cached = auctionBid.cache;
  // Prebid Server's shape: the bid's cache entry under `bids` (its VAST's when only that was cached), and `key` and
  // `url`, which it always writes, empty. The VAST's own entry is the targeting's `hb_uuid`; a bid without that key
  // (one that lost) carries it as `vastXml` (Prebid Server Java's field), where Prebid.js finds a video bid's
  // `vastUrl` when the targeting has none to build it from.
  if (cached) {
    own.cache = { key: '', url: '', ...(isJsonObject(own.cache) ? own.cache : undefined), bids: cached.bids ?? cached.vastXml };
    if (cached.vastXml && auctionBid.targeting.hb_uuid === undefined) (own.cache as Record<string, unknown>).vastXml = cached.vastXml;
  }
  if (auctionBid.generatedBidId !== undefined) own.bidid = auctionBid.generatedBidId;
  if (auctionBid.events) own.events = auctionBid.events;
  if (auctionBid.targetBidderCode !== undefined) own.targetbiddercode = auctionBid.targetBidderCode;
  if (auctionBid.dealPriority !== undefined && auctionBid.dealPriority > 0) own.dealpriority = auctionBid.dealPriority;
  if (auctionBid.dealTierSatisfied) own.dealtiersatisfied = true;
  bidExt[ns] = own;
  bidExt.origbidcpm = auctionBid.originalPrice;
  bidExt.origbidcur = auctionBid.originalCurrency;
  bid.ext = bidExt;
  return bid;
}
