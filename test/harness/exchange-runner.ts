/**
 * Prebid Server's exchange fixtures (../shared/conformance/README.md, "exchange"): one auction with every bidder
 * mocked. Each fixture's host and account switches become Gavel config, the mocked seat bids are served in place of
 * the adapters (the plugin catalog is rebound through DI, as mock-bidders.ts does), and the runner checks:
 *   - what each bidder received: the request its adapter was handed, JSON-equal to `expectRequest.ortbRequest`
 *     (key order ignored; a field the fixture leaves out must be absent), both as Prebid Server's harness holds
 *     them, decoded into openrtb2 structs (`encodeAsOpenrtb2Request`: unknown members and zero omitempty fields
 *     gone); mock bids and expected bids likewise decoded into openrtb2.Bid; and, when stated, the bid adjustment
 *     factors its bidder layer is handed (`expectRequest.bidAdjustments`). The mocks stand in for Prebid Server's
 *     whole bidder layer, which converts prices and applies bid adjustments: the mock prices come out as they are;
 *   - the answer: `response.bids` as the endpoint fixtures compare a BidResponse (id, cur, seats by `seat`, bids by
 *     `id`, every field the expected bid gives JSON-equal), `ext.errors` / `ext.warnings` by count and message,
 *     `ext.debug` only for a `test: 1` request, its calls as the mock bidders give them (`mockResponse.httpCalls`,
 *     withHarnessHttpCalls), every other `ext` member JSON-equal; `response.error` as a refused request whose body
 *     contains the message.
 *
 * The fixtures start where Prebid Server's exchange starts: after its endpoint merged stored data, read stored
 * responses and validated the request. So the runner serves every stored request or imp a fixture still names as an
 * empty document (the merge changes nothing), reads no stored responses (the exchange harness is given none), and
 * runs Gavel's request validation without letting it refuse the request (what it normalises in
 * place still happens; endpoint validation is what the endpoint fixtures check).
 *
 * How each switch maps to Gavel (SWITCHES below is the one table): privacy (issue 13), floors (16), bid validation,
 * multibid, events and bid ids (15) map to the config keys those features read. A switch that asks for a feature
 * whose config key this build does not have yet is reported with the fixture ("needs ...: waits for issue N"), so
 * such a fixture starts passing when the feature lands with that key.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Container } from 'inversify';
import { encodeAsOpenrtb2Bid, encodeAsOpenrtb2Request, HookPointTokens, type AdapterManifest, type Bid, type BidAdjuster, type Bidder, type BidderError, type FledgeAuctionConfig, type MediaType, type RequestValidator, type TypedBid } from '../../core/api/index.js';
import { bootGavel } from '../../core/app/boot.js';
import { Tokens } from '../../core/app/tokens.js';
import { NO_IMPLICIT_FIELDS } from '../../core/auction/implicit-fields.js';
import type { AccountLoader } from '../../core/accounts/index.js';
import type { StoredResponseReader } from '../../core/stored-responses/index.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import { CountingCacheStore } from '../support/counting-cache-store.js';
import { checkConfig, deepMerge, defaultConfig, type GavelConfig } from '../../core/config/index.js';
import type { PluginCatalog } from '../../core/plugins/discover.js';
import type { StoredDataFetcher } from '../../core/stored/index.js';
import { syncerKey } from '../../core/usersync/syncers.js';
import { diffJson, listFixtureFiles, type FixtureOutcome } from './fixture-outcome.js';
import { checkWithDeviation } from './fixture-deviations.js';

type Json = Record<string, any>;

/** One exchange fixture, as Prebid Server's exchange tests read it. */
export interface ExchangeFixture {
  description?: string;
  incomingRequest: { ortbRequest: Json; usersyncs?: Record<string, string> };
  outgoingRequests: Record<string, BidderSpec>;
  response?: { bids?: Json; ext?: Json; error?: string };
  [hostOrAccountSwitch: string]: unknown;
}

interface BidderSpec {
  /**
   * `bidAdjustments`: the factors the bidder layer is handed (Prebid Server's `bidRequestOptions.bidAdjustments`, the
   * request's `bidadjustmentfactors` with lower-cased names), compared when stated. `bidAdjustment` (one number) is
   * what the harness read before those factors became a map: Go's decoder no longer has a field for it, so it is
   * left unread (most fixtures do not state it, which the old harness would have read as a factor of 0).
   */
  expectRequest?: { ortbRequest: Json; bidAdjustments?: Record<string, number> | null; bidAdjustment?: number };
  mockResponse?: { pbsSeatBids?: MockSeatBid[]; errors?: string[]; httpCalls?: Json[] };
  modifyingVastXmlAllowed?: boolean;
}

interface MockSeatBid {
  seat?: string;
  /** `dealPriority`: the priority an adapter gives a deal bid (PbsOrtbBid.DealPriority), for Gavel's own fixtures. */
  pbsBids?: Array<{ ortbBid: Bid; bidType: MediaType; bidMeta?: Json; bidVideo?: { duration?: number; PrimaryCategory?: string }; dealPriority?: number }>;
  /** What the adapter returned beside its bids (Prebid Server's `FledgeAuctionConfig`: `bidder` is the adapter's own name). */
  fledgeAuctionConfigs?: Array<{ impid: string; bidder?: string; config: unknown }>;
}

/** Prebid Server's fixture cache host (`hb_cache_host` / `hb_cache_path` in expected targeting). */
export const FIXTURE_CACHE_URL = 'https://www.pbcserver.com/pbcache/endpoint';

/** A FreeWheel mapping with the categories Prebid Server's exchange fixtures show (`IAB1-1` is `VideoGames`...). */
const FIXTURE_CATEGORY_MAPPING = fileURLToPath(new URL('../fixtures/category-mapping/freewheel.json', import.meta.url));

/** The account Prebid Server's exchange tests run every auction under. */
const FIXTURE_ACCOUNT_ID = 'testaccount';

