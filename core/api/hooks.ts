import type { BidderError } from './errors.js';
import type { Capabilities, FledgeAuctionConfig, TypedBid } from './adapter.js';
import type { BidRequest, BidResponse, MediaType } from './openrtb.js';
import type { JsonSchema, PluginLogger } from './common.js';
import type { AuctionContext, EntrypointContext, Warning } from './context.js';
import type { HookPointFactories } from './services.js';
import type { AnalyticsFactory } from './analytics.js';

/**
 * The closed, ordered list of hook stages, named as Prebid Server names them (its plans may spell them with `_`).
 * They run around the five hook-point services; an unknown stage name anywhere in config is a boot error.
 */
export const STAGES = [
  'entrypoint',
  'raw-auction-request',
  'processed-auction-request',
  'bidder-request',
  'raw-bidder-response',
  'all-processed-bid-responses',
  'auction-response',
  'exitpoint',
] as const;
export type Stage = (typeof STAGES)[number];

/** Stages whose hooks may reject: the whole auction at request stages, one bidder or one response later on. */
export const REJECTING_STAGES: ReadonlySet<Stage> = new Set<Stage>([
  'entrypoint', 'raw-auction-request', 'processed-auction-request', 'bidder-request', 'raw-bidder-response',
]);

/** One bidder's share of the auction, as the imp-splitting service produces it. */
export interface BidderRequest {
  /** Name the bidder runs under (its seat), as the request spelled it: a bidder name or a request alias. */
  bidder: string;
  /** The host bidder that serves it (lower-case key of `ModuleDeps.bidders`); differs from `bidder` for aliases. */
  adapter: string;
  /** The request this bidder will see: only its imps, its params in `imp.ext.bidder`, only what it may see. */
  request: BidRequest;
  /**
   * The whole auction's request, as split (read-only): where the auction's own options live (`ext.<ns>.targeting`,
   * `bidadjustmentfactors`...) that the bidder's `request` no longer carries. Set by the core after imp splitting.
   */
  auction?: BidRequest;
}

/** Where the bid cache put one of a bid's values. */
export interface CachedValue {
  cacheId: string;
  url?: string;
}

/** A bid after it came back from a bidder, with the numbers the core keeps beside it. */
export interface AuctionBid extends TypedBid {
  bidder: string;
  adapter: string;
  /** Price in the bidder's currency before adjustment and conversion. */
  originalPrice: number;
  originalCurrency: string;
  /** Targeting keys set so far on this bid (the targeting and bid-caching services add to it). */
  targeting: Record<string, string>;
  /** Highest adjusted price of its imp across all bidders (ties: earlier bidder). Set before targeting. */
  winner: boolean;
  /** Highest adjusted price of its bidder in its imp. Set before targeting. */
  bidderBest: boolean;
  /** What the bid-caching service stored for this bid: the bid as JSON, and its VAST. */
  cache?: { bids?: CachedValue; vastXml?: CachedValue };
  /**
   * The code a bidder's second, third... bid in an imp gets its `_<code>` targeting keys under, with multibid
   * (`ext.<ns>.multibid`): `<targetbiddercodeprefix><n>`; the bidder's best bid keeps its own name. Set, before
   * targeting, only for bidders whose multibid allows more than one bid, and shown as `ext.<ns>.targetbiddercode`.
   */
  targetBidderCode?: string;
  /** `<pb>_<category>_<duration>s` (`hb_pb_cat_dur`), when the request asks for brand categories or durations. */
  categoryDuration?: string;
  /**
   * The bid's deal priority reached its bidder's deal tier for the imp (`ext.<ns>.supportdeals`), shown as
   * `ext.<ns>.dealtiersatisfied`; its `hb_pb_cat_dur` then starts with the tier instead of the price bucket.
   */
  dealTierSatisfied?: boolean;
  /** An id the host made for this bid (`auction.generateBidId`), shown as `ext.<ns>.bidid` and used by events. */
  generatedBidId?: string;
  /** Win and impression event URLs (`ext.<ns>.events`), when the account or the request turns events on. */
  events?: { win: string; imp: string };
  /**
   * The media type the bidder's server named in the bid's `ext.prebid.type`, kept when the core takes that ext over.
   * Price granularity by media type goes by `mtype`, else this, as Prebid Server's does (not by `type`).
   */
  namedType?: MediaType;
}

