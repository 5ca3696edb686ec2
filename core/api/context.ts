import type { BidderError } from './errors.js';
import type { PluginLogger } from './common.js';
import type { AuctionBid } from './hooks.js';

/** The extension namespace a request speaks: Gavel's own `ext.svc`, or Prebid Server's `ext.prebid`. */
export type Namespace = 'svc' | 'prebid';

/** The endpoints that run an auction. */
export type EndpointName = 'auction' | 'amp' | 'video';

/** How much of the module trace a request asked for (`ext.<ns>.trace`). */
export type TraceLevel = 'basic' | 'verbose';

export interface Warning { code: number; message: string }

/** What a module asks the activity controls about (`privacy.allowactivities`). */
export type PrivacyActivity = 'syncUser' | 'fetchBids' | 'enrichUfpd' | 'reportAnalytics' | 'transmitUfpd' | 'transmitPreciseGeo' | 'transmitEids' | 'transmitTids' | 'transmitUniqueRequestIds';

/**
 * Consent and privacy signals, read once per request by the privacy service (core/privacy) into the request
 * context; every bidder's request is built from them. Before an auction's signals are read, none is set. Modules
 * ask `allows` before what an activity control governs (an analytics adapter: `reportAnalytics`; a real-time-data
 * module: `enrichUfpd`).
 */
export interface PrivacySignals {
  /** GDPR applies and is enforced for this request. */
  readonly gdprApplies?: boolean;
  /** The TCF v2 consent string read (GPP's TCF EU section first). */
  readonly consent?: string;
  /** The US privacy string read. */
  readonly usPrivacy?: string;
  readonly coppa?: boolean;
  readonly lmt?: boolean;
  /** `regs.gpp_sid`. */
  readonly gppSid?: readonly number[];
  /** The activity controls' verdict for a component (`type`: bidder, analytics, rtd, general). */
  allows?(activity: PrivacyActivity, component: { type: 'bidder' | 'analytics' | 'rtd' | 'general' | 'userid'; name: string }): boolean;
  [signal: string]: unknown;
}

/** Whether a policy applies per channel (`gdpr.channel_enabled`, `ccpa.channel_enabled`). */
export interface AccountChannels {
  amp?: boolean;
  app?: boolean;
  video?: boolean;
  web?: boolean;
  dooh?: boolean;
}

/** One TCF purpose's enforcement for an account (`gdpr.purpose1` ... `purpose10`). */
export interface AccountGdprPurpose {
  enforce_algo?: 'basic' | 'full';
  enforce_purpose?: boolean;
  enforce_vendors?: boolean;
  vendor_exceptions?: string[];
}

/** Creative checks: skip, enforce (drop the bid) or warn. */
export type ValidationMode = 'skip' | 'enforce' | 'warn';

/** Bid validations (`validations`; `bid_validations` is read as the same). */
export interface AccountBidValidations {
  banner_creative_max_size?: ValidationMode;
  secure_markup?: ValidationMode;
  max_creative_width?: number;
  max_creative_height?: number;
}

/** A price granularity: a legacy name (`med`, `dense`...) or `{precision, ranges: [{max, increment}]}`. */
export type AccountPriceGranularity = string | { precision?: number; ranges: Array<{ min?: number; max: number; increment: number }> };

/**
 * An account's settings as the request context carries them: Prebid Server's account JSON (`config/account.go`),
 * host defaults (`accounts.defaults`) merged under the stored account, checked by a schema when loaded. The core
 * reads `disabled`, `debug_allow`, `hooks`, `price_granularity`, `targeting`, `bidadjustmentfactors` and `cache_ttl`;
 * the privacy, floors, events and publisher-settings features read their own sections from here. Keys Prebid
 * Server does not know (and Gavel does not read) are kept as they are.
 */
