/**
 * The floors module's hooks, Prebid Server's `floors` package on Gavel's stages:
 *   processed-auction-request  the floors are resolved once (fetched data, the account's rules or the request's),
 *                              one model group picked, skip decided, and each imp's floor written to
 *                              `imp.bidfloor`/`bidfloorcur` (and `imp.ext.<ns>.floors`); the resolved rules go to
 *                              the auction's `ext.<ns>.floors` (analytics and the debug answer read them there);
 *   bidder-request             a bidder whose bids are adjusted by a factor is sent its floors divided by it;
 *   all-processed-bid-responses  every bid gets `ext.<ns>.floors`; with enforcement, bids under their imp's floor
 *                              are dropped (non-bid 301, or 304 for a deal) with Prebid Server's warning.
 * A debug answer's resolved request, which the core takes after the processed-auction-request hooks, shows the floors
 * as resolved there, before enforcement (as Prebid Server writes it down before `Enforce`).
 */
import {
  ConversionNotFoundError,
  encodeImpOptionsAsPrebidServer,
  encodeRequestOptionsAsPrebidServer,
  fieldIgnoringCase,
  goCurrencyCodeError,
  isJsonObject,
  NonBidReason,
  withFields,
  WarningCode,
  type AuctionBid,
  type AuctionContext,
  type BidRequest,
  type HookContext,
  type HookResult,
  type Imp,
  type JsonObject,
  type ModuleHooks,
  type RequestPayload,
  type AllBidsPayload,
  type BidderRequestPayload,
} from '../../core/api/index.js';
import { FETCH_DEFAULTS, FloorsFetcher, type FetchSettings, type FetchStatus } from './fetcher.js';
import {
  compileGroup,
  findRule,
  floorCurrency,
  floorParamsError,
  pickModelGroup,
  readFloorRules,
  RequestFields,
  roundFloor,
  shouldSkip,
  validModelGroups,
  type CompiledGroup,
  type FloorData,
  type PriceFloorRules,
} from './rules.js';

/** The module's host config (`modules.prebid.floors.config`). */
export interface FloorsModuleConfig {
  fetcher?: {
    /** Floors URLs kept in memory at most (least recently used dropped first). */
    maxEntries?: number;
  };
}

/** An account's floors settings (`price_floors`), with Gavel's and Prebid Server's defaults. */
export interface AccountFloors {
  enabled: boolean;
  enforceRate: number;
  adjustForBidAdjustment: boolean;
  enforceDealFloors: boolean;
  maxRules: number;
  maxSchemaDims: number;
  /** Set when the account fetches its floors (`use_dynamic_data` and `fetch.enabled` with a URL). */
  fetch?: FetchSettings;
}

/** Bids within a cent under the floor pass, as in Prebid Server. */
const FLOOR_PRECISION = 0.01;
/** `imp.bidfloorcur` when the imp gives none (OpenRTB 2.x). */
const OPENRTB_DEFAULT_CURRENCY = 'USD';

const accountCache = new WeakMap<object, AccountFloors>();
const NO_SETTINGS: Readonly<Record<string, unknown>> = Object.freeze({});

/**
 * The account's floors settings. Floors apply unless the account switches them off (reference-behaviour 13: Prebid
 * Server's account default is off); the other defaults are Prebid Server's.
 */