export interface SeatResult {
  bidder: string;
  adapter: string;
  bids: AuctionBid[];
  errors: BidderError[];
  responseTimeMs: number;
  /** The bidder's Protected Audience auction configs (`MakeBidsResult.fledgeAuctionConfigs`), when it gave any. */
  fledgeAuctionConfigs?: FledgeAuctionConfig[];
  /**
   * Seats (seat codes) that lost a bid to the response checks (DSA, creative size, secure markup). The core sets it.
   * Prebid Server makes a seat's place in the response before those checks run, so such a seat is answered even when
   * no bid of it is left: `{"seat": ..., "bid": []}`.
   */
  checkedSeats?: string[];
}

export interface EntrypointPayload { method: string; path: string; headers: Record<string, string | string[] | undefined>; query: Record<string, string>; body: unknown }
export interface RequestPayload { request: BidRequest }
export interface BidderRequestPayload { bidder: string; adapter: string; request: BidRequest }
/** How one HTTP exchange with a bidder's server ended, as the transport saw it (not what the adapter made of it). */
export interface BidderExchange {
  /** The HTTP status, when the server answered. */
  status?: number;
  /** Why no answer was read: the transport's timeout, a network failure (refused, reset, DNS), or a body over the size limit. */
  failure?: 'timeout' | 'network' | 'too-large';
}

export interface BidsPayload {
  bidder: string;
  request: BidRequest;
  bids: AuctionBid[];
  /** The host bidder that served the call (lower-case key of `ModuleDeps.bidders`). The core always sets it. */
  adapter?: string;
  /** The errors of this bidder's call (timeouts, bad answers, adapter errors). The core always sets it. */
  errors?: readonly BidderError[];
  /** How each HTTP exchange of the call ended; empty when the adapter made no call. The core always sets it. */
  exchanges?: readonly BidderExchange[];
}
export interface AllBidsPayload { request: BidRequest; seats: SeatResult[] }
export interface AuctionResponsePayload { request: BidRequest; response: BidResponse }
export interface ExitpointPayload { status: number; headers: Record<string, string>; body: unknown }

export interface StagePayloads {
  'entrypoint': EntrypointPayload;
  'raw-auction-request': RequestPayload;
  'processed-auction-request': RequestPayload;
  'bidder-request': BidderRequestPayload;
  'raw-bidder-response': BidsPayload;
  'all-processed-bid-responses': AllBidsPayload;
  'auction-response': AuctionResponsePayload;
  'exitpoint': ExitpointPayload;
}

/**
 * What a hook returns. A hook never edits its payload in place: it returns `changes`, which the executor applies in
 * plan order once every hook of the group has answered (never in completion order).
 */
export interface HookResult<P> {
  action?: 'no-op' | 'update' | 'reject';
  /** Edits to apply to the payload. Each may edit it in place or return a replacement. */
  changes?: Array<(payload: P) => P | void>;
  /** OpenRTB no-bid reason for a reject at a request stage. */
  nbr?: number;
  /** Warnings for `response.ext.warnings` (keyed by bidder name or "general"). */
  warnings?: Record<string, Warning[]>;
  /** Errors for `response.ext.errors`, keyed by bidder name. */
  errors?: Record<string, BidderError[]>;
  /** Free-form lines for the verbose trace. */
  messages?: string[];
}

/** What the request context adds for one module: scratch space kept across its stages, and its account config. */
interface ModuleScope {
  /** Scratch space private to the module, kept for the whole request. */
  moduleContext: Record<string, unknown>;
  /** The module's settings in the request's account (`hooks.modules.<code>`), when the account has any. */
  accountConfig?: unknown;
}

/** What an entrypoint hook reads: the request is not merged yet, so there is no deadline or account. */
export type EntrypointHookContext = EntrypointContext & ModuleScope;
/** What every later hook reads: the request context, plus the module's own scope. */
export type HookContext = AuctionContext & ModuleScope;

export type ContextOf<S extends Stage> = S extends 'entrypoint' ? EntrypointHookContext : HookContext;

export type Hook<S extends Stage = Stage> = (
  payload: Readonly<StagePayloads[S]>,
  context: ContextOf<S>,
) => HookResult<StagePayloads[S]> | undefined | Promise<HookResult<StagePayloads[S]> | undefined>;

