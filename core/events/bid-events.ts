import { isJsonObject, vastWrapper, type AuctionBid, type AuctionContext, type BidRequest } from '../api/index.js';
import { eventUrl, withImpressionTracker, type EventRequest } from './event-urls.js';

/** What an auction's event URLs carry; undefined when neither the account nor the request turns events on. */
export interface EventTracking {
  externalUrl: string;
  accountId: string;
  /** The auction's start (epoch ms): the `ts` of its events. */
  timestamp: number;
  integration?: string;
}

/**
 * Events are on for an auction when its account enables them (`events.enabled`) or the request asks for them
 * (`ext.<ns>.events`, any object, even empty), as Prebid Server decides.
 */
export function eventTrackingFor(request: BidRequest, context: AuctionContext, externalUrl: string, timestamp: number): EventTracking | undefined {
  const options = request.ext?.[context.namespace];
  const requested = isJsonObject(options) && options.events !== undefined && options.events !== null;
  const account = context.account.events;
  if (!requested && !(isJsonObject(account) && account.enabled === true)) return undefined;
  const integration = isJsonObject(options) && typeof options.integration === 'string' && options.integration !== '' ? options.integration : undefined;
  return { externalUrl, accountId: context.accountId, timestamp, integration };
}

function eventOf(tracking: EventTracking, type: EventRequest['type'], bid: AuctionBid, format?: EventRequest['format']): EventRequest {
  return {
    type,
    bidId: bid.generatedBidId ?? bid.bid.id,
    accountId: tracking.accountId,
    bidder: bid.seat ?? bid.bidder,
    timestamp: tracking.timestamp,
    format,
    integration: tracking.integration,
  };
}

/**
 * Adds event tracking to one bid, as Prebid Server does: a video bid of a bidder that allows it gets an impression
 * tracker in its VAST (its `adm`, or a wrapper around its `nurl`), so the VAST served and cached reports the
 * impression; any other bid gets `ext.<ns>.events` with its win and impression URLs.
 */
export function trackBid(bid: AuctionBid, tracking: EventTracking, vastModifiable: boolean): void {
  if (bid.type !== 'video') {
    bid.events = { win: eventUrl(tracking.externalUrl, eventOf(tracking, 'win', bid)), imp: eventUrl(tracking.externalUrl, eventOf(tracking, 'imp', bid)) };
    return;
  }
  if (!vastModifiable) return;
  const { adm, nurl } = bid.bid;
  const vast = typeof adm === 'string' && adm !== '' ? adm : typeof nurl === 'string' && nurl !== '' ? vastWrapper(nurl) : undefined;
  if (vast === undefined) return;
  const tracked = withImpressionTracker(vast, eventUrl(tracking.externalUrl, eventOf(tracking, 'imp', bid, 'b')));
  if (tracked !== undefined) bid.bid.adm = tracked;
}
