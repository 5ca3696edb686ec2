import type { AuctionBid, BidRequest, PluginLogger } from '../api/index.js';
import type { EndpointRequest } from '../auction/endpoint-types.js';
import type { AuctionOutcome } from '../auction/pipeline.js';
import type { AuctionObserver, BidderCallFact, HookFact } from '../context/observer.js';
import type { RequestContext } from '../context/request-context.js';
import { boundedCopy, impRecords, privacySafeRequest, RECORD_LIMITS, tenths, type AuctionRecord, type BidRecord } from './record.js';
import type { InspectorStore } from './store.js';

/** What a watch needs of the host's settings: how the bidders' deadline derives from the request's. */
export interface WatchSettings {
  networkBufferMs: number;
  responsePrepMs: number;
}

/** A level-aware logger: pino's `isLevelEnabled`, asked once per request. */
export interface LevelledLogger {
  isLevelEnabled(level: string): boolean;
}

/**
 * One watched auction: writes the debug log's lines as things happen (each bidder call, each abandoned bidder,
 * each hook outcome, on the request's logger, so each line carries the request's id) and, when the inspector
 * sampled the request, builds its record, handed to the store when the auction's outcome is known. A call the
 * auction stopped waiting for still reports its end to the record, which is how the inspector draws it past the
 * deadline.
 */
class AuctionWatch implements AuctionObserver {
  private readonly calls: BidderCallFact[] = [];
  private readonly hooks: HookFact[] = [];
  private readonly abandoned: Record<string, number> = {};
  /** Received bids by object, to find them again among the auction's final bids. */
  private received: Map<AuctionBid, BidRecord> | undefined;

  constructor(
    private readonly context: RequestContext,
    private readonly log: PluginLogger | undefined,
    private readonly recording: { id: string; store: InspectorStore; replay: boolean; settings: WatchSettings } | undefined,
  ) {
    if (recording) this.received = new Map();
  }

  now(): number {
    return this.context.now();
  }

  bidderCallSent(fact: BidderCallFact): void {
    if (this.recording && this.calls.length < RECORD_LIMITS.calls) this.calls.push(fact);
  }

  bidderCallEnded(fact: BidderCallFact): void {
    this.log?.debug(
      {
        bidder: fact.bidder,
        host: fact.host,
        status: fact.status,
        durationMs: tenths((fact.answeredAt ?? fact.sentAt) - fact.sentAt),
        bytes: fact.bytes,
        errorCode: fact.error?.code,
        error: fact.error?.message,
      },
      'bidder call',
    );
  }

  bidderAbandoned(bidder: string, at: number): void {
    this.log?.debug({ bidder, status: 'timeout', waitedMs: tenths(at - this.context.receivedAt), errorCode: 1 }, 'bidder call abandoned at the deadline');
    if (this.recording) this.abandoned[bidder] = at;
  }

  bidsReceived(bidder: string, bids: readonly AuctionBid[]): void {
    const received = this.received;
    if (!received) return;
    for (const bid of bids) {
      if (received.size >= RECORD_LIMITS.bids) return;
      received.set(bid, {
        bidder,
        seat: bid.seat ?? bidder,
        impId: String(bid.bid.impid ?? ''),
        bidId: String(bid.bid.id ?? ''),
        originalPrice: bid.originalPrice,
        originalCurrency: bid.originalCurrency,
        receivedPrice: bid.bid.price,
        kept: false,
        winner: false,
        bidderBest: false,
        targeting: {},
      });
    }
  }

  hook(fact: HookFact): void {
    this.log?.debug({ stage: fact.stage, module: fact.module, hook: fact.hook, status: fact.status, action: fact.action, durationMs: tenths(fact.ms) }, 'hook outcome');
    if (this.recording && this.hooks.length < RECORD_LIMITS.hooks) this.hooks.push(fact);
  }

