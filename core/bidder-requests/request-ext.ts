import { isJsonObject, type AccountSettings } from '../api/index.js';

type Json = Record<string, unknown>;

/**
 * Members of `ext.<ns>` every bidder receives (Prebid Server's allowed list, exchange/utils.go), each written as Go
 * writes its struct: the members the struct has, under its names, those without `omitempty` even when absent.
 */
const SHARED_MEMBERS: ReadonlyArray<readonly [name: string, write: (value: Json) => Json]> = [
  ['channel', (channel) => ({ name: stringOrEmpty(channel.name), version: stringOrEmpty(channel.version) })],
  ['currency', (currency) => ({ rates: currency.rates ?? null, usepbsrates: currency.usepbsrates ?? null })],
  ['sdk', (sdk) => (Array.isArray(sdk.renderers) && sdk.renderers.length > 0 ? { renderers: sdk.renderers.map(sdkRenderer) } : {})],
  // The request's own, when the host has no identity of its own to put there (which then replaces it).
  ['server', (server) => ({ externalurl: stringOrEmpty(server.externalurl), gvlid: typeof server.gvlid === 'number' ? server.gvlid : 0, datacenter: stringOrEmpty(server.datacenter) })],
];

function stringOrEmpty(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `ExtRequestSdkRenderer`: name, version and data, each left out when empty. */
function sdkRenderer(renderer: unknown): Json {
  const written: Json = {};
  if (!isJsonObject(renderer)) return written;
  if (typeof renderer.name === 'string' && renderer.name !== '') written.name = renderer.name;
  if (typeof renderer.version === 'string' && renderer.version !== '') written.version = renderer.version;
  if (renderer.data !== undefined && renderer.data !== null) written.data = renderer.data;
  return written;
}

/** `ExtIncludeBrandCategory`: `withcategory` always, the rest when set. */
function brandCategory(category: Json): Json {
  const written: Json = {};
  if (typeof category.primaryadserver === 'number' && category.primaryadserver !== 0) written.primaryadserver = category.primaryadserver;
  if (typeof category.publisher === 'string' && category.publisher !== '') written.publisher = category.publisher;
  written.withcategory = category.withcategory === true;
  if (typeof category.translatecategories === 'boolean') written.translatecategories = category.translatecategories;
  return written;
}

/** `ExtMultiBid`: its four members, each left out when empty. */
function multibidEntry(entry: Json): Json {
  const written: Json = {};
  if (typeof entry.bidder === 'string' && entry.bidder !== '') written.bidder = entry.bidder;
  if (Array.isArray(entry.bidders) && entry.bidders.length > 0) written.bidders = entry.bidders;
  if (typeof entry.maxbids === 'number') written.maxbids = entry.maxbids;
  if (typeof entry.targetbiddercodeprefix === 'string' && entry.targetbiddercodeprefix !== '') written.targetbiddercodeprefix = entry.targetbiddercodeprefix;
  return written;
}

/** What the request's `ext.<ns>` gives every bidder, read once per auction. */
export interface RequestExtPlan {
  namespace: string;
  /** `request.ext` without the namespace: passed on untouched. Undefined when it holds nothing else. */
  rest: Json | undefined;
  /** `request.ext.<ns>`, when the request has one. */
  options: Json | undefined;
  /** The host's identity (`ext.<ns>.server`), which replaces the request's own. */
  server: Json | undefined;
  /** Alternate bidder codes: the request's, else the account's. */
  alternateCodes: Json | undefined;
  /** What of `ext.<ns>` every bidder receives alike, written once (see SHARED_MEMBERS); undefined when nothing. */
  shared: Json | undefined;
  /** True when no bidder's ext differs from the request's: nothing to build per bidder. */
  unchanged: boolean;
}

export function planRequestExt(ext: unknown, namespace: string, account: AccountSettings, server: Json | undefined): RequestExtPlan {
  const all = isJsonObject(ext) ? ext : undefined;
  const options = all && isJsonObject(all[namespace]) ? (all[namespace] as Json) : undefined;
  let rest: Json | undefined;
  if (all) for (const key of Object.keys(all)) if (key !== namespace) (rest ??= {})[key] = all[key];
  const alternateCodes = isJsonObject(options?.alternatebiddercodes) ? options!.alternatebiddercodes : isJsonObject(account.alternatebiddercodes) ? account.alternatebiddercodes : undefined;
  return {
    namespace,
    rest,
    options,
    server,
    alternateCodes: alternateCodes as Json | undefined,
    shared: options ? sharedMembers(options) : undefined,
    unchanged: options === undefined && server === undefined && alternateCodes === undefined,
  };
}

/**
 * The `ext` one bidder receives: the request's other members as they are, and in `ext.<ns>` only what Prebid Server
 * lets a bidder see: its own `bidderparams` entry, its own alias, the alternate codes and multibid entries that
 * concern it, `channel`, `currency`, `debug`, `integration`, `sdk`, the host's `server`, and of `targeting` only
 * `includebrandcategory`. The rest (other bidders' params and aliases, targeting, caching, floors, schains, first
 * party data...) stays with the auction. Undefined when nothing is left.
 */
function sharedMembers(options: Json): Json | undefined {
  let shared: Json | undefined;
  for (const [name, write] of SHARED_MEMBERS) {
    const value = options[name];
    if (isJsonObject(value)) (shared ??= {})[name] = write(value);
  }
  if (options.debug === true) (shared ??= {}).debug = true;
  if (typeof options.integration === 'string' && options.integration !== '') (shared ??= {}).integration = options.integration;
  return shared;
}

/**
 * `adapter`: the host bidder serving `bidder`. Its `bidderparams` entry is the one under its exact name. A bidder that is a request alias gets its entry naming that host
 * bidder as the host names it, however the request spelled it (`AppNexus` goes as `appnexus`): Prebid Server's
 * validation writes the core bidder's name into the aliases it passes on.
 */
export function requestExtFor(plan: RequestExtPlan, bidder: string, adapter: string): Json | undefined {
  const { options } = plan;
  const own: Json = {};
  if (options) {
    // Matched as the request spells the bidder, case included: Prebid Server looks its entry up by the exact name.
    const params = isJsonObject(options.bidderparams) && Object.hasOwn(options.bidderparams, bidder) ? options.bidderparams[bidder] : undefined;
    if (params !== undefined) own.bidderparams = params;
    const alias = isJsonObject(options.aliases) ? options.aliases[bidder] : undefined;
    if (alias !== undefined) own.aliases = { [bidder]: typeof alias === 'string' && alias.toLowerCase() === adapter ? adapter : alias };
  }
  const codes = plan.alternateCodes ? alternateCodesFor(plan.alternateCodes, bidder) : undefined;
  if (codes) own.alternatebiddercodes = codes;
  if (plan.shared) Object.assign(own, plan.shared);
  if (options) {
    const multibid = Array.isArray(options.multibid) ? multibidFor(options.multibid, bidder, codes) : undefined;
    if (multibid) own.multibid = multibid;
    const category = isJsonObject(options.targeting) ? options.targeting.includebrandcategory : undefined;
    if (isJsonObject(category)) own.targeting = { includebrandcategory: brandCategory(category) };
  }
  if (plan.server) own.server = plan.server;

  const hasOwn = Object.keys(own).length > 0;
  if (!hasOwn) return plan.rest;
  return { ...plan.rest, [plan.namespace]: own };
}

/** A map's entry for a bidder: its exact name first, then ignoring case (Prebid Server's lookups). */
function valueFor(map: Json, bidder: string): unknown {
  if (Object.hasOwn(map, bidder)) return map[bidder];
  const lower = bidder.toLowerCase();
  for (const key of Object.keys(map)) if (key.toLowerCase() === lower) return map[key];
  return undefined;
}

/**
 * `{enabled, bidders}` with only this bidder's entry (`bidders: null` when it has none), as Prebid Server writes its
 * structs: the entry is `{enabled, allowedbiddercodes}`, both always written (a list not given is `null`), and nothing
 * else the request put there.
 */
function alternateCodesFor(codes: Json, bidder: string): Json {
  const entry = isJsonObject(codes.bidders) ? valueFor(codes.bidders, bidder) : undefined;
  return { enabled: codes.enabled === true, bidders: entry === undefined ? null : { [bidder]: alternateCodesEntry(entry) } };
}

function alternateCodesEntry(entry: unknown): Json {
  const own = isJsonObject(entry) ? entry : {};
  return { enabled: own.enabled === true, allowedbiddercodes: Array.isArray(own.allowedbiddercodes) ? own.allowedbiddercodes : null };
}

/**
 * The multibid entries for one bidder: an entry naming it (`bidder`), or one of its `bidders` (split into an entry of
 * its own with the same `maxbids`), or naming a code this bidder may bid under (alternate bidder codes).
 */
function multibidFor(entries: unknown[], bidder: string, codes: Json | undefined): Json[] | undefined {
  const allowed = allowedCodes(codes, bidder);
  // Prebid Server lower-cases the entry's name and compares it with the bidder's as the imp spells it: a bidder named
  // with capitals (`AppNexus`) matches no entry by name.
  const concerns = (name: unknown) => typeof name === 'string' && (name.toLowerCase() === bidder || allowed.has('*') || allowed.has(name.toLowerCase()));
  const own: Json[] = [];
  for (const entry of entries) {
    if (!isJsonObject(entry)) continue;
    if (typeof entry.bidder === 'string' && entry.bidder !== '') {
      if (concerns(entry.bidder)) own.push(multibidEntry(entry));
    } else if (Array.isArray(entry.bidders)) {
      for (const name of entry.bidders) {
        if (!concerns(name)) continue;
        const split: Json = { bidders: [name] };
        if (entry.maxbids !== undefined) split.maxbids = entry.maxbids;
        own.push(split);
      }
    }
  }
  return own.length > 0 ? own : undefined;
}

/**
 * The codes this bidder may bid under, as written: Prebid Server matches a multibid name, lower-cased, against them
 * exactly, so a code written with capitals never matches.
 */
function allowedCodes(codes: Json | undefined, bidder: string): Set<string> {
  const bidders = codes && isJsonObject(codes.bidders) ? codes.bidders : undefined;
  const entry = bidders ? bidders[bidder] : undefined;
  const list = isJsonObject(entry) && Array.isArray(entry.allowedbiddercodes) ? entry.allowedbiddercodes : [];
  return new Set(list.filter((code): code is string => typeof code === 'string'));
}