export function accountFloors(account: Readonly<Record<string, unknown>>): AccountFloors {
  // Kept per `price_floors` object: accounts share it with the host defaults they are merged over.
  const raw = isJsonObject(account.price_floors) ? account.price_floors : NO_SETTINGS;
  let settings = accountCache.get(raw);
  if (settings) return settings;
  const num = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  const fetch = isJsonObject(raw.fetch) ? raw.fetch : {};
  const url = typeof fetch.url === 'string' ? fetch.url : '';
  const fetching = raw.use_dynamic_data === true && fetch.enabled === true && /^https?:\/\//i.test(url);
  settings = {
    enabled: raw.enabled !== false,
    enforceRate: num(raw.enforce_floors_rate, 100),
    adjustForBidAdjustment: raw.adjust_for_bid_adjustment !== false,
    enforceDealFloors: raw.enforce_deal_floors === true,
    maxRules: num(raw.max_rules, 100),
    maxSchemaDims: num(raw.max_schema_dims, 3),
    ...(fetching && {
      fetch: {
        url,
        timeoutMs: num(fetch.timeout_ms, FETCH_DEFAULTS.timeoutMs) || FETCH_DEFAULTS.timeoutMs,
        maxFileSizeKb: num(fetch.max_file_size_kb, FETCH_DEFAULTS.maxFileSizeKb) || FETCH_DEFAULTS.maxFileSizeKb,
        maxRules: num(fetch.max_rules, FETCH_DEFAULTS.maxRules) || FETCH_DEFAULTS.maxRules,
        maxAgeSec: num(fetch.max_age_sec, FETCH_DEFAULTS.maxAgeSec),
        periodSec: num(fetch.period_sec, FETCH_DEFAULTS.periodSec),
        maxSchemaDims: num(fetch.max_schema_dims, FETCH_DEFAULTS.maxSchemaDims),
      },
    }),
  };
  accountCache.set(raw, settings);
  return settings;
}

/** What the module keeps for a request between its stages. */
interface FloorsState {
  rules: PriceFloorRules;
  account: AccountFloors;
  /** Bid adjustment factors by lower-case bidder, when the floors sent to a bidder must be divided by them. */
  factors?: ReadonlyMap<string, number>;
}

const STATE = 'floors';

/** The account's own rules (`hooks.modules.prebid.floors.rules`, same shape as `ext.prebid.floors`), read once per account. */
const accountRulesCache = new WeakMap<object, { rules?: PriceFloorRules; errors: string[] }>();

function accountRules(accountConfig: unknown): { rules?: PriceFloorRules; errors: string[] } {
  if (!isJsonObject(accountConfig)) return { errors: [] };
  let read = accountRulesCache.get(accountConfig);
  if (!read) {
    const errors: string[] = [];
    read = { rules: readFloorRules(accountConfig.rules, 'account hooks.modules.prebid.floors.rules', errors), errors };
    accountRulesCache.set(accountConfig, read);
  }
  return read;
}

/** Compiled model groups of data that outlives the request (fetched files, account rules). */
const compiledGroups = new WeakMap<object, CompiledGroup>();

function compiled(group: FloorData['modelgroups'][number], errors: string[], keep: boolean, known?: ReadonlyMap<object, CompiledGroup>): CompiledGroup {
  const found = known?.get(group) ?? compiledGroups.get(group);
  if (found) return found;
  const made = compileGroup(group, errors);
  if (keep) compiledGroups.set(group, made);
  return made;
}

/** The hooks, around one fetcher; `random` draws the skip, model-group, enforce and fetch-use rates (tests fix it). */
export function createFloorHooks(fetcher: FloorsFetcher, random: () => number = Math.random): ModuleHooks {
  return {
    'processed-auction-request': {
      'resolve-floors': (payload, context) => resolveFloors(payload.request, context, fetcher, random),
    },
    'bidder-request': {
      'adjust-floors': (payload, context) => adjustForBidder(payload, context),
    },
    'all-processed-bid-responses': {
      'enforce-floors': (payload, context) => enforceFloors(payload, context, random),
    },
  };
}

// ---- processed-auction-request ---------------------------------------------------------------------------------

function namespaceExt(request: { ext?: unknown }, ns: string): JsonObject | undefined {
  const ext = isJsonObject(request.ext) ? request.ext[ns] : undefined;
  return isJsonObject(ext) ? ext : undefined;
}