/** The host's schain node Prebid Server's exchange tests use when `host_schain_flag` is set. */
const FIXTURE_HOST_SCHAIN_NODE = { asi: 'pbshostcompany.com', sid: '00001', rid: 'BidRequest', hp: 1 };

/** Prebid Server's fixture host EEA list (used with `assume_gdpr_applies` and geo). */
const FIXTURE_EEA_COUNTRIES = ['FIN', 'FRA', 'GUF'];

/**
 * What one switch sets: `host` config merged over the runner's base config, `account` settings merged into the
 * account every auction runs under (Prebid Server's account JSON shape, under `accounts.defaults`). `needs` marks a
 * setting that changes behaviour only once the named issue's feature reads it; `off` marks a setting that only
 * restates "switched off" (Prebid Server's default), needed where Gavel's default differs.
 */
interface Mapping {
  host?: Json;
  account?: Json;
  /** The open issue whose feature reads this setting. */
  issue?: number;
  /** True when the setting only switches a feature off: harmless to drop while the feature is missing. */
  off?: boolean;
}

const on = (value: unknown): boolean => value === true;

/**
 * Every fixture switch and what it becomes. Prebid Server's fixtures assume each feature off unless switched on,
 * and Gavel's privacy defaults are on (reference-behaviour 13), so the privacy switches are always written.
 */
const SWITCHES: Record<string, (value: unknown, fixture: ExchangeFixture) => Mapping[]> = {
  // Privacy: issue 13. Prebid Server's host `gdpr.enabled`, `gdpr.default_value`, `ccpa.enforce`, `lmt.enforce`.
  // Prebid Server's exchange harness enforces GDPR with a permissions mock that asks every bidder but passes neither
  // ids nor precise geo (`permissionsMock{allowAllBidders: true}`): with no consent string, that is Gavel's
  // enforcement with purpose 2 not enforced.
  gdpr_enforced: (value) => [
    { host: { privacy: { gdpr: { enabled: on(value), ...(on(value) && { tcf2: { purpose2: { enforcePurpose: false, enforceVendors: false } } }) } } }, issue: 13, off: !on(value) },
  ],
  assume_gdpr_applies: (value) => [{ host: { privacy: { gdpr: { defaultValue: on(value) ? '1' : '0', eeaCountries: FIXTURE_EEA_COUNTRIES } } }, issue: 13, off: !on(value) }],
  enforceCcpa: (value) => [{ host: { privacy: { ccpa: { enforce: on(value) } } }, issue: 13, off: !on(value) }],
  enforceLmt: (value) => [{ host: { privacy: { lmt: { enforce: on(value) } } }, issue: 13, off: !on(value) }],
  accountPrivacy: (value) => [{ account: { privacy: value } }],
  account_eea_countries: (value) => [{ account: { gdpr: { eea_countries: value } } }],
  // Floors: issue 16 (Prebid Server's host `price_floors.enabled`, account `price_floors`).
  floors_enabled: (value) => [{ host: { modules: { 'prebid.floors': { enabled: on(value) } } }, issue: 16, off: !on(value) }],
  account_floors_enabled: (value) => [{ account: { price_floors: { enabled: on(value) } } }],
  account_enforce_deal_floors: (value) => [{ account: { price_floors: { enforce_deal_floors: on(value) } } }],
  // Publisher settings: issue 15 (multibid's account bid limit, events, bid validation, bid ids).
  multiBid: (value) => {
    const limit = (value as Json | null)?.default_bid_limit;
    return typeof limit === 'number' ? [{ account: { default_bid_limit: limit } }] : [];
  },
  events_enabled: (value) => [{ account: { events: { enabled: on(value) } } }],
  host_bid_validations: (value) => [{ host: { auction: { bidValidations: camelKeys(value) } }, issue: 15 }],
  account_bid_validations: (value) => [{ account: { validations: value } }],
  bidIDGenerator: (value) => [{ host: { auction: { generateBidId: on((value as Json | null)?.generateBidID) } }, issue: 15, off: !on((value as Json | null)?.generateBidID) }],
  // This issue's own: the host's schain node, the host identity in `ext.prebid.server`, per-bidder OpenRTB versions.
  host_schain_flag: (value) => (on(value) ? [{ host: { auction: { hostSchainNode: FIXTURE_HOST_SCHAIN_NODE } } }] : []),
  server: (value) => {
    const server = (value ?? {}) as Json;
    const host: Json = {};
    if (typeof server.externalURL === 'string') host.externalUrl = server.externalURL;
    if (typeof server.gvlID === 'number') host.gvlId = server.gvlID;
    if (typeof server.dataCenter === 'string') host.dataCenter = server.dataCenter;
    return [{ host: { server: host } }];
  },
  debugLog: debugLogSwitch,
  debuglog: debugLogSwitch,
  // Handled elsewhere in the runner: versions per bidder (bidderSettings), the request type (asRequestTypeRuns), and
  // switches that only shape Prebid Server's own harness (the passthrough map it prebuilds, the event timestamp's clock).
  ortbversion: () => [],
  passthrough_flag: () => [],
  requestType: () => [],
  // Set on the bid-checking service where it exists (replaceBidChecks).
  start_time_ms: () => [],
  // Prebid Server has no setting that turns Protected Audience on or off: every config a bidder returns is passed on,
  // whether or not the imp asked (`imp.ext.ae`). The switch is left over from its harness and changes nothing there.
  fledge_enabled: () => [],
};

/**
 * Prebid Server's debug log (`DebugLog`) is the debug data its AMP and video endpoints cache; at the exchange level
 * it only turns debug output on, which the fixtures that set it also ask for in their request (`test: 1`). Nothing
 * to map.
 */
function debugLogSwitch(): Mapping[] {
  return [];
}

/** Prebid Server's host config keys (`banner_creative_max_size`) as Gavel spells them (`bannerCreativeMaxSize`). */
function camelKeys(value: unknown): Json {
  const out: Json = {};
  if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) out[key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())] = inner;
  return out;
}

/**
 * Switches every fixture runs under unless it sets them: Prebid Server's exchange harness enforces no GDPR, CCPA or
 * LMT and applies no floors unless told to, and Gavel's defaults do all four (reference-behaviour 13).
 */