  finished(outcome: AuctionOutcome): void {
    if (!this.recording) return;
    const { context } = this;
    const { id, store, replay, settings } = this.recording;
    const request = outcome.kind === 'completed' ? outcome.request : undefined;
    const record: AuctionRecord = {
      id,
      auctionId: request ? String(request.id ?? '') : outcome.kind === 'rejected' ? String(outcome.response.id ?? '') : '',
      endpoint: context.endpoint,
      account: context.accountId,
      receivedAt: context.receivedAt,
      tmax: context.tmax,
      deadline: context.deadline,
      bidderDeadline: context.deadline - settings.networkBufferMs - settings.responsePrepMs,
      finishedAt: context.now(),
      outcome: outcome.kind,
      validation: { valid: outcome.kind !== 'invalid', messages: outcome.kind === 'invalid' ? outcome.messages : [] },
      currency: outcome.kind === 'completed' ? String(outcome.response.cur ?? '') : '',
      test: context.debug,
      replay,
      imps: request ? impRecords(request) : [],
      hooks: this.hooks,
      calls: this.calls,
      abandoned: this.abandoned,
      bidders: [],
      bids: [],
    };
    if (context.requestId) record.requestId = context.requestId;
    if (outcome.kind === 'rejected' && outcome.response.nbr !== undefined) record.nbr = outcome.response.nbr;
    if (request) record.request = boundedCopy(privacySafeRequest(request as BidRequest), RECORD_LIMITS.requestBytes);
    if (outcome.kind === 'completed') this.recordSeats(record, outcome.seats);
    this.received = undefined;
    store.add(record);
  }

  /** Each bidder's time and errors, and each bid as received and as the auction left it. */
  private recordSeats(record: AuctionRecord, seats: Extract<AuctionOutcome, { kind: 'completed' }>['seats']): void {
    const received = this.received ?? new Map<AuctionBid, BidRecord>();
    const made: BidRecord[] = [];
    for (const seat of seats) {
      record.bidders.push({ bidder: seat.bidder, responseTimeMs: seat.responseTimeMs, errors: seat.errors.slice(0, 20) });
      for (const bid of seat.bids) {
        let entry = received.get(bid);
        if (!entry) {
          // A bid a hook put in place of the bidder's own: nothing was received under this object.
          entry = { bidder: seat.bidder, seat: bid.seat ?? seat.bidder, impId: String(bid.bid.impid ?? ''), bidId: String(bid.bid.id ?? ''), originalPrice: bid.originalPrice, originalCurrency: bid.originalCurrency, kept: false, winner: false, bidderBest: false, targeting: {} };
          made.push(entry);
        }
        entry.kept = true;
        entry.price = bid.bid.price;
        entry.winner = bid.winner;
        entry.bidderBest = bid.bidderBest;
        entry.targeting = { ...bid.targeting };
        if (typeof bid.bid.dealid === 'string') entry.dealId = bid.bid.dealid;
      }
    }
    record.bids = [...received.values(), ...made].slice(0, RECORD_LIMITS.bids);
  }
}

/**
 * Decides, once per request, whether anything watches its auction: the debug log (when `debug` is enabled, asked
 * of the logger each time, so a level changed at run time applies) and the inspector (its sample, or a replay).
 * A request nobody watches gets no observer at all.
 */
export class AuctionWatchers {
  constructor(
    private readonly logger: LevelledLogger,
    private readonly store: InspectorStore | undefined,
    private readonly settings: WatchSettings,
  ) {}

  begin(context: RequestContext, input: EndpointRequest): AuctionObserver | undefined {
    const debug = this.logger.isLevelEnabled('debug');
    const id = this.store?.admit(input);
    if (!debug && id === undefined) return undefined;
    const recording = id === undefined ? undefined : { id, store: this.store!, replay: this.store!.isReplay(input), settings: this.settings };
    // The request's logger: the edge made it, and its lines carry the request's id.
    return new AuctionWatch(context, debug ? context.logger : undefined, recording);
  }
}