function resolveFloors(request: BidRequest, context: HookContext, fetcher: FloorsFetcher, random: () => number): HookResult<RequestPayload> | undefined {
  const ns = context.namespace;
  const errors: string[] = [];
  const requestRules = readFloorRules(namespaceExt(request, ns)?.floors, `ext.${ns}.floors`, errors);
  const account = accountFloors(context.account);
  if (!account.enabled || requestRules?.enabled === false) {
    // Floors off: the request's rules are ignored, and the answer says so, as Prebid Server's `EnrichWithPriceFloors`
    // does for every auction of a host with floors on (its plain error, code 999).
    errors.push('Floors feature is disabled at account or in the request');
    return { errors: { [ns]: errors.map(unknownError) } };
  }

  // Provider data (fetched, else the account's own rules) wins over the request's, which keeps its enforcement and floor minimum.
  // Prebid Server reports `success` when the fetched file is used and `none` otherwise, a fetch in progress or
  // failed included (`resolveFloors`): the fetcher's own status is for its logs and metrics.
  let fetchStatus: FetchStatus = 'none';
  let provider: { rules: PriceFloorRules; location: string; known?: ReadonlyMap<object, CompiledGroup> } | undefined;
  if (account.fetch) {
    const fetched = fetcher.lookup(account.fetch, context.now());
    const rate = fetched.floors?.data.usefetchdatarate;
    if (fetched.floors && (rate === undefined || Math.floor(random() * 100) < rate)) {
      provider = { rules: { data: fetched.floors.data }, location: 'fetch', known: fetched.floors.compiled };
      fetchStatus = 'success';
    }
  }
  if (!provider) {
    const own = accountRules(context.accountConfig);
    errors.push(...own.errors);
    if (own.rules) provider = { rules: own.rules, location: 'account' };
  }

  const merged = provider ? mergeFloors(requestRules, provider.rules, context) : requestRules;
  const location = provider ? provider.location : requestRules ? 'request' : 'noData';
  const rules = floorsFrom(merged, location, fetchStatus, account, errors, random);

  // The imps' floors.
  const imps = rules.data ? imposeFloors(request, rules, context, errors, random, provider?.known, provider !== undefined) : undefined;
  const factors = account.adjustForBidAdjustment ? adjustmentFactors(request, context) : undefined;
  context.moduleContext[STATE] = { rules, account, factors } satisfies FloorsState;
  // No rules from anywhere (most requests, floors being on by default): the request is left as it is. Prebid Server
  // marks it `{fetchstatus: none, location: noData}`, which only a debug answer shows, so only a debug answer pays
  // for the copy; a plain imp.bidfloor is still enforced from the state above.
  if (!rules.data && errors.length === 0 && !context.debug) return undefined;

  const result: HookResult<RequestPayload> = {
    action: 'update',
    changes: [
      (change) => {
        const ext = isJsonObject(change.request.ext) ? change.request.ext : {};
        // Prebid Server writes `ext.prebid` back through its struct once it has set the floors (`SetPrebid`): members
        // the struct does not have, and zero `omitempty` ones, are gone from then on.
        const own = encodeRequestOptionsAsPrebidServer(withFields(namespaceExt(change.request, ns) ?? {}, { floors: rules }));
        change.request = withFields(change.request, { ...(imps && { imp: imps }), ext: withFields(ext, { [ns]: own }) });
      },
    ],
  };
  if (errors.length > 0) result.errors = { [ns]: errors.map(unknownError) };
  return result;
}

const unknownError = (message: string) => ({ code: 999, message });

/** Prebid Server's `mergeFloors`: the provider's rules, with the request's enforcement, floor minimum and endpoint. */
function mergeFloors(request: PriceFloorRules | undefined, provider: PriceFloorRules, context: AuctionContext): PriceFloorRules {
  const merged: PriceFloorRules = withFields(provider, { enabled: (provider.enabled ?? true) && (request?.enabled ?? true) });
  if (!request) return merged;
  if (request.enforcement) merged.enforcement = { ...request.enforcement };
  const min = floorMinOf(request, provider, context);
  if (min.floormin > 0) {
    merged.floormin = min.floormin;
    merged.floormincur = min.floormincur;
  }
  if (request.floorendpoint?.url) merged.floorendpoint = { ...request.floorendpoint };
  return merged;
}

/** Prebid Server's `resolveFloorMin`: the request's floor minimum first, the provider's converted to its currency. */
function floorMinOf(request: PriceFloorRules, provider: PriceFloorRules, context: AuctionContext): { floormin: number; floormincur: string } {
  const requestMin = request.floormin ?? 0;
  const requestCur = request.floormincur || request.data?.currency || '';
  const providerMin = provider.floormin ?? 0;
  const providerCur = provider.floormincur || provider.data?.currency || '';
  if (requestCur !== '') {
    if (requestMin > 0) return { floormin: requestMin, floormincur: requestCur };
    if (providerMin > 0) {
      if (providerCur === requestCur || providerCur === '') return { floormin: providerMin, floormincur: requestCur };
      // Go's `GetRate`: two spellings of one code are the same currency; no rate leaves no floor minimum.
      const rate = goConversionRate(providerCur, requestCur, context);
      return { floormin: typeof rate === 'string' ? 0 : roundFloor(rate * providerMin), floormincur: requestCur };
    }
  }
  if (providerCur !== '') {
    if (providerMin > 0) return { floormin: providerMin, floormincur: providerCur };
    if (requestMin > 0) return { floormin: requestMin, floormincur: providerCur };
  }
  return { floormin: requestMin, floormincur: requestCur };
}