const HARNESS_DEFAULTS: Readonly<Record<string, unknown>> = { gdpr_enforced: false, enforceCcpa: false, enforceLmt: false, floors_enabled: false };

/**
 * The account's floors settings in Prebid Server's exchange harness: only `enabled` and `enforce_deal_floors` come
 * from the fixture (`account_floors_enabled`, `account_enforce_deal_floors`, absent = false); every other member is
 * Go's zero value, not the host defaults: no limit on rules or schema fields (0), floors never divided by bid
 * adjustment factors (`adjust_for_bid_adjustment` false), enforcement at every auction.
 */
const HARNESS_ACCOUNT_FLOORS: Readonly<Json> = Object.freeze({
  enabled: false,
  enforce_deal_floors: false,
  enforce_floors_rate: 100,
  adjust_for_bid_adjustment: false,
  max_rules: 0,
  max_schema_dims: 0,
});

/** Keys of a fixture that are its data, not switches. */
const FIXTURE_DATA_KEYS = new Set(['description', 'incomingRequest', 'outgoingRequests', 'response']);

/** True when Gavel's config schema takes this fragment, and every module it names is installed. */
function acceptsConfig(base: Json, fragment: Json, installed: Installed): boolean {
  const modules = (fragment.modules ?? {}) as Json;
  if (Object.keys(modules).some((code) => !installed.modules.has(code))) return false;
  try {
    checkConfig(deepMerge(structuredClone(base), fragment), 'exchange fixture');
    return true;
  } catch {
    return false;
  }
}

/** What this build installs: adapters and modules (lower-case adapter names, module codes). */
export interface Installed {
  adapters: ReadonlySet<string>;
  modules: ReadonlySet<string>;
}

/** Bidders the request names in its imps (`imp.ext.prebid.bidder.<name>` and `imp.ext.<name>`). */
function biddersInRequest(request: Json): string[] {
  const names = new Set<string>();
  for (const imp of (request.imp ?? []) as Json[]) {
    const nested = imp?.ext?.prebid?.bidder;
    if (nested && typeof nested === 'object') for (const name of Object.keys(nested)) names.add(name);
  }
  return [...names];
}

/** The request aliases (`ext.prebid.aliases`), lower-cased. */
function requestAliases(request: Json): Map<string, string> {
  const aliases = request.ext?.prebid?.aliases;
  const map = new Map<string, string>();
  if (aliases && typeof aliases === 'object') for (const [alias, target] of Object.entries(aliases)) if (typeof target === 'string') map.set(alias.toLowerCase(), target.toLowerCase());
  return map;
}

/** The host config and account settings a fixture's switches ask for, and the notes on what this build lacks. */
export function fixtureSettings(fixture: ExchangeFixture, installed: Installed): { config: Json; account: Json; notes: string[] } {
  const request = fixture.incomingRequest.ortbRequest;
  const aliases = requestAliases(request);
  const versions = (fixture.ortbversion ?? {}) as Record<string, string>;
  // Every bidder of the auction is declared, so its OpenRTB version is the fixture's (Prebid Server sends 2.5 to a
  // bidder whose info names no version); one the host does not install runs on the generic adapter.
  const bidders: Json = {};
  for (const name of new Set([...biddersInRequest(request), ...Object.keys(fixture.outgoingRequests)])) {
    const lower = name.toLowerCase();
    if (aliases.has(lower)) continue;
    const settings: Json = { ortbVersion: versions[name] === '2.6' ? '2.6' : '2.5' };
    if (!installed.adapters.has(lower)) Object.assign(settings, { adapter: 'ortb', endpoint: `http://mock.invalid/${lower}` });
    bidders[name] = settings;
  }
  let config: Json = deepMerge(structuredClone(defaultConfig) as unknown as Json, {
    logging: { level: 'silent' },
    admin: { enabled: false },
    // Prebid Server's exchange harness runs with this external URL (event URLs start with it).
    server: { externalUrl: 'http://localhost' },
    auction: { defaultNamespace: 'prebid' },
    cache: { publicUrl: FIXTURE_CACHE_URL },
    // Prebid Server's exchange tests' category mapping (ours: the ids their fixtures show).
    video: { categoryMappings: { freewheel: FIXTURE_CATEGORY_MAPPING } },
    bidders,
  });
  // Prebid Server's exchange tests run every auction under an account that allows debug, with floors settings of
  // their own (HARNESS_ACCOUNT_FLOORS); the floors switches are written over them.
  let account: Json = { debug_allow: true, price_floors: HARNESS_ACCOUNT_FLOORS };
  const notes: string[] = [];
  for (const [key, value] of Object.entries({ ...HARNESS_DEFAULTS, ...fixture })) {
    if (FIXTURE_DATA_KEYS.has(key) || key === '//') continue;
    const mapping = SWITCHES[key];
    if (!mapping) {
      notes.push(`switch "${key}" is not mapped by the runner`);
      continue;
    }
    for (const { host, account: accountSettings, issue, off } of mapping(value, fixture)) {
      if (accountSettings) account = deepMerge(account, accountSettings);
      if (host) {
        if (acceptsConfig(config, host, installed)) config = deepMerge(config, host);
        else if (!off) notes.push(`switch "${key}" needs config ${JSON.stringify(host)}${issue ? `: waits for issue ${issue}` : ''}`);
      } else if (issue && !off && value !== undefined) {
        notes.push(`switch "${key}" is read by the feature of issue ${issue}`);
      }
    }
  }
  if (!acceptsConfig(config, { accounts: { defaults: account } }, installed)) notes.push(`account settings ${JSON.stringify(account)} are not accepted by accounts.defaults`);
  else config = deepMerge(config, { accounts: { defaults: account } });
  return { config, account, notes };
}

/** What the mocks saw: the request each bidder's adapter was handed, by bidder name as the auction ran it. */
type Received = Map<string, Json[]>;

