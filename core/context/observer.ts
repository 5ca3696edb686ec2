import type { AuctionBid, BidderError } from '../api/index.js';
import type { AuctionOutcome } from '../auction/pipeline.js';
import type { HookTraceEntry } from './request-context.js';

/**
 * One HTTP exchange with a bidder's server: made when the call is sent, completed when it ends (a call the auction
 * stopped waiting for ends when the transport gives up on it, after the auction may have answered).
 */
export interface BidderCallFact {
  bidder: string;
  /** The host the call went to (never its path or query: those may carry publisher data). */
  host: string;
  /** Epoch ms, on the request's clock. */
  sentAt: number;
  /** Unset while the call is out. */
  answeredAt?: number;
  /** The HTTP status, when an answer came. */
  status?: number;
  /** Bytes of the answer's body. */
  bytes?: number;
  /** The first error this call produced (transport, status or the adapter's reading), if any. */
  error?: BidderError;
}

/** A hook's outcome, as the trace has it, with when it was applied. */
export interface HookFact extends Pick<HookTraceEntry, 'stage' | 'module' | 'hook' | 'status' | 'action'> {
  /** Epoch ms when the hook's group was applied, and how long the hook ran. */
  at: number;
  ms: number;
}

/**
 * Watches one request's auction in detail: for the debug log (a line per bidder call and per hook outcome) and for
 * the auction inspector (a sampled record). The request context carries one only when either wants this request,
 * so an auction nobody watches pays one undefined check per event.
 */
export interface AuctionObserver {
  /** The call's timing is taken only when the auction is watched: `now()` gives its clock. */
  now(): number;
  bidderCallSent(fact: BidderCallFact): void;
  /** The same fact, completed. */
  bidderCallEnded(fact: BidderCallFact): void;
  /** The auction stopped waiting for this bidder at its deadline. */
  bidderAbandoned(bidder: string, at: number): void;
  /** The bids a bidder's calls produced, before hooks, adjustment and validation: their prices as received. */
  bidsReceived(bidder: string, bids: readonly AuctionBid[]): void;
  hook(fact: HookFact): void;
  /** The auction's outcome: validation, the bids as adjusted, winners and targeting. Later calls may still end. */
  finished(outcome: AuctionOutcome): void;
}