export type ModuleHooks = { [S in Stage]?: Record<string, Hook<S>> };

/** A counter a module records into the host's Prometheus metrics. */
export interface ModuleCounter {
  /** Adds `by` (default 1); a label value outside the declared ones is recorded as `other`. */
  inc(labels?: Readonly<Record<string, string>>, by?: number): void;
}

/** A gauge a module sets in the host's Prometheus metrics. */
export interface ModuleGauge {
  set(value: number, labels?: Readonly<Record<string, string>>): void;
}

/**
 * A metric a module declares at boot. The name must start with `gavel_`; each label lists the values it may take
 * (bounded, so no request can add a series): any other value is recorded as `other`.
 */
export interface ModuleMetricSpec {
  name: string;
  help: string;
  labels?: Readonly<Record<string, readonly string[]>>;
}

/** Metrics a module may declare; on a host with `admin.enabled: false` they record nothing. */
export interface ModuleMetrics {
  counter(spec: ModuleMetricSpec): ModuleCounter;
  gauge(spec: ModuleMetricSpec): ModuleGauge;
}

/** Services the core lends to modules. Plain objects: a module is tested with plain objects too. */
export interface ModuleDeps {
  logger: PluginLogger;
  /** Metrics the module declares and records (`gavel_` names, bounded labels); absent in plain test deps. */
  metrics?: ModuleMetrics;
  /**
   * The bidders this host knows, keyed by lower-case name (adapters, configured bidders and config aliases):
   * the adapter whose code serves each, what it can bid on, whether it is enabled, and whether it takes imps of
   * several media types at once (bidder info `openrtb.multiformat`; undefined means it does).
   */
  bidders: ReadonlyMap<string, { adapter: string; capabilities: Capabilities; enabled: boolean; multiformat?: boolean }>;
  /** Checks a bidder's params against its schema; returns error text or undefined. */
  validateBidderParams(bidder: string, params: unknown): string | undefined;
  /**
   * Puts values in the bid cache; resolves to one uuid (or undefined on failure) per value. Given the request's
   * context, a cache that is down or failing is reported in the answer's `ext.warnings.general`.
   */
  cachePut(
    values: Array<{ type: 'json' | 'xml'; value: unknown; ttlseconds?: number }>,
    deadline: number,
    context?: Pick<AuctionContext, 'warn'>,
  ): Promise<Array<string | undefined>>;
  /** The public address of the bid cache (for `hb_cache_host`/`hb_cache_path`), when configured. */
  cachePublicUrl?: { host: string; path: string; scheme?: string };
  /**
   * The host's brand-category mapping for a primary ad server (`video.categoryMappings`): IAB category -> the ad
   * server's category id, a publisher's own file first. Undefined when the host has none for it.
   */
  categoryMapping?(adServer: 'freewheel' | 'dfp', publisher?: string): ReadonlyMap<string, { id: string }> | undefined;
}

export interface ModuleManifest<C = Record<string, unknown>> {
  kind: 'module';
  /** `vendor.module`, e.g. `acme.floors`. */
  code: string;
  version: string;
  sdkVersion: string;
  description?: string;
  /** The stages the module's hooks run at; `create` must return hooks only for these. */
  stages?: Stage[];
  configSchema?: JsonSchema;
  /** Stage hooks, made once at boot. */
  create?(config: C, deps: ModuleDeps): ModuleHooks;
  /**
   * Hook-point services this module implements. The core's built-ins provide all five; a module that provides one
   * replaces the built-in for the whole host (two modules providing the same point stop boot).
   */
  provides?: HookPointFactories<C>;
  /**
   * An analytics reporter: receives every transaction (auction, AMP, video, cookie sync, setuid, `/event`) after
   * its answer was written, as far as the host's analytics gate lets it (docs/analytics.md). Any number of enabled
   * modules may report.
   */
  analytics?: AnalyticsFactory<C>;
  /**
   * The module runs unless the host switches it off (`modules.<code>.enabled: false`), as the built-ins do: for a
   * behaviour our specification makes the default (price floors a request carries). Other modules run only when
   * switched on.
   */
  enabledByDefault?: boolean;
}

export function defineModule<C = Record<string, unknown>>(manifest: Omit<ModuleManifest<C>, 'kind'>): ModuleManifest<C> {
  return { kind: 'module', ...manifest };
}