function typedBids(spec: BidderSpec | undefined): { bids: TypedBid[]; errors: BidderError[]; fledgeAuctionConfigs?: FledgeAuctionConfig[] } {
  const bids: TypedBid[] = [];
  let fledgeAuctionConfigs: FledgeAuctionConfig[] | undefined;
  for (const seat of spec?.mockResponse?.pbsSeatBids ?? []) {
    for (const { impid, bidder, config } of seat.fledgeAuctionConfigs ?? []) {
      (fledgeAuctionConfigs ??= []).push({ impId: impid, config: structuredClone(config), ...(bidder && { adapter: bidder }) });
    }
    for (const mock of seat.pbsBids ?? []) {
      // The harness decodes each mock bid into openrtb2.Bid: what the auction gets is what that struct holds.
      const typed: TypedBid = { bid: encodeAsOpenrtb2Bid(structuredClone(mock.ortbBid) as never), type: mock.bidType };
      if (seat.seat) typed.seat = seat.seat;
      if (mock.bidMeta && Object.keys(mock.bidMeta).length > 0) typed.meta = structuredClone(mock.bidMeta);
      if (mock.bidVideo) typed.video = { duration: mock.bidVideo.duration, primaryCategory: mock.bidVideo.PrimaryCategory };
      if (mock.dealPriority !== undefined) typed.dealPriority = mock.dealPriority;
      bids.push(typed);
    }
  }
  // Prebid Server's harness returns plain Go errors: code 999 in the response.
  const errors = (spec?.mockResponse?.errors ?? []).map((message) => ({ code: 999, message }));
  return { bids, errors, fledgeAuctionConfigs };
}

/** A mock adapter: records the request it is handed, makes one call, answers with the fixture's seat bids. */
function mockBidder(specs: Record<string, BidderSpec>, received: Received, endpoint: string): Bidder {
  const specFor = (bidder: string) => specs[bidder] ?? Object.entries(specs).find(([name]) => name.toLowerCase() === bidder.toLowerCase())?.[1];
  return {
    makeRequests(request, info) {
      // The copy is what the bidder received; a later stage must not change the record.
      received.set(info.bidder, [...(received.get(info.bidder) ?? []), JSON.parse(JSON.stringify(request)) as Json]);
      return { requests: [{ method: 'POST', uri: `${endpoint}?bidder=${encodeURIComponent(info.bidder)}`, body: request, impIds: request.imp.map((imp) => imp.id) }] };
    },
    makeBids(request, sent) {
      const bidder = new URL(sent.uri).searchParams.get('bidder') ?? '';
      const { bids, errors, fledgeAuctionConfigs } = typedBids(specFor(bidder));
      // Prebid Server's mock seat bids skip the bidder layer that converts prices: the mock answers in the auction's
      // currency, so no conversion happens here either.
      const currency = typeof request.cur?.[0] === 'string' ? request.cur[0] : 'USD';
      return { bids, errors, currency, ...(fledgeAuctionConfigs && { fledgeAuctionConfigs }) };
    },
  };
}

/** Stored data as the exchange sees it: already merged, so every id a fixture still names is an empty document. */
const emptyStoredDocuments: StoredDataFetcher = {
  fetchRequests: async (ids) => new Map(ids.map((id) => [id, {}])),
  fetchImps: async (ids) => new Map(ids.map((id) => [id, {}])),
  fetchAccount: async () => undefined,
};

function mockCatalog(container: Container, fixture: ExchangeFixture, received: Received): void {
  const installed = container.get<PluginCatalog>(Tokens.PluginCatalog);
  const plugins: PluginCatalog = { adapters: new Map(installed.adapters), modules: installed.modules };
  container.rebind(Tokens.PluginCatalog).toConstantValue(plugins);
  const transport: BidderTransport = { send: async () => ({ status: 200, body: '{}', headers: {} }), close: async () => undefined };
  container.rebind(Tokens.BidderTransport).toConstantValue(transport);
  container.rebind(Tokens.StoredData).toConstantValue({ fetcher: emptyStoredDocuments, close: async () => undefined });
  container.rebind(Tokens.CacheStore).toConstantValue(new CountingCacheStore());
  const vastAllowed = new Set(Object.entries(fixture.outgoingRequests).filter(([, spec]) => spec.modifyingVastXmlAllowed).map(([name]) => name.toLowerCase()));
  for (const [name, loaded] of plugins.adapters) {
    if (loaded.manifest.info.aliasOf) continue;
    const manifest: AdapterManifest = {
      ...loaded.manifest,
      info: {
        ...loaded.manifest.info,
        endpoint: `http://mock.invalid/${name}`,
        disabled: false,
        // Prebid Server's exchange harness offers every imp to every bidder named in it: no capability filter.
        capabilities: { site: { mediaTypes: ['banner', 'video', 'audio', 'native'] }, app: { mediaTypes: ['banner', 'video', 'audio', 'native'] }, dooh: { mediaTypes: ['banner', 'video', 'audio', 'native'] } },
        modifyingVastXmlAllowed: vastAllowed.has(name.toLowerCase()) || undefined,
        // Its mock bidders replace the bidder layer that reads a bidder's `debug.allow`: every seat's calls are shown.
        debug: { allow: true },
      },
      create: (config) => mockBidder(fixture.outgoingRequests, received, config.endpoint),
    };
    plugins.adapters.set(name, { ...loaded, manifest, validateParams: Object.assign(() => true, { errors: null }) as never });
  }
  // Stored responses come from Prebid Server's endpoint, which its exchange harness skips: the fixtures get none.
  container.rebind(Tokens.StoredResponses).toConstantValue({ read: () => undefined } satisfies StoredResponseReader);
  // Nor does it fill a request from its HTTP request or with defaults (at, imp.secure, the site's domains): its
  // endpoint does that, and the fixtures' requests are what the exchange is handed.
  container.rebind(Tokens.ImplicitFields).toConstantValue(NO_IMPLICIT_FIELDS);
  // Prebid Server's harness runs every auction under its account `testaccount`, whatever the request names.
  const accounts = container.get<AccountLoader>(Tokens.Accounts);
  container.rebind(Tokens.Accounts).toConstantValue({ load: (id, options) => accounts.load(id === '' ? FIXTURE_ACCOUNT_ID : id, options) } satisfies AccountLoader);
  replaceBidChecks(container, fixture);
  keepMockPrices(container);
  // Resolved only now: the validator's dependencies (the bidder catalog) must see the mock adapters.
  const validator = container.get<RequestValidator>(HookPointTokens['request-validation']);
  container.rebind(HookPointTokens['request-validation']).toConstantValue({
    validate(request, context) {
      validator.validate(request, context);
      return undefined;
    },
    // The exchange itself re-checks imps a bidder's first-party data changed.
    validateImp: validator.validateImp?.bind(validator),
  } satisfies RequestValidator);
}