/** Prebid Server's `createFloorsFrom`: checked rules with one model group, where they came from and the fetch status. */
function floorsFrom(floors: PriceFloorRules | undefined, location: string, fetchStatus: FetchStatus, account: AccountFloors, errors: string[], random: () => number): PriceFloorRules {
  const base: PriceFloorRules = { fetchstatus: fetchStatus, location };
  if (!floors) return base;
  const invalid = floorParamsError(floors);
  if (invalid) {
    errors.push(invalid);
    return base;
  }
  const enforced: PriceFloorRules = floors.enforcement ? { fetchstatus: fetchStatus, location, enforcement: floors.enforcement } : base;
  if (!floors.data) return enforced;
  const valid = validModelGroups(floors.data.modelgroups, { maxSchemaDims: account.maxSchemaDims, maxRules: account.maxRules }, errors);
  if (valid.length === 0) return enforced;
  const data = withFields(floors.data, { modelgroups: [pickModelGroup(valid, random)] });
  if (valid.length > 1 && data.modelgroups[0]!.modelweight === undefined) weightDefaulted.add(data);
  return withFields(floors, { data, location, fetchstatus: fetchStatus });
}

/**
 * Floor data whose chosen model group had no weight among several: Prebid Server gives such groups weight 1 in
 * place before drawing one, so the request's floors show it (the group itself stays as it came, for the cache of
 * compiled groups, which is keyed by it).
 */
const weightDefaulted = new WeakSet<object>();

/** Prebid Server's `updateBidRequestWithFloors`: each imp's floor from the chosen group, unless floors are skipped. */
function imposeFloors(
  request: BidRequest,
  rules: PriceFloorRules,
  context: AuctionContext,
  errors: string[],
  random: () => number,
  known: ReadonlyMap<object, CompiledGroup> | undefined,
  lasting: boolean,
): Imp[] | undefined {
  const data = rules.data!;
  const group = data.modelgroups[0]!;
  if (weightDefaulted.has(data)) data.modelgroups[0] = withFields(group, { modelweight: 1 });
  rules.skipped = shouldSkip(group, data, rules, random);
  if (rules.skipped) return undefined;
  const lookup = compiled(group, errors, lasting, known);
  // The request's rules as Prebid Server leaves them once checked (its debug output shows them so).
  if (lookup.checkedValues) data.modelgroups[0] = withFields(data.modelgroups[0]!, { values: lookup.checkedValues });
  // Prebid Server applies no floor (not even the default) when the group has no valid rule.
  if (lookup.values.size === 0) return undefined;
  const ns = context.namespace;
  const currency = floorCurrency(group, data);
  const fields = new RequestFields(request, ns);
  let imps: Imp[] | undefined;
  request.imp.forEach((imp, i) => {
    const match = findRule(lookup, fields.values(lookup.fields, imp));
    const ruleValue = match ? match.value : (group.default ?? 0);
    if (ruleValue === 0) return;
    const min = impFloorMin(rules, imp, ns, currency, context);
    if (typeof min === 'string') {
      errors.push(min);
      return;
    }
    const value = roundFloor(ruleValue);
    const bidfloor = min > 0 && value < min ? min : value;
    const updated: Imp = withFields(imp, { bidfloor, bidfloorcur: currency });
    if (match) {
      const ext = isJsonObject(imp.ext) ? imp.ext : {};
      const own = isJsonObject(ext[ns]) ? ext[ns] : {};
      // Prebid Server writes the imp's `ext.prebid` back through its struct (`ImpExt.SetPrebid`): the floors it sets
      // replace the request's (`floorMin` gone), and members the struct does not know are dropped.
      const floors = { floorrule: match.rule, floorrulevalue: value, floorvalue: bidfloor };
      updated.ext = withFields(ext, { [ns]: encodeImpOptionsAsPrebidServer(withFields(own, { floors })) as JsonObject });
    }
    (imps ??= request.imp.slice())[i] = updated;
  });
  return imps;
}

