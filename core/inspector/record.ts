import { impMediaTypes, isJsonObject, type BidderError, type BidRequest } from '../api/index.js';
import type { BidderCallFact, HookFact } from '../context/observer.js';

/** A bid as the inspector shows it: as received, then as the auction left it. */
export interface BidRecord {
  bidder: string;
  seat: string;
  impId: string;
  bidId: string;
  /** The bidder's own price and currency. */
  originalPrice: number;
  originalCurrency: string;
  /** In the auction's currency, as received (before hooks and adjustment); absent for a bid a hook made. */
  receivedPrice?: number;
  /** After hooks and adjustment; absent when the bid was dropped (a hook, validation, an unusable price). */
  price?: number;
  kept: boolean;
  winner: boolean;
  bidderBest: boolean;
  dealId?: string;
  targeting: Record<string, string>;
}

export interface ImpRecord {
  id: string;
  media: string[];
  floor?: number;
  floorCurrency?: string;
  /** The bidders the imp names (its `ext` keys, params left out). */
  bidders: string[];
}

/**
 * One auction as the inspector keeps it. Privacy-safe by construction: the request is kept only as `privacySafeRequest`
 * leaves it (no user ids, no IPs, no device ids, no precise location, pages without their query), bidder calls only
 * by host, and nothing of the HTTP exchange (no cookies, no headers).
 */
export interface AuctionRecord {
  /** The inspector's own id for the record. */
  id: string;
  /** The request's `X-Request-Id`, when it has one. */
  requestId?: string;
  /** The request's own `id`. */
  auctionId: string;
  endpoint: string;
  account: string;
  /** Epoch ms: arrival, the request's deadline, the moment Gavel stops waiting for bidders, and the outcome. */
  receivedAt: number;
  tmax: number;
  deadline: number;
  bidderDeadline: number;
  finishedAt?: number;
  outcome: 'completed' | 'invalid' | 'rejected' | 'failed';
  /** Request validation: the 400 lines of an invalid request. */
  validation: { valid: boolean; messages: string[] };
  /** The no-bid reason a rejecting hook gave. */
  nbr?: number;
  currency: string;
  test: boolean;
  replay: boolean;
  imps: ImpRecord[];
  hooks: HookFact[];
  calls: BidderCallFact[];
  /** Bidders the auction stopped waiting for, with when. */
  abandoned: Record<string, number>;
  bidders: Array<{ bidder: string; responseTimeMs: number; errors: BidderError[] }>;
  bids: BidRecord[];
  /** The request as kept for display and replay (see `privacySafeRequest`); absent when it was too large. */
  request?: Record<string, unknown>;
}

/** Milliseconds to a tenth, as the inspector and the debug log show them. */
export function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Bounds per record, so a huge auction costs the store no more than a few tens of KB. */
export const RECORD_LIMITS = { hooks: 200, calls: 100, bids: 300, requestBytes: 32 * 1024 } as const;

const DEVICE_IDS = ['ip', 'ipv6', 'ifa', 'dpidsha1', 'dpidmd5', 'didsha1', 'didmd5', 'macsha1', 'macmd5'];

function withoutQuery(url: unknown): unknown {
  if (typeof url !== 'string') return url;
  const cut = url.search(/[?#]/);
  return cut < 0 ? url : url.slice(0, cut);
}

/** Only what locates a request to a country or region. */
function coarseGeo(geo: unknown): Record<string, unknown> | undefined {
  if (!isJsonObject(geo)) return undefined;
  const kept: Record<string, unknown> = {};
  if (geo.country !== undefined) kept.country = geo.country;
  if (geo.region !== undefined) kept.region = geo.region;
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * The request without anything that identifies a person: no `user` but its consent string, no device ids or IP
 * addresses, no location finer than a region, `site.page` / `site.ref` without their query or fragment. What is
 * left is what a host needs to see and replay an auction: imps and their params, floors, the publisher, the
 * channel, regulations, options.
 */
export function privacySafeRequest(request: BidRequest): Record<string, unknown> {
  const safe: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  const user = request.user;
  if (isJsonObject(user)) {
    const consent = isJsonObject(user.ext) ? user.ext.consent : undefined;
    if (consent !== undefined || user.consent !== undefined) safe.user = user.consent !== undefined ? { consent: user.consent } : { ext: { consent } };
    else delete safe.user;
  }
  if (isJsonObject(request.device)) {
    const device: Record<string, unknown> = { ...request.device };
    for (const field of DEVICE_IDS) delete device[field];
    const geo = coarseGeo(device.geo);
    if (geo) device.geo = geo;
    else delete device.geo;
    if (isJsonObject(device.ext)) {
      const { ifa_type: _type, ...ext } = device.ext;
      device.ext = ext;
    }
    safe.device = device;
  }
  if (isJsonObject(request.site)) {
    const site: Record<string, unknown> = { ...request.site };
    if (site.page !== undefined) site.page = withoutQuery(site.page);
    if (site.ref !== undefined) site.ref = withoutQuery(site.ref);
    safe.site = site;
  }
  return safe;
}

/** Each imp's media types, floor and the bidders it names. */
export function impRecords(request: BidRequest): ImpRecord[] {
  const imps = Array.isArray(request.imp) ? request.imp : [];
  return imps.slice(0, 50).map((imp) => {
    const record: ImpRecord = { id: String(imp.id ?? ''), media: impMediaTypes(imp), bidders: [] };
    if (typeof imp.bidfloor === 'number') {
      record.floor = imp.bidfloor;
      record.floorCurrency = typeof imp.bidfloorcur === 'string' ? imp.bidfloorcur : 'USD';
    }
    if (isJsonObject(imp.ext)) {
      const ext = imp.ext;
      const named = isJsonObject(ext.prebid) && isJsonObject(ext.prebid.bidder) ? ext.prebid.bidder : isJsonObject(ext.svc) && isJsonObject(ext.svc.bidder) ? ext.svc.bidder : ext;
      record.bidders = Object.keys(named).filter((key) => !['prebid', 'svc', 'data', 'context', 'skadn', 'gpid', 'tid', 'ae', 'all', 'general', 'bidder'].includes(key));
    }
    return record;
  });
}

/** The JSON text of a value if it fits in `limit` bytes; undefined when it does not. */
export function boundedCopy(value: Record<string, unknown>, limit: number): Record<string, unknown> | undefined {
  const text = JSON.stringify(value);
  return Buffer.byteLength(text) <= limit ? (JSON.parse(text) as Record<string, unknown>) : undefined;
}