/**
 * The factors Prebid Server's exchange hands every bidder layer (`bidRequestOptions.bidAdjustments`, from
 * getExtBidAdjustmentFactors): the request's `ext.prebid.bidadjustmentfactors` with lower-cased names, null without.
 */
function handedFactors(request: Json): Record<string, number> | null {
  const given = request.ext?.prebid?.bidadjustmentfactors;
  if (!given || typeof given !== 'object') return null;
  const lowerCased: Record<string, number> = {};
  for (const [name, factor] of Object.entries(given as Json)) if (typeof factor === 'number') lowerCased[name.toLowerCase()] = factor;
  return lowerCased;
}

/**
 * Prebid Server's exchange harness feeds its mock bids in below the layer that validates each bid (id, imp, price,
 * creative id, currency), fixes the auction's start time (`start_time_ms`, the `ts` of event URLs) and, with
 * `bidIDGenerator`, gives bids the ids `bid-<bidder>-<n>` (or fails to). Where this build has the service that does
 * these (the publisher-settings feature's `Tokens.BidChecks`), the runner sets it the same way.
 */
function replaceBidChecks(container: Container, fixture: ExchangeFixture): void {
  const token = (Tokens as Record<string, symbol | undefined>).BidChecks;
  if (!token || !container.isBound(token)) return;
  const original = container.get<Json>(token);
  const start = typeof fixture.start_time_ms === 'number' ? fixture.start_time_ms : undefined;
  const generator = (fixture.bidIDGenerator ?? undefined) as { generateBidID?: boolean; returnError?: boolean } | undefined;
  const counts = new Map<string, number>();
  const newBidId = (bidder: string): string => {
    if (generator?.returnError) throw new Error('Test error generating bid.ext.prebid.bidid');
    const next = (counts.get(bidder) ?? 0) + 1;
    counts.set(bidder, next);
    return `bid-${bidder}-${next}`;
  };
  container.rebind(token).toConstantValue({
    ...original,
    validateBids: false,
    ...(start !== undefined && { auctionStart: () => start }),
    ...(generator?.generateBidID && { newBidId }),
  });
}

/**
 * Prebid Server's mock bidders stand in for its bidder layer, which is where bid adjustments are applied (factors and
 * `bidadjustments` rules, bidder.go `requestBid`): the harness only checks the factors a bidder is handed, and its bids
 * reach the exchange, floors enforcement included, priced as the fixture wrote them (what the layer is handed is
 * checked instead, see handedFactors). Gavel's adjustment service still runs (for the warnings it gives), and the
 * prices it changed are put back.
 */
function keepMockPrices(container: Container): void {
  const adjuster = container.get<BidAdjuster>(HookPointTokens['bid-adjustment']);
  container.rebind(HookPointTokens['bid-adjustment']).toConstantValue({
    adjust(bids, share, context) {
      const prices = bids.map((bid) => bid.bid.price);
      adjuster.adjust(bids, share, context);
      bids.forEach((bid, i) => (bid.bid.price = prices[i]!));
    },
  } satisfies BidAdjuster);
}

/** The `uids` cookie holding the fixture's user syncs, under each bidder's sync key. */
function uidsCookie(usersyncs: Record<string, string> | undefined, keyOf: (bidder: string) => string): string | undefined {
  if (!usersyncs || Object.keys(usersyncs).length === 0) return undefined;
  const expires = new Date(Date.now() + 86_400_000).toISOString();
  const tempUIDs: Json = {};
  for (const [bidder, uid] of Object.entries(usersyncs)) tempUIDs[keyOf(bidder)] = { uid, expires };
  return Buffer.from(JSON.stringify({ tempUIDs })).toString('base64');
}

/** The request types whose first-party data Prebid Server's exchange resolves (exchange.go: web, app, AMP). */
const FPD_REQUEST_TYPES = new Set(['openrtb2-web', 'openrtb2-app', 'amp']);

/**
 * Prebid Server's exchange resolves first-party data only for a web, app or AMP request, and its harness runs an
 * auction with the fixture's `requestType`: none, or video, means no first-party data at all (`data.bidders` and
 * `bidderconfig` unread, every bidder sent the request's data as it is). Gavel decides by endpoint and request, so a
 * fixture of such a type is run with the two members left out: they never reach a bidder, and unread they change
 * nothing else. Returns the fixture unchanged when it has neither, or a type that resolves them.
 */
function asRequestTypeRuns(fixture: ExchangeFixture): ExchangeFixture {
  const prebid = fixture.incomingRequest.ortbRequest.ext?.prebid;
  if (FPD_REQUEST_TYPES.has(fixture.requestType as string) || !prebid || (prebid.bidderconfig === undefined && prebid.data?.bidders === undefined)) return fixture;
  const { bidderconfig: _config, ...rest } = prebid as Json;
  if (rest.data?.bidders !== undefined) {
    const { bidders: _bidders, ...data } = rest.data as Json;
    rest.data = data;
  }
  const request = fixture.incomingRequest.ortbRequest;
  return { ...fixture, incomingRequest: { ...fixture.incomingRequest, ortbRequest: { ...request, ext: { ...request.ext, prebid: rest } } } };
}

/**
 * Prebid Server's exchange always hands its endpoint the non-bids, which shows them only when the request asks
 * (`returnallbidstatus`); the exchange fixtures compare them unasked. A fixture that expects `seatnonbid` is run asking.
 */