/** Prebid Server's `getMinFloorValue`: the imp's floor minimum (else the rules'), in the floors' currency; a string is an error. */
function impFloorMin(rules: PriceFloorRules, imp: Imp, ns: string, currency: string, context: AuctionContext): number | string {
  let min = roundFloor(rules.floormin ?? 0);
  let minCurrency = rules.floormincur ?? '';
  const own = isJsonObject(imp.ext?.[ns]) ? (imp.ext![ns] as JsonObject) : undefined;
  const impFloors = isJsonObject(own?.floors) ? own.floors : undefined;
  if (impFloors) {
    // Go decodes these members ignoring case (`floorMin`, `floorMinCur` as Prebid.js writes them).
    const impMin = fieldIgnoringCase(impFloors, 'floormin');
    const impCur = fieldIgnoringCase(impFloors, 'floormincur');
    if (typeof impMin === 'number' && impMin > 0) min = impMin;
    if (typeof impCur === 'string' && impCur !== '') minCurrency = impCur;
  }
  if (min > 0 && minCurrency !== '' && minCurrency !== currency) {
    const rate = goConversionRate(minCurrency, currency, context);
    if (typeof rate === 'string') return `Error in getting FloorMin value : '${rate}'`;
    min = rate * min;
  }
  return roundFloor(min);
}

/** The request's bid adjustment factors by lower-case bidder (over the account's), when any differs from 1. */
function adjustmentFactors(request: BidRequest, context: AuctionContext): ReadonlyMap<string, number> | undefined {
  let factors: Map<string, number> | undefined;
  const add = (source: unknown): void => {
    if (!isJsonObject(source)) return;
    for (const bidder in source) {
      const factor = source[bidder];
      if (Object.hasOwn(source, bidder) && typeof factor === 'number' && factor !== 0) (factors ??= new Map()).set(bidder.toLowerCase(), factor);
    }
  };
  add(context.account.bidadjustmentfactors);
  add(namespaceExt(request, context.namespace)?.bidadjustmentfactors);
  if (factors) for (const [bidder, factor] of factors) if (factor === 1) factors.delete(bidder);
  return factors && factors.size > 0 ? factors : undefined;
}

// ---- bidder-request --------------------------------------------------------------------------------------------

/** Prebid Server's `applyBidAdjustmentToFloor`: the bidder's floors divided by its bid adjustment factor. */
function adjustForBidder(payload: Readonly<BidderRequestPayload>, context: HookContext): HookResult<BidderRequestPayload> | undefined {
  const state = context.moduleContext[STATE] as FloorsState | undefined;
  // Prebid Server looks the bidder up as the request names it among factors keyed in lower case
  // (`applyBidAdjustmentToFloor`), so a bidder spelt with capitals keeps its floors as they are.
  const factor = state?.factors?.get(payload.bidder);
  if (factor === undefined || !payload.request.imp.some((imp) => (imp.bidfloor ?? 0) > 0)) return undefined;
  return {
    action: 'update',
    changes: [
      (share) => {
        share.request = withFields(share.request, { imp: share.request.imp.map((imp) => ((imp.bidfloor ?? 0) > 0 ? withFields(imp, { bidfloor: imp.bidfloor! / factor }) : imp)) });
      },
    ],
  };
}

// ---- all-processed-bid-responses -------------------------------------------------------------------------------

/** `ext.<ns>.floors` of a bid, Prebid Server's `ExtBidPrebidFloors` (its zero members left out, as Go omits them). */
interface BidFloors {
  floorRule?: string;
  floorRuleValue?: number;
  floorValue?: number;
  floorCurrency?: string;
}

/** An imp's floor as signalled: what its bids are held to and report. */
interface ImpFloor {
  floor: number;
  /**
   * The floor's currency: `imp.bidfloorcur`, or OpenRTB's default USD when the imp gives none. (Prebid Server gives
   * such a floor no currency and drops every bid of the imp for want of a rate; with floors on by default, Gavel
   * keeps OpenRTB's reading.) A code that is no ISO 4217 code has no rate, as in Prebid Server.
   */
  currency: string;
  report?: BidFloors;
  /** Units of the floor's currency one unit of the auction's is worth, or why there is no such rate (Go's words). */
  rate?: number | string;
}