export interface AccountSettings {
  id: string;
  disabled?: boolean;
  /** Seconds a cached bid lives, per media type, when neither the imp nor the bid says (`exp`). */
  cache_ttl?: { banner?: number; video?: number; native?: number; audio?: number };
  ccpa?: { enabled?: boolean; channel_enabled?: AccountChannels };
  gdpr?: {
    enabled?: boolean;
    channel_enabled?: AccountChannels;
    basic_enforcement_vendors?: string[];
    purpose1?: AccountGdprPurpose;
    purpose2?: AccountGdprPurpose;
    purpose3?: AccountGdprPurpose;
    purpose4?: AccountGdprPurpose;
    purpose5?: AccountGdprPurpose;
    purpose6?: AccountGdprPurpose;
    purpose7?: AccountGdprPurpose;
    purpose8?: AccountGdprPurpose;
    purpose9?: AccountGdprPurpose;
    purpose10?: AccountGdprPurpose;
    purpose_one_treatment?: { enabled?: boolean; access_allowed?: boolean };
    special_feature1?: { enforce?: boolean; vendor_exceptions?: string[] };
    /** ISO 3166 alpha-3 countries where GDPR applies for this account (`device.geo.country`). */
    eea_countries?: string[];
  };
  /** Whether requests of this account may ask for debug output (`test: 1`, `ext.<ns>.debug`). */
  debug_allow?: boolean;
  /** Whether debug output may also answer a request another site's page sent with the visitor's cookies (default false). */
  debug_allow_cross_origin?: boolean;
  default_integration?: string;
  cookie_sync?: {
    default_limit?: number;
    max_limit?: number;
    default_coop_sync?: boolean;
    priority_groups?: string[][];
    priority_groups_only?: boolean;
    disabled_iframe_bidders?: string[];
  };
  events?: { enabled?: boolean };
  /** Analytics per account: `modules.<code>.enabled: false` keeps that analytics module from its transactions (Prebid Server Java's section). */
  analytics?: { modules?: Record<string, { enabled?: boolean; [setting: string]: unknown }>; [setting: string]: unknown };
  truncate_target_attr?: number;
  alternatebiddercodes?: { enabled?: boolean; bidders?: Record<string, { enabled?: boolean; allowedbiddercodes?: string[] }> };
  hooks?: { modules?: Record<string, Record<string, unknown>>; execution_plan?: Record<string, unknown> };
  price_floors?: {
    enabled?: boolean;
    enforce_floors_rate?: number;
    adjust_for_bid_adjustment?: boolean;
    enforce_deal_floors?: boolean;
    use_dynamic_data?: boolean;
    max_rules?: number;
    max_schema_dims?: number;
    fetch?: Record<string, unknown>;
  };
  validations?: AccountBidValidations;
  default_bid_limit?: number;
  /** Bid adjustment rules in Prebid Server's `ext.prebid.bidadjustments` shape, merged under the request's. */
  bidadjustments?: Record<string, unknown>;
  bid_rounding?: 'down' | 'true' | 'timesplit' | 'up';
  privacy?: {
    /** Activity controls (`transmitUfpd`, `fetchBids`, ...: `{default, rules: [{allow, condition}]}`). */
    allowactivities?: Record<string, { default?: boolean; rules?: Array<Record<string, unknown>> }>;
    dsa?: { default?: string; gdpr_only?: boolean };
    ipv6?: { anon_keep_bits?: number };
    ipv4?: { anon_keep_bits?: number };
    /** Prebid Server's privacy sandbox: the Topics header's domain in `user.data`, and the cookie deprecation label. */
    privacysandbox?: { topicsdomain?: string; cookiedeprecation?: { enabled?: boolean; ttl_sec?: number } };
  };
  preferredmediatype?: Record<string, string>;
  targeting_prefix?: string;
  /** Gavel: the price granularity of requests that ask for targeting without one. */
  price_granularity?: AccountPriceGranularity;
  /** Gavel: targeting options (`includewinners`, `includebidderkeys`...) a request's own `targeting` is merged over. */
  targeting?: Record<string, unknown>;
  /** Gavel: default bid adjustment factors per bidder, under the request's `bidadjustmentfactors`. */
  bidadjustmentfactors?: Record<string, number>;
  [setting: string]: unknown;
}

/** What is known of a request before its stored data is merged: what entrypoint hooks see. */
export interface EntrypointContext {
  readonly endpoint: EndpointName;
  /** Epoch milliseconds when the HTTP request arrived: tmax counts from here. */
  readonly receivedAt: number;
  /** Came over TLS, or through a proxy that says so. */
  readonly secure: boolean;
  /** The request's id: its `X-Request-Id` (sent, or made at arrival), echoed in the answer and in its log lines. */
  readonly requestId: string;
  /** Writes lines that carry the request's id. */
  readonly logger: PluginLogger;
  /** Epoch milliseconds now, on the service's clock (replaceable in tests). */
  now(): number;
}

/**
 * The one request context: built once per request, after stored data is merged, by the function every auction
 * endpoint shares. Every deadline of the request (bidders, hooks, cache puts) derives from `deadline` here.
 */
export interface AuctionContext extends EntrypointContext {
  readonly namespace: Namespace;
  /** The effective tmax in ms: the merged request's (or the host default), capped by the host maximum. */
  readonly tmax: number;
  /** Epoch milliseconds by which the answer must be written: `receivedAt + tmax`. */
  readonly deadline: number;
  /** The publisher account the request belongs to; `unknown` when it names none (Prebid Server's unknown publisher). */
  readonly accountId: string;
  /** The account's settings, host defaults merged under them. */
  readonly account: Readonly<AccountSettings>;
  /** Debug output asked for and allowed (`test: 1` or `ext.<ns>.debug`). */
  readonly debug: boolean;
  readonly trace: TraceLevel | undefined;
  /** Consent signals, read once by the privacy service. */
  readonly privacy: PrivacySignals;
  /** Records a warning for `response.ext.warnings.<scope>` (`general` or a bidder name). */
  warn(scope: string, warning: Warning): void;
  /** Records an error for `response.ext.errors.<bidder>`. */
  fail(bidder: string, error: BidderError): void;
  /**
   * The auction currency (the request's `cur[0]`, else the host's), in which every bid price is once bidders have
   * answered. Known from the processed-auction-request stage on; the host's currency before.
   */
  readonly currency: string;
  /**
   * Converts an amount with the auction's rates (the host's, and the request's own `ext.<ns>.currency.rates`); same
   * currency is identity; undefined when no rate is known. Uses the request's rates from the processed-auction-request
   * stage on, the host's before.
   */
  convertCurrency(amount: number, from: string, to: string): number | undefined;
  /**
   * Records that a bid the bidder returned is left out of the answer, and why (`NonBidReason`): it appears in
   * `response.ext.<ns>.seatnonbid` when the request asks for every bid's status (`returnallbidstatus`), and in
   * analytics. With `error`, the reason is also reported under `response.ext.errors.<scope>`: the bid's bidder unless
   * `scope` names another (the bid's seat, for the checks Prebid Server runs on the response's seats). The caller
   * removes the bid itself.
   */
  rejectBid(bid: AuctionBid, reason: number, error?: BidderError, scope?: string): void;
}
