import type { BidderError } from './errors.js';
import type { Warning } from './context.js';
import type { Bid, BidRequest, MediaType } from './openrtb.js';
import type { JsonSchema, PluginLogger } from './common.js';

/** Media types a bidder accepts, per kind of inventory. */
export interface Capabilities {
  site?: { mediaTypes: MediaType[] };
  app?: { mediaTypes: MediaType[] };
  dooh?: { mediaTypes: MediaType[] };
}

export interface UserSyncInfo {
  /** The cookie key the bidder's id is stored under in the `uids` cookie (defaults to the bidder name). */
  key?: string;
  iframe?: { url: string; userMacro?: string };
  redirect?: { url: string; userMacro?: string };
  supportCors?: boolean;
}

/** Facts about a bidder: where it lives, who maintains it, what it can bid on. */
export interface BidderInfo {
  /** Endpoint template. May contain macros such as `{{Host}}` or `{{AccountID}}` filled by the adapter. */
  endpoint?: string;
  maintainer: { email: string };
  capabilities: Capabilities;
  gvlVendorId?: number;
  userSync?: UserSyncInfo;
  /** Set when this adapter is an alias of another adapter: it inherits that adapter's code and schema. */
  aliasOf?: string;
  /** OpenRTB version the bidder speaks on the wire. */
  ortbVersion?: '2.5' | '2.6';
  /** Whether the bidder takes a gzip-compressed request body. */
  endpointCompression?: 'none' | 'gzip';
  /**
   * Shipped switched off: the bidder needs per-host setup (its own endpoint, credentials) first, so a host enables it
   * with `bidders.<name>.enabled: true` (or by setting `bidders.<name>.endpoint`) once configured.
   */
  disabled?: boolean;
  /** Whether the bidder takes multi-format imps as they are, and whether it reads GPP signals. */
  openrtb?: { multiformat?: boolean; gppSupported?: boolean };
  /** Where the bidder operates, as ISO 3166 alpha-3 codes or regions (`EEA`, `global`): informational. */
  geoscope?: string[];
  /** Whether the host may insert tracking into the bidder's VAST (`/vtrack`, video events). */
  modifyingVastXmlAllowed?: boolean;
  /**
   * Prebid Server's `debug.allow` (default true): false keeps the bidder's calls out of `ext.debug.httpcalls`
   * (a bidder whose requests carry what a publisher must not see) unless the host's debug override header is sent.
   */
  debug?: { allow: boolean };
}

/** Host configuration for one configured bidder, as the adapter's `create` receives it. */
export interface BidderConfig {
  /** The name the bidder runs under (its seat): the adapter's name, or a configured alias. */
  name: string;
  endpoint: string;
  /** Free-form host settings for this bidder (`bidders.<name>.extra`): Prebid Server's `extra_info`. */
  extra: Record<string, unknown>;
  ortbVersion: '2.5' | '2.6';
  /** Facts about the host running the bidder, as Prebid Server's adapters receive them in `config.Server`. */
  host: HostInfo;
}

/** The host's own identity, for adapters that report it to their bidder. */
export interface HostInfo {
  /** The public address of this Gavel (`server.externalUrl`). */
  externalUrl: string;
  /** The host company's IAB GVL vendor id, when it has one. */
  gvlId?: number;
  /** The data centre this instance runs in, when the host names one. */
  datacenter?: string;
  /**
   * The host's Gavel version (its package.json `version`), for adapters that report their server's version where
   * Prebid Server reports its own (`version.Ver`). Absent in a test host, as in Prebid Server's adapter tests.
   */
  version?: string;
}

export interface AdapterDeps {
  logger: PluginLogger;
  /**
   * The clock an adapter measures time by, in epoch milliseconds (a bid's expiry from a header's deadline): the
   * system's in a host; in a fixture run, the one the adapter's `test/host-config.json` pins (`clock`), as Prebid
   * Server's adapter tests pin theirs. Optional, so that an adapter's own tests may leave it out: absent, it is the
   * system's (`deps.now ?? Date.now`).
   */
  now?(): number;
  /**
   * Random non-negative 63-bit integers, as Go's `rand.Int63` draws them (Prebid Server's adapters draw ids through
   * `randomutil.RandomGenerator`): absent in a host, where an adapter draws its own; in a fixture run, the fixed
   * number the adapter's `test/host-config.json` pins (`randomInt63`), as Prebid Server's adapter tests swap in a fake
   * generator. So an adapter reads it as `deps.randomInt63 ?? its own generator`.
   */
  randomInt63?(): bigint;
}

/** One outgoing HTTP call described by an adapter; the core sends it. */
export interface RequestData {
  method: 'POST' | 'GET';
  uri: string;
  /** A JSON value (serialised by the core) or a ready string. Absent for GET. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Ids of the imps this call carries. */
  impIds: string[];
  /**
   * Headers and query parameters that carry a secret (an API key, a host password): `ext.debug.httpcalls` shows
   * them masked. `Proxy-Authorization` and `Cookie` are always masked, and `Authorization` is left out, as Prebid
   * Server leaves it out.
   */
  secret?: { headers?: readonly string[]; params?: readonly string[] };
}

