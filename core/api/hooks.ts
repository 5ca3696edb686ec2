import type { BidderError } from './errors.js';
import type { TypedBid } from './adapter.js';
import type { BidRequest, BidResponse } from './openrtb.js';
import type { JsonSchema, PluginLogger } from './common.js';

/** The closed, ordered list of hook stages. An unknown stage name anywhere in config is a boot error. */
export const STAGES = [
  'entrypoint',
  'raw-auction-request',
  'validate-request',
  'processed-auction-request',
  'split-imps',
  'bidder-request',
  'raw-bidder-response',
  'adjust-bids',
  'all-processed-bid-responses',
  'build-targeting',
  'cache-bids',
  'auction-response',
  'exitpoint',
] as const;
export type Stage = (typeof STAGES)[number];

/** Stages whose hooks may reject: the whole auction at request stages, one bidder or one response later on. */
export const REJECTING_STAGES: ReadonlySet<Stage> = new Set<Stage>([
  'entrypoint', 'raw-auction-request', 'validate-request', 'processed-auction-request', 'bidder-request', 'raw-bidder-response',
]);

export type EndpointName = 'auction' | 'amp' | 'video';

/** One bidder's share of the auction, as split-imps produces it. */
export interface BidderRequest {
  /** Name the bidder runs under (its seat), as the request spelled it: a bidder name or a request alias. */
  bidder: string;
  /** The host bidder that serves it (lower-case key of `ModuleDeps.bidders`); differs from `bidder` for aliases. */
  adapter: string;
  /** The request this bidder will see: only its imps, its params in `imp.ext.bidder`. */
  request: BidRequest;
}

/** A bid after it came back from a bidder, with the numbers the core keeps beside it. */
export interface AuctionBid extends TypedBid {
  bidder: string;
  adapter: string;
  /** Price in the bidder's currency before adjustment and conversion. */
  originalPrice: number;
  originalCurrency: string;
  /** Targeting keys set so far on this bid (build-targeting and cache-bids add to it). */
  targeting: Record<string, string>;
  /** Highest adjusted price of its imp across all bidders (ties: earlier bidder). Set before build-targeting. */
  winner: boolean;
  /** Highest adjusted price of its bidder in its imp. Set before build-targeting. */
  bidderBest: boolean;
}

export interface SeatResult {
  bidder: string;
  adapter: string;
  bids: AuctionBid[];
  errors: BidderError[];
  responseTimeMs: number;
}

export interface EntrypointPayload { method: string; path: string; headers: Record<string, string | string[] | undefined>; query: Record<string, string>; body: unknown }
export interface RequestPayload { request: BidRequest }
export interface SplitPayload { request: BidRequest; bidderRequests: BidderRequest[] }
export interface BidderRequestPayload { bidder: string; adapter: string; request: BidRequest }
export interface BidsPayload { bidder: string; request: BidRequest; bids: AuctionBid[] }
export interface AllBidsPayload { request: BidRequest; seats: SeatResult[] }
export interface AuctionResponsePayload { request: BidRequest; response: BidResponse }
export interface ExitpointPayload { status: number; headers: Record<string, string>; body: unknown }

export interface StagePayloads {
  'entrypoint': EntrypointPayload;
  'raw-auction-request': RequestPayload;
  'validate-request': RequestPayload;
  'processed-auction-request': RequestPayload;
  'split-imps': SplitPayload;
  'bidder-request': BidderRequestPayload;
  'raw-bidder-response': BidsPayload;
  'adjust-bids': BidsPayload;
  'all-processed-bid-responses': AllBidsPayload;
  'build-targeting': AllBidsPayload;
  'cache-bids': AllBidsPayload;
  'auction-response': AuctionResponsePayload;
  'exitpoint': ExitpointPayload;
}

export interface Warning { code: number; message: string }

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
  /** At validate-request: the request is invalid; each message becomes a line `Invalid request: <message>` of a 400. */
  invalid?: string[];
  /** Warnings for `response.ext.warnings` (keyed by bidder name or "general"). */
  warnings?: Record<string, Warning[]>;
  /** Errors for `response.ext.errors`, keyed by bidder name. */
  errors?: Record<string, BidderError[]>;
  /** Free-form lines for the verbose trace. */
  messages?: string[];
}

/** Per-request facts every hook can read. */
export interface HookContext {
  endpoint: EndpointName;
  /** The extension namespace the request used: `svc` or `prebid`. */
  namespace: 'svc' | 'prebid';
  /** Epoch milliseconds by which the auction must answer. */
  deadline: number;
  /** True when the request came over https. */
  secure: boolean;
  /** Scratch space private to the module, kept for the whole request. */
  moduleContext: Record<string, unknown>;
  logger: PluginLogger;
}

export type Hook<S extends Stage = Stage> = (
  payload: Readonly<StagePayloads[S]>,
  context: HookContext,
) => HookResult<StagePayloads[S]> | undefined | Promise<HookResult<StagePayloads[S]> | undefined>;

export type ModuleHooks = { [S in Stage]?: Record<string, Hook<S>> };

/** Services the core lends to modules. Plain objects: a module is tested with plain objects too. */
export interface ModuleDeps {
  logger: PluginLogger;
  /**
   * The bidders this host knows, keyed by lower-case name (adapters, configured bidders and config aliases):
   * the adapter whose code serves each, what it can bid on, and whether it is enabled.
   */
  bidders: ReadonlyMap<string, { adapter: string; capabilities: import('./adapter.js').Capabilities; enabled: boolean }>;
  /** Checks a bidder's params against its schema; returns error text or undefined. */
  validateBidderParams(bidder: string, params: unknown): string | undefined;
  /** Puts values in the bid cache; resolves to one uuid (or undefined on failure) per value. */
  cachePut(values: Array<{ type: 'json' | 'xml'; value: unknown; ttlseconds?: number }>, deadline: number): Promise<Array<string | undefined>>;
  /** The public address of the bid cache (for `hb_cache_host`/`hb_cache_path`), when configured. */
  cachePublicUrl?: { host: string; path: string; scheme?: string };
}

export interface ModuleManifest<C = Record<string, unknown>> {
  kind: 'module';
  /** `vendor.module`, e.g. `acme.floors`. */
  code: string;
  version: string;
  sdkVersion: string;
  description?: string;
  /** The stages the module's hooks run at; `create` must return hooks only for these. */
  stages: Stage[];
  configSchema?: JsonSchema;
  create(config: C, deps: ModuleDeps): ModuleHooks;
}

export function defineModule<C = Record<string, unknown>>(manifest: Omit<ModuleManifest<C>, 'kind'>): ModuleManifest<C> {
  return { kind: 'module', ...manifest };
}
