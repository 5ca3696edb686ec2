/**
 * Event URLs (`GET /event`) as Prebid Server writes them, and the impression tracker it inserts into VAST: the
 * endpoint parses exactly what these produce.
 */
import { goQueryEscape } from '../api/index.js';

export type EventType = 'win' | 'imp' | 'vast';
/** `f`: `b` answers 204 (blank), `i` a 1x1 image. */
export type EventFormat = 'b' | 'i';
/** `vtype` of a `vast` event. */
export const VAST_EVENT_TYPES = ['start', 'firstQuartile', 'midPoint', 'thirdQuartile', 'complete'] as const;
export type VastEventType = (typeof VAST_EVENT_TYPES)[number];

/** One event, as a URL carries it and as the event consumers (analytics) receive it. */
export interface EventRequest {
  type: EventType;
  vtype?: VastEventType;
  /** The bid's id: the host's generated one (`ext.<ns>.bidid`) when there is one, else the bidder's. */
  bidId: string;
  accountId: string;
  bidder?: string;
  /** The auction's start, epoch ms. */
  timestamp?: number;
  format?: EventFormat;
  /** `x`: false when the event must not reach analytics (`x=0`). */
  analytics?: boolean;
  /** The integration (`ext.<ns>.integration`) the auction came from. */
  integration?: string;
}

/**
 * `<externalUrl>/event?t=<type>&b=<bid id>&a=<account>` then the optional parameters in Prebid Server's (sorted)
 * order: `bidder`, `f`, `int`, `ts`, `x`. As Prebid Server writes it (`EventRequestToUrl`): the bid id and account
 * are printed as they are, the optional parameters escaped as `url.Values` escapes them (goQueryEscape).
 */
export function eventUrl(externalUrl: string, event: EventRequest): string {
  let url = `${externalUrl.replace(/\/+$/, '')}/event?t=${event.type}&b=${event.bidId}&a=${event.accountId}`;
  if (event.bidder) url += `&bidder=${goQueryEscape(event.bidder)}`;
  if (event.format) url += `&f=${event.format}`;
  if (event.integration) url += `&int=${goQueryEscape(event.integration)}`;
  if (event.timestamp !== undefined && event.timestamp > 0) url += `&ts=${event.timestamp}`;
  if (event.analytics !== undefined) url += `&x=${event.analytics ? 1 : 0}`;
  return url;
}

const IMPRESSION_OPEN = '<Impression>';
const IMPRESSION_CLOSE = '</Impression>';

/**
 * The VAST with an impression tracker for `trackerUrl`: filled into the first `<Impression>` when it is empty, else
 * added as a new `<Impression>` right after the first one; a VAST with no `<Impression>` is left as it is (undefined).
 */
export function withImpressionTracker(vast: string, trackerUrl: string): string | undefined {
  const close = vast.indexOf(IMPRESSION_CLOSE);
  if (close === -1) return undefined;
  const cdata = `<![CDATA[${trackerUrl.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
  const open = vast.indexOf(IMPRESSION_OPEN);
  if (open !== -1 && close - open === IMPRESSION_OPEN.length) return vast.slice(0, close) + cdata + vast.slice(close);
  const after = close + IMPRESSION_CLOSE.length;
  return `${vast.slice(0, after)}${IMPRESSION_OPEN}${cdata}${IMPRESSION_CLOSE}${vast.slice(after)}`;
}