/** The members of a bid's floors report that Go's `omitempty` keeps. */
function bidFloors(rule: unknown, ruleValue: unknown, value: unknown, currency: string): BidFloors {
  const report: BidFloors = {};
  if (typeof rule === 'string' && rule !== '') report.floorRule = rule;
  if (typeof ruleValue === 'number' && ruleValue !== 0) report.floorRuleValue = ruleValue;
  if (typeof value === 'number' && value !== 0) report.floorValue = value;
  if (currency !== '') report.floorCurrency = currency;
  return report;
}

/**
 * Each imp's floor, and what its bids report (Prebid Server's `updateBidExtWithFloors`): the imp's
 * `ext.<ns>.floors` when it has one (what a rule set, else what the request put there, which reports no value), else
 * a positive `imp.bidfloor`.
 */
function impFloors(request: BidRequest, ns: string): Map<string, ImpFloor> | undefined {
  let any = false;
  const floors = new Map<string, ImpFloor>();
  for (const imp of request.imp) {
    const floor = typeof imp.bidfloor === 'number' && imp.bidfloor > 0 ? imp.bidfloor : 0;
    if (floor > 0) any = true;
    const given = typeof imp.bidfloorcur === 'string' ? imp.bidfloorcur : '';
    const own = isJsonObject(imp.ext?.[ns]) ? (imp.ext![ns] as JsonObject) : undefined;
    const applied = isJsonObject(own?.floors) ? own.floors : undefined;
    let report: BidFloors | undefined;
    // Go decodes these members ignoring case (`floorRule`, `floorValue` as a request may spell them).
    if (applied) report = bidFloors(fieldIgnoringCase(applied, 'floorrule'), fieldIgnoringCase(applied, 'floorrulevalue'), fieldIgnoringCase(applied, 'floorvalue'), given);
    else if (floor > 0) report = bidFloors(undefined, undefined, floor, given);
    floors.set(imp.id, { floor, currency: given === '' ? OPENRTB_DEFAULT_CURRENCY : given, report });
  }
  return any ? floors : undefined;
}

/**
 * Prebid Server's `getCurrencyConversionRate` from the auction's currency (the bids' by now) to an imp's floor
 * currency: 1 when they are spelt the same, else Go's `GetRate`, which refuses a code that is not ISO 4217 (an empty
 * `bidfloorcur` among them) before it looks for a rate. Worked out once per imp.
 */
function rateToFloor(floor: ImpFloor, context: HookContext): number | string {
  const from = context.currency;
  const to = floor.currency;
  if (from === to) return 1;
  return goConversionRate(from, to, context);
}

/**
 * Go's `Conversions.GetRate`: each code parsed as ISO 4217 first (its parser's error when one is not), 1 between two
 * spellings of one currency, else the auction's rate or `ConversionNotFoundError`'s text.
 */
function goConversionRate(from: string, to: string, context: AuctionContext): number | string {
  const invalid = goCurrencyCodeError(from) ?? goCurrencyCodeError(to);
  if (invalid) return invalid;
  const fromUnit = from.toUpperCase();
  const toUnit = to.toUpperCase();
  if (fromUnit === toUnit) return 1;
  return context.convertCurrency(1, fromUnit, toUnit) ?? new ConversionNotFoundError(fromUnit, toUnit).message;
}