function askForNonBids(fixture: ExchangeFixture): Json {
  const request = fixture.incomingRequest.ortbRequest;
  const ext = fixture.response?.ext ?? fixture.response?.bids?.ext;
  if (!ext?.prebid?.seatnonbid || request.ext?.prebid?.returnallbidstatus !== undefined) return request;
  return { ...request, ext: { ...request.ext, prebid: { ...request.ext?.prebid, returnallbidstatus: true } } };
}

/** POSTs the request with no header beyond what the fixture implies (no User-Agent: the fixture's device has none). */
function postAuction(port: number, body: Json, cookie: string | undefined): Promise<{ status: number; text: string }> {
  const text = JSON.stringify(body);
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) };
  if (cookie) headers.cookie = `uids=${cookie}`;
  return new Promise((resolve, reject) => {
    const call = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/openrtb2/auction', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end(text);
  });
}

// ---- comparison -------------------------------------------------------------------------------------------------

/**
 * Members Prebid Server's exchange harness cannot show: its mock bids skip the adapter layer that writes a bid's
 * `ext.prebid.meta.adaptercode` and `ext.origbidcur`. Gavel writes both; they are compared only when the fixture
 * states them.
 */
function withoutHarnessGaps(expected: Json | undefined, actual: Json | undefined): Json | undefined {
  if (!actual || typeof actual !== 'object') return actual;
  const ext = structuredClone(actual);
  if (expected?.origbidcur === undefined) delete ext.origbidcur;
  const meta = ext.prebid?.meta;
  if (meta && expected?.prebid?.meta?.adaptercode === undefined) {
    delete meta.adaptercode;
  }
  return ext;
}

/** A request as Prebid Server's harness holds it, decoded into openrtb2.BidRequest. */
function asGoHoldsIt(request: Json | undefined): Json | undefined {
  return request && typeof request === 'object' ? (encodeAsOpenrtb2Request(request as never) as unknown as Json) : request;
}

/** An expected bid as the harness holds it, decoded into openrtb2.Bid (its `ext` as written). */
function compareBid(expectedAsWritten: Json, actual: Json, where: string): string[] {
  const expected = encodeAsOpenrtb2Bid(expectedAsWritten) as unknown as Json;
  const diffs: string[] = [];
  for (const [key, value] of Object.entries(expected)) {
    if (key === 'ext') diffs.push(...diffJson(value, withoutHarnessGaps(value as Json, actual.ext), `${where}.ext`));
    else diffs.push(...diffJson(value, actual[key], `${where}.${key}`));
  }
  for (const key of Object.keys(actual)) if (!(key in expected) && key !== 'ext') diffs.push(`${where}.${key}: unexpected ${JSON.stringify(actual[key])}`);
  if (!('ext' in expected) && actual.ext !== undefined) diffs.push(...diffJson({}, withoutHarnessGaps({}, actual.ext), `${where}.ext`));
  return diffs;
}

/**
 * Errors or warnings by scope: for each scope the fixture states, the same count, each message containing the expected
 * one (and the same code when stated). Scopes it does not state are not compared (the endpoint fixtures' rule).
 */
function compareMessages(expected: Json, actual: Json | undefined, where: string): string[] {
  const diffs: string[] = [];
  for (const [scope, list] of Object.entries(expected)) {
    const got = (actual?.[scope] ?? []) as Json[];
    const wanted = list as Array<string | Json>;
    if (got.length !== wanted.length) diffs.push(`${where}.${scope}: expected ${wanted.length}, got ${got.length}: ${JSON.stringify(got)}`);
    wanted.forEach((entry, i) => {
      const message = typeof entry === 'string' ? entry : String(entry.message ?? '');
      const code = typeof entry === 'string' ? undefined : entry.code;
      const actualEntry = got[i];
      if (!actualEntry) return;
      if (!String(actualEntry.message ?? '').includes(message)) diffs.push(`${where}.${scope}[${i}].message: expected ${JSON.stringify(message)}, got ${JSON.stringify(actualEntry.message)}`);
      if (code !== undefined && actualEntry.code !== code) diffs.push(`${where}.${scope}[${i}].code: expected ${code}, got ${actualEntry.code}`);
    });
  }
  return diffs;
}

/**
 * Non-bids as Prebid Server's exchange harness can show them: Go writes a seat's empty `ext` as `null` (Gavel leaves
 * it out), and its mock bids skip the adapter layer that sets a bid's original currency (`origbidcur`), compared only
 * when the fixture states it.
 */
function withoutNonBidGaps(expected: Json, actual: Json | undefined): { expected: Json; actual: Json | undefined } {
  const wanted = expected.seatnonbid;
  if (!Array.isArray(wanted) || !Array.isArray(actual?.seatnonbid)) return { expected, actual };
  const statesCurrency = JSON.stringify(wanted).includes('"origbidcur"');
  const seats = (wanted as Json[]).map(({ ext, ...seat }) => (ext === null ? seat : { ...seat, ext }));
  const got = (actual.seatnonbid as Json[]).map((seat) => ({
    ...seat,
    nonbid: ((seat.nonbid ?? []) as Json[]).map((nonbid) => {
      const bid = nonbid.ext?.prebid?.bid ?? nonbid.ext?.svc?.bid;
      if (statesCurrency || !bid || bid.origbidcur === undefined) return nonbid;
      const { origbidcur: _gap, ...facts } = bid;
      const ns = nonbid.ext.prebid ? 'prebid' : 'svc';
      return { ...nonbid, ext: { ...nonbid.ext, [ns]: { ...nonbid.ext[ns], bid: facts } } };
    }),
  }));
  return { expected: { ...expected, seatnonbid: seats }, actual: { ...actual, seatnonbid: got } };
}

/**
 * One debug call as Prebid Server writes it: its `ExtHttpCall` struct, whose five members are always written (a
 * missing one at Go's zero value, headers `null`).
 */
