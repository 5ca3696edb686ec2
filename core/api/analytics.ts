import type { AccountSettings, EndpointName, PrivacySignals } from './context.js';
import type { ModuleDeps } from './hooks.js';
import type { BidRequest } from './openrtb.js';

/**
 * What analytics modules receive: one record per transaction, handed over after the answer was written, off the
 * request's path (Prebid Server's `analytics.Module` objects: AuctionObject, AmpObject, VideoObject, CookieSyncObject,
 * SetUIDObject, NotificationEvent). Records are shared by every module and must be treated as read-only.
 */
export type AnalyticsRecord = AuctionRecord | CookieSyncRecord | SetuidRecord | NotificationRecord;

interface RecordBase {
  /** When the request arrived (epoch ms). */
  receivedAt: number;
  /** The request's id (`X-Request-Id`). */
  requestId?: string;
  /** The publisher account, when the transaction named one. */
  accountId?: string;
}

/** An auction, AMP or video transaction. */
export interface AuctionRecord extends RecordBase {
  type: EndpointName;
  /** The HTTP status answered. */
  status: number;
  /** The request as auctioned (stored data merged, account defaults applied); absent when refused before that. */
  request?: BidRequest;
  /** The body answered: the OpenRTB BidResponse, the AMP targeting answer, the video pods (objects, even where the endpoint wrote JSON text), or the error text. */
  response: unknown;
  /** The account's settings, when it was loaded. */
  account?: AccountSettings;
  /** The request's consent signals as the request context read them. */
  privacy?: PrivacySignals;
}

/** A `POST /cookie_sync`. */
export interface CookieSyncRecord extends RecordBase {
  type: 'cookie-sync';
  status: number;
  /** The request body (its `gdpr`, `gdpr_consent`, `us_privacy`, `gpp` are the privacy signals). */
  request?: Record<string, unknown>;
  /** The body answered: `{status, bidder_status}` or the error text. */
  response: unknown;
}

/** A `GET /setuid`. */
export interface SetuidRecord extends RecordBase {
  type: 'setuid';
  status: number;
  bidder?: string;
  uid?: string;
  /** The query's privacy signals (`gdpr`, `gdpr_consent`, `gpp`, `gpp_sid`), as sent. */
  query: Readonly<Record<string, string>>;
}

/** An event `GET /event` accepted (win, impression, VAST). */
export interface NotificationRecord extends RecordBase {
  type: 'event';
  event: {
    type: 'win' | 'imp' | 'vast';
    vtype?: string;
    bidId: string;
    accountId: string;
    bidder?: string;
    timestamp?: number;
    format?: string;
    integration?: string;
  };
  account: AccountSettings;
}

/** An analytics module's sink. `report` must not throw or block: it runs on the event loop the auctions share. */
export interface AnalyticsReporter {
  report(record: AnalyticsRecord): void;
  /** Sends or writes what is still held; called once on shutdown, bounded by the host's drain time. */
  close?(): Promise<void>;
}

/** Makes a module's reporter, once at boot, from its validated config. */
export type AnalyticsFactory<C = Record<string, unknown>> = (config: C, deps: ModuleDeps) => AnalyticsReporter;