/** A bidder's HTTP answer as the core received it. `body` is the raw text. */
export interface ResponseData {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** Facts about the current request that are not in the OpenRTB object. */
export interface RequestInfo {
  /** Name the bidder runs under in this auction (alias or adapter name). */
  bidder: string;
  /** Which endpoint the auction came in on. */
  endpoint: 'auction' | 'amp' | 'video';
  /**
   * Converts an amount with the auction's rates (the host's, and the request's own `ext.prebid.currency.rates`).
   * Throws Prebid Server's `ConvertCurrency` errors: `Currency conversion rate not found: 'FROM' => 'TO'` (codes
   * upper-cased) when no rate is known, `rates are nil` when the request turned the host's rates off without rates of
   * its own, `currency: tag is not well-formed` / `... not a recognized currency` for a code it cannot read. The same
   * currency (in any case) is identity.
   */
  convertCurrency(amount: number, from: string, to: string): number;
  /** The `Sec-GPC` header of the incoming request, when it had one. */
  globalPrivacyControl?: string;
  /** The media type the publisher prefers for this bidder on multi-format imps (`biddercontrols.<bidder>.prefmtype`). */
  preferredMediaType?: MediaType;
}

/** The error `RequestInfo.convertCurrency` throws when no rate is known. */
export class ConversionNotFoundError extends Error {
  constructor(readonly from: string, readonly to: string) {
    super(`Currency conversion rate not found: '${from}' => '${to}'`);
    this.name = 'ConversionNotFoundError';
  }
}

export interface VideoBidInfo {
  duration?: number;
  primaryCategory?: string;
}

export interface TypedBid {
  bid: Bid;
  type: MediaType;
  /** Seat override (defaults to the bidder's name). */
  seat?: string;
  dealPriority?: number;
  video?: VideoBidInfo;
  /** Bid metadata (`ext.prebid.meta` in the response): advertiser domains, network, media type and so on. */
  meta?: Record<string, unknown>;
}

export interface MakeRequestsResult {
  requests: RequestData[];
  errors?: BidderError[];
  /**
   * Problems that do not stop the calls (Prebid Server's `errortypes.Warning`), reported in the response's
   * `ext.warnings.<bidder>` rather than among its errors.
   */
  warnings?: Warning[];
}

/**
 * A Protected Audience (FLEDGE) auction config a bidder answered with beside its bids, for the interest-group auction
 * the browser runs on the device. The core does not read it: it goes to `response.ext.<ns>.fledge.auctionconfigs[]`
 * as `{impid, bidder, adapter, config}`, `bidder` being the name the bidder ran under in the auction.
 */
export interface FledgeAuctionConfig {
  /** The imp the config is for, as the bidder names it (not checked against the request, as in Prebid Server). */
  impId: string;
  /** The bidder's config: any JSON value, passed on as it is. */
  config: unknown;
  /**
   * The response's `adapter` member: the name the adapter reports itself by (Prebid Server's adapters that set it
   * give their bidder name, `BidderConfig.name`). Left out of the response when absent.
   */
  adapter?: string;
}

export interface MakeBidsResult {
  /** ISO currency of every bid in `bids`; defaults to USD. */
  currency?: string;
  bids: TypedBid[];
  errors?: BidderError[];
  /** As `MakeRequestsResult.warnings`: reported in `ext.warnings.<bidder>`. */
  warnings?: Warning[];
  /**
   * Protected Audience auction configs found in the answer, kept apart from the bids: an answer may carry configs and
   * no bid. Whether the imp asked for them (`imp.ext.ae`, `imp.ext.igs`) is not checked, as in Prebid Server.
   */
  fledgeAuctionConfigs?: FledgeAuctionConfig[];
}

/**
 * A bidder turns a request into HTTP request descriptions and HTTP responses into typed bids. It does no I/O and
 * must not mutate the request it is given: the core sends, times and records the calls.
 */
export interface Bidder {
  makeRequests(request: BidRequest, info: RequestInfo): MakeRequestsResult;
  makeBids(request: BidRequest, sent: RequestData, response: ResponseData): MakeBidsResult;
}

export interface AdapterManifest {
  kind: 'adapter';
  name: string;
  version: string;
  sdkVersion: string;
  info: BidderInfo;
  /** Required, unless `info.aliasOf` names the adapter whose schema and code this one borrows. */
  paramsSchema?: JsonSchema;
  create?(config: BidderConfig, deps: AdapterDeps): Bidder;
}

export function defineAdapter(manifest: Omit<AdapterManifest, 'kind'>): AdapterManifest {
  return { kind: 'adapter', ...manifest };
}