function asExtHttpCall(call: Json | null | undefined): Json {
  return {
    uri: call?.uri ?? '',
    requestbody: call?.requestbody ?? '',
    requestheaders: call?.requestheaders ?? null,
    responsebody: call?.responsebody ?? '',
    status: call?.status ?? 0,
  };
}

/**
 * `ext.debug` as Prebid Server's harness can show it. Its mock bidders stand in for the whole bidder layer and make no
 * HTTP call: the debug calls of a seat are the fixture's `mockResponse.httpCalls`, under the bidder's name, and a
 * bidder whose mock gives none has no entry (nor is `httpcalls` written when no bidder has one). Gavel's mock
 * adapters sit below its bidder layer and make one call each to the mock endpoint, which Gavel records where Prebid
 * Server records the mock's calls: the runner shows the fixture's calls in place of that stand-in call, so which
 * bidders have calls, under which name, and whether debug is on at all stay Gavel's own.
 */
function withHarnessHttpCalls(debug: Json | undefined, specs: Record<string, BidderSpec>): Json | undefined {
  const recorded = debug?.httpcalls;
  if (!recorded || typeof recorded !== 'object') return debug;
  const httpcalls: Json = {};
  for (const bidder of Object.keys(recorded)) {
    const spec = specs[bidder] ?? Object.entries(specs).find(([name]) => name.toLowerCase() === bidder.toLowerCase())?.[1];
    const mocked = spec?.mockResponse?.httpCalls;
    if (Array.isArray(mocked) && mocked.length > 0) httpcalls[bidder] = mocked.map(asExtHttpCall);
  }
  const { httpcalls: _recorded, ...rest } = debug;
  return Object.keys(httpcalls).length > 0 ? { ...rest, httpcalls } : rest;
}

/** The expected debug calls written as Prebid Server's harness holds them (`ExtHttpCall` structs). */
function expectedHttpCalls(expected: unknown): unknown {
  if (!expected || typeof expected !== 'object') return expected;
  return Object.fromEntries(Object.entries(expected).map(([bidder, calls]) => [bidder, Array.isArray(calls) ? calls.map(asExtHttpCall) : calls]));
}

/**
 * What Prebid Server's harness compares of the response: `ext.debug` only for a request with `test: 1` (a fixture
 * may state debug output its request does not ask for; the harness leaves it unread), with the debug calls as its
 * mock bidders give them (withHarnessHttpCalls).
 */
interface HarnessView {
  debugCompared: boolean;
  specs: Record<string, BidderSpec>;
  /** `start_time_ms`: the auction's start as the harness fixes it (0 when the fixture gives none). */
  startTimeMs: number;
}

/**
 * `ext.prebid` as Prebid Server's harness writes it: its auction starts at `start_time_ms`, and with none at the Unix
 * epoch, whose `auctiontimestamp` (0) is left out. Gavel's auction without one starts at the request's arrival, a
 * time no fixture can state: that member is left out then.
 */
function withHarnessStart(actual: Json | undefined, view: HarnessView): Json | undefined {
  if (view.startTimeMs > 0 || actual?.auctiontimestamp === undefined) return actual;
  const { auctiontimestamp: _unstated, ...rest } = actual;
  return rest;
}

/** A response `ext`: errors and warnings by message, every other member stated JSON-equal. */
function compareResponseExt(expected: Json, actual: Json | undefined, where: string, view: HarnessView): string[] {
  const diffs: string[] = [];
  for (const [key, value] of Object.entries(expected)) {
    if ((key === 'prebid' || key === 'svc') && value && typeof value === 'object') {
      const compared = withoutNonBidGaps(value as Json, withHarnessStart(actual?.[key], view));
      diffs.push(...diffJson(compared.expected, compared.actual, `${where}.${key}`));
    } else if (key === 'errors' || key === 'warnings') diffs.push(...compareMessages(value as Json, actual?.[key], `${where}.${key}`));
    else if (key === 'debug' && value && typeof value === 'object') {
      if (!view.debugCompared) continue;
      const debug = withHarnessHttpCalls(actual?.debug, view.specs);
      for (const [part, content] of Object.entries(value)) {
        diffs.push(...diffJson(part === 'httpcalls' ? expectedHttpCalls(content) : content, debug?.[part], `${where}.debug.${part}`));
      }
    } else diffs.push(...diffJson(value, actual?.[key], `${where}.${key}`));
  }
  return diffs;
}

function compareBidResponse(expected: Json, actual: Json, view: HarnessView): string[] {
  const diffs: string[] = [];
  for (const key of ['id', 'cur', 'bidid', 'nbr'] as const) {
    if (expected[key] !== undefined && actual[key] !== expected[key]) diffs.push(`response.${key}: expected ${JSON.stringify(expected[key])}, got ${JSON.stringify(actual[key])}`);
  }
  const actualSeats = new Map<string, Json>(((actual.seatbid ?? []) as Json[]).map((seat) => [seat.seat, seat]));
  const expectedSeats = (expected.seatbid ?? []) as Json[];
  if (actualSeats.size !== expectedSeats.length) diffs.push(`response.seatbid: expected seats ${JSON.stringify(expectedSeats.map((s) => s.seat))}, got ${JSON.stringify([...actualSeats.keys()])}`);
  for (const seat of expectedSeats) {
    const found = actualSeats.get(seat.seat);
    if (!found) {
      diffs.push(`response.seatbid[${seat.seat}]: missing`);
      continue;
    }
    // Bids are matched by id, and by id and imp where a bidder reuses an id across imps.
    const actualBids = (found.bid ?? []) as Json[];
    const expectedBids = (seat.bid ?? []) as Json[];
    if (actualBids.length !== expectedBids.length) diffs.push(`response.seatbid[${seat.seat}]: expected ${expectedBids.length} bids, got ${actualBids.length} (${JSON.stringify(actualBids.map((bid) => bid.id))})`);
    const unmatched = [...actualBids];
    for (const bid of expectedBids) {
      const at = unmatched.findIndex((got) => got.id === bid.id && (got.impid === bid.impid || !expectedBids.some((other) => other !== bid && other.id === bid.id)));
      const where = `response.seatbid[${seat.seat}].bid[${bid.id}]`;
      if (at < 0) diffs.push(`${where}: missing`);
      else diffs.push(...compareBid(bid, unmatched.splice(at, 1)[0]!, where));
    }
  }
  if (expected.ext) diffs.push(...compareResponseExt(expected.ext as Json, actual.ext, 'response.ext', view));
  return diffs;
}