function enforceFloors(payload: Readonly<AllBidsPayload>, context: HookContext, random: () => number): HookResult<AllBidsPayload> | undefined {
  const state = context.moduleContext[STATE] as FloorsState | undefined;
  if (!state || state.rules.skipped === true) return undefined;
  const ns = context.namespace;
  const floors = impFloors(payload.request, ns);
  if (!floors) return undefined;

  const { rules, account } = state;
  // Prebid Server's `isSatisfiedByEnforceRate`: one draw (0..99) against the request's rate and the account's.
  const draw = Math.floor(random() * 100);
  const requestRate = rules.enforcement?.enforcerate ?? 0;
  const enforce = (requestRate === 0 || draw < requestRate) && (account.enforceRate === 0 || draw < account.enforceRate);
  const enforcePbs = enforce && (rules.enforcement?.enforcepbs ?? true);
  if ((rules.enforcement?.enforcepbs ?? true) !== enforcePbs) rules.enforcement = { ...rules.enforcement, enforcepbs: enforcePbs };
  const dealFloors = account.enforceDealFloors && rules.enforcement?.floordeals === true;

  const reports: Array<[AuctionBid, BidFloors]> = [];
  const dropped = new Set<AuctionBid>();
  for (const seat of payload.seats) {
    for (const bid of seat.bids) {
      const floor = floors.get(bid.bid.impid);
      if (!floor) {
        // Prebid Server's enforcement passes over a bid for an imp the request does not have, leaving it out unreported.
        if (enforce) dropped.add(bid);
        continue;
      }
      if (floor.report) reports.push([bid, floor.report]);
      if (!enforcePbs || (bid.bid.dealid && !dealFloors)) continue;
      const rate = (floor.rate ??= rateToFloor(floor, context));
      // Prebid Server names the seat the bid came under (an alternate bidder code's own name), not its bidder.
      const seatName = bid.seat ?? seat.bidder;
      if (typeof rate === 'string') {
        // Prebid Server drops a bid it cannot compare with its floor, with an error (not as a non-bid).
        dropped.add(bid);
        context.fail(ns, unknownError(`error in rate conversion from = ${context.currency} to ${floor.currency} with bidder ${seatName} for impression id ${bid.bid.impid} and bid id ${bid.bid.id} error = ${rate}`));
        continue;
      }
      if (bid.bid.price * rate + FLOOR_PRECISION < floor.floor) {
        dropped.add(bid);
        context.warn(ns, {
          code: WarningCode.FloorBidRejection,
          message: `${seatName} bid id ${bid.bid.id} rejected - bid price ${goFixed4(bid.bid.price)} ${context.currency} is less than bid floor ${goFixed4(floor.report?.floorValue ?? 0)} ${floor.report?.floorCurrency ?? floor.currency} for imp ${bid.bid.impid}`,
        });
        context.rejectBid(bid, bid.bid.dealid ? NonBidReason.ResponseRejectedBelowDealFloor : NonBidReason.ResponseRejectedBelowFloor);
      }
    }
  }
  if (reports.length === 0 && dropped.size === 0) return undefined;
  return {
    action: 'update',
    changes: [
      (all) => {
        // The bids are the auction's (the response is built from them in place): their ext is edited in place.
        for (const [bid, report] of reports) {
          let ext = bid.bid.ext;
          if (!isJsonObject(ext)) bid.bid.ext = ext = {};
          let own = ext[ns];
          if (!isJsonObject(own)) ext[ns] = own = {};
          (own as JsonObject).floors = report;
        }
        if (dropped.size > 0) for (const seat of all.seats) if (seat.bids.some((bid) => dropped.has(bid))) seat.bids = seat.bids.filter((bid) => !dropped.has(bid));
      },
    ],
    messages: dropped.size > 0 ? [`${dropped.size} bid(s) under the floor dropped`] : undefined,
  };
}

/**
 * A number with 4 decimals as Go's `%.4f` writes it: rounded from its exact binary value, an exact tie to even
 * (1.03125 is `1.0312`), where `toFixed` rounds a tie up.
 */
export function goFixed4(value: number): string {
  const fixed = value.toFixed(4);
  if (!Number.isFinite(value) || !isExactTie(value, 4)) return fixed;
  const scaled = Math.abs(value) * 1e4;
  const lower = Math.floor(scaled);
  const even = lower % 2 === 0 ? lower : lower + 1;
  return `${value < 0 ? '-' : ''}${(even / 1e4).toFixed(4)}`;
}

/** Whether `value` (exactly, as the double it is) lies halfway between two multiples of 10^-digits. */
function isExactTie(value: number, digits: number): boolean {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(value));
  const bits = view.getBigUint64(0);
  const exponentBits = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = exponentBits === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (exponentBits === 0 ? 1 : exponentBits) - 1075;
  if (exponent >= 0) return false;
  const denominator = 1n << BigInt(-exponent);
  const numerator = mantissa * 10n ** BigInt(digits);
  return numerator % denominator === denominator / 2n;
}