/** Compares what the fixture expects with what the auction did. */
export function compareExchangeFixture(fixture: ExchangeFixture, received: Received, status: number, text: string): string[] {
  const diffs: string[] = [];
  const expectedError = fixture.response?.error;
  if (expectedError !== undefined && !fixture.response?.bids) {
    if (status === 200) diffs.push(`status: expected the request refused (${JSON.stringify(expectedError)}), got 200`);
    else if (!text.includes(expectedError)) diffs.push(`body: expected to contain ${JSON.stringify(expectedError)}, got ${JSON.stringify(text.slice(0, 300))}`);
    return diffs;
  }
  if (status !== 200) return [`status: expected 200, got ${status}: ${text.slice(0, 300)}`];
  let actual: Json;
  try {
    actual = JSON.parse(text) as Json;
  } catch {
    return [`body: not JSON: ${text.slice(0, 200)}`];
  }

  const seen = new Set<string>();
  for (const [bidder, spec] of Object.entries(fixture.outgoingRequests)) {
    const got = received.get(bidder) ?? [...received].find(([name]) => name.toLowerCase() === bidder.toLowerCase())?.[1];
    if (got) seen.add(bidder.toLowerCase());
    if (!spec.expectRequest) continue;
    if (!got) {
      diffs.push(`bidder ${bidder}: expected a request, none was sent (errors: ${JSON.stringify(actual.ext?.errors?.[bidder] ?? actual.ext?.warnings ?? null)})`);
      continue;
    }
    if (got.length > 1) diffs.push(`bidder ${bidder}: expected one request, got ${got.length}`);
    // Prebid Server's harness decodes the expected request into openrtb2.BidRequest and compares it, written out, with
    // the one the bidder got: both sides as Go's structs hold them (unknown members gone, zero omitempty fields out).
    diffs.push(...diffJson(asGoHoldsIt(spec.expectRequest.ortbRequest), asGoHoldsIt(got[0]), `request[${bidder}]`));
    if (spec.expectRequest.bidAdjustments !== undefined) {
      diffs.push(...diffJson(spec.expectRequest.bidAdjustments, handedFactors(fixture.incomingRequest.ortbRequest), `bidAdjustments[${bidder}]`));
    }
  }
  for (const bidder of received.keys()) if (!seen.has(bidder.toLowerCase())) diffs.push(`bidder ${bidder}: was sent a request the fixture does not expect`);

  const view: HarnessView = { debugCompared: fixture.incomingRequest.ortbRequest.test === 1, specs: fixture.outgoingRequests, startTimeMs: typeof fixture.start_time_ms === 'number' ? fixture.start_time_ms : 0 };
  if (fixture.response?.bids) diffs.push(...compareBidResponse(fixture.response.bids, actual, view));
  if (fixture.response?.ext) diffs.push(...compareResponseExt(fixture.response.ext, actual.ext, 'response.ext', view));
  return diffs;
}

// ---- running ----------------------------------------------------------------------------------------------------

/** Runs one exchange fixture against an in-process Gavel. */
export async function runExchangeFixture(fixture: ExchangeFixture, name: string): Promise<FixtureOutcome> {
  const received: Received = new Map();
  let notes: string[] = [];
  let app;
  try {
    const installed = await installedPlugins();
    const settings = fixtureSettings(fixture, installed);
    notes = settings.notes;
    const config = checkConfig(settings.config, `exchange fixture ${name}`) as GavelConfig;
    app = await bootGavel(config, { configure: (container) => mockCatalog(container, fixture, received) });
  } catch (err) {
    return { name, ok: false, diffs: [...notes, `boot: ${(err as Error).message}`] };
  }
  try {
    const server = await app.listen(0, '127.0.0.1');
    const cookie = uidsCookie(fixture.incomingRequest.usersyncs, (bidder) => {
      const entry = app.bidders.get(bidder);
      return entry ? syncerKey(entry) : bidder;
    });
    const answer = await postAuction((server.address() as AddressInfo).port, askForNonBids(asRequestTypeRuns(fixture)), cookie);
    const diffs = compareExchangeFixture(fixture, received, answer.status, answer.text);
    return { name, ok: diffs.length === 0, diffs: diffs.length === 0 ? [] : [...notes, ...diffs] };
  } finally {
    await app.close();
  }
}

let installedCache: Promise<Installed> | undefined;

/** The adapters and modules this build installs, discovered once per run. */
function installedPlugins(): Promise<Installed> {
  installedCache ??= import('../../core/plugins/discover.js').then(async ({ discoverPlugins }) => {
    const catalog = await discoverPlugins({});
    return { adapters: new Set([...catalog.adapters.keys()].map((name) => name.toLowerCase())), modules: new Set(catalog.modules.keys()) };
  });
  return installedCache;
}

/** `npm run conformance -- exchange <dir> [<dir>...]` */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  const outcomes: FixtureOutcome[] = [];
  for (const dir of args) {
    for (const file of listFixtureFiles(dir)) {
      const label = `${basename(dir)}/${basename(file)}`;
      let fixture: ExchangeFixture;
      try {
        fixture = JSON.parse(readFileSync(file, 'utf8')) as ExchangeFixture;
      } catch (err) {
        outcomes.push({ name: label, ok: false, diffs: [`unreadable fixture: ${(err as Error).message}`] });
        continue;
      }
      try {
        outcomes.push(await checkWithDeviation(label, fixture, (edited) => runExchangeFixture(edited, label)));
      } catch (err) {
        outcomes.push({ name: label, ok: false, diffs: [`runner error: ${(err as Error).stack}`] });
      }
    }
  }
  return outcomes;
}
