import { isJsonObject, mergeOpenrtb2Member, openrtb2DecodeProblem, withoutNulls, type BidRequest, type JsonObject } from '../api/index.js';

type Json = Record<string, unknown>;

/**
 * One bidder's OpenRTB overrides from `ext.<ns>.bidderconfig[].config.ortb2`: any JSON but `null` (Prebid Server
 * holds them raw; one that is not an object fails its merge).
 */
interface BidderFpd {
  site?: unknown;
  app?: unknown;
  user?: unknown;
  device?: unknown;
}

/**
 * First-party data per bidder, read once per auction (Prebid Server's firstpartydata/):
 * - `ext.<ns>.data.bidders`: only these bidders receive the request's global first-party data (`site.ext.data`,
 *   `app.ext.data`, `user.ext.data`, `user.data`, `site.content.data`, `app.content.data`) and their own bidder
 *   config; every other bidder gets the request without it. Without the list, every bidder gets the request's data.
 * - `ext.<ns>.bidderconfig: [{bidders, config: {ortb2: {site, app, user, device}}}]`: merged over the request for
 *   those bidders as Prebid Server's MergeClone lays JSON over its structs (objects member by member, lists and
 *   values replaced, `ext` merged as a JSON merge patch; see mergeOpenrtb2Member).
 */
export interface FpdPlan {
  /** Lower-case names of `data.bidders`; undefined when the request gives no list. */
  listed: ReadonlySet<string> | undefined;
  /** By lower-case bidder name. */
  configs: ReadonlyMap<string, BidderFpd>;
  /**
   * The request's `user.ext` has `<ns>` (buyer ids): Prebid Server then writes every bidder's `user.ext` back from the
   * request's (less `<ns>`, and less `data` once `data.bidders` took it out), over the one its first-party data made.
   */
  userExtRewritten: boolean;
}

export function planFirstPartyData(request: BidRequest, options: Json | undefined, namespace: string): FpdPlan | { errors: string[] } | undefined {
  // Most requests have neither: decided without allocating anything.
  if (!isJsonObject(options?.data) && !Array.isArray(options?.bidderconfig)) return undefined;
  const data = isJsonObject(options?.data) ? options!.data : undefined;
  const listed = Array.isArray(data?.bidders) ? new Set(data!.bidders.filter((name): name is string => typeof name === 'string').map((name) => name.toLowerCase())) : undefined;
  const configs = new Map<string, BidderFpd>();
  if (Array.isArray(options?.bidderconfig)) {
    for (const entry of options!.bidderconfig) {
      if (!isJsonObject(entry) || !Array.isArray(entry.bidders)) continue;
      const ortb2 = isJsonObject(entry.config) && isJsonObject(entry.config.ortb2) ? entry.config.ortb2 : {};
      const fpd: BidderFpd = {};
      for (const part of ['site', 'app', 'user', 'device'] as const) if (ortb2[part] !== undefined && ortb2[part] !== null) fpd[part] = ortb2[part];
      for (const bidder of entry.bidders) {
        if (typeof bidder !== 'string') continue;
        const key = bidder.toLowerCase();
        if (configs.has(key)) return { errors: [`multiple First Party Data bidder configs provided for bidder: ${bidder}`] };
        configs.set(key, fpd);
      }
    }
  }
  if (!listed && configs.size === 0) return undefined;
  const userExt = request.user?.ext;
  const plan: FpdPlan = { listed, configs, userExtRewritten: isJsonObject(userExt) && isJsonObject(userExt[namespace]) };
  const errors = checkResolvable(request, plan);
  // Prebid Server answers every problem in one 400 line, joined by commas.
  return errors.length > 0 ? { errors: [errors.join(',')] } : plan;
}

/** Prebid Server resolves every bidder's data up front, so a bad config is the request's error even for a bidder not bid on. */
function checkResolvable(request: BidRequest, plan: FpdPlan): string[] {
  const errors: string[] = [];
  const bidders = plan.listed ?? new Set(plan.configs.keys());
  for (const bidder of bidders) {
    const fpd = plan.configs.get(bidder);
    if (!fpd) continue;
    // Prebid Server's order: user, app, site, device. A config its struct cannot take (a member of the wrong JSON
    // type) fails its merge.
    if (fpd.user !== undefined && undecodable('user', fpd.user)) errors.push(BAD_FPD);
    if (fpd.app !== undefined) {
      if (!isJsonObject(request.app)) errors.push(`incorrect First Party Data for bidder ${bidder}: App object is not defined in request, but defined in FPD config`);
      else if (undecodable('app', fpd.app)) errors.push(BAD_FPD);
    }
    if (fpd.site !== undefined) {
      if (!isJsonObject(request.site)) errors.push(`incorrect First Party Data for bidder ${bidder}: Site object is not defined in request, but defined in FPD config`);
      else if (undecodable('site', fpd.site)) errors.push(BAD_FPD);
      else {
        const site = mergeOpenrtb2Member('site', request.site, fpd.site as Json);
        if (!site.id && !site.page) errors.push(`incorrect First Party Data for bidder ${bidder}: Site object cannot set empty page if req.site.id is empty`);
      }
    }
    if (fpd.device !== undefined) {
      if (undecodable('device', fpd.device)) errors.push(BAD_FPD);
      else errors.push(...deviceProblems(mergeOpenrtb2Member('device', isJsonObject(request.device) ? request.device : undefined, fpd.device as Json)));
    }
  }
  return errors;
}

/** Prebid Server's message for a bidder config its merge cannot take (firstpartydata.ErrBadFPD). */
const BAD_FPD = 'invalid first party data ext';

/** True when the OpenRTB object `part` of a request could not hold this config (Prebid Server's merge fails). */
function undecodable(part: 'site' | 'app' | 'user' | 'device', config: unknown): boolean {
  return !isJsonObject(config) || openrtb2DecodeProblem({ [part]: config } as JsonObject) !== undefined;
}

function deviceProblems(device: Json): string[] {
  const problems: string[] = [];
  for (const field of ['w', 'h', 'ppi'] as const) {
    if (typeof device[field] === 'number' && (device[field] as number) < 0) problems.push(`request.device.${field} must be a positive number`);
  }
  const geo = device.geo;
  if (isJsonObject(geo) && typeof geo.accuracy === 'number' && geo.accuracy < 0) problems.push('request.device.geo.accuracy must be a positive number');
  return problems;
}

/**
 * `holder` without its global first-party data: `ext.data`, and `content.data` of a site or app, `data` of a user
 * (kind `ext`: `ext.data` only) (a copy; the same object when it has none).
 */
function withoutGlobalData(holder: unknown, kind: 'site' | 'user' | 'ext'): unknown {
  if (!isJsonObject(holder)) return holder;
  const ext = isJsonObject(holder.ext) ? holder.ext : undefined;
  const hasExtData = ext !== undefined && ext.data !== undefined;
  const hasOwnData = kind === 'ext' ? false : kind === 'user' ? holder.data !== undefined : isJsonObject(holder.content) && holder.content.data !== undefined;
  if (!hasExtData && !hasOwnData) return holder;
  const copy: Json = { ...holder };
  if (hasExtData) {
    const { data: _data, ...restExt } = ext!;
    if (Object.keys(restExt).length > 0) copy.ext = restExt;
    else delete copy.ext;
  }
  if (hasOwnData) {
    if (kind === 'user') delete copy.data;
    else {
      const { data: _data, ...restContent } = holder.content as Json;
      copy.content = restContent;
    }
  }
  return copy;
}

/**
 * Applies the plan to one bidder's request (its own copy of the top level): a bidder left out of `data.bidders`
 * loses the global data; a listed bidder gets it back as Prebid Server puts it back (an `ext.data` beside other
 * `ext` members merged in as a JSON merge patch, which drops its `null`s); a bidder with a config gets it merged over
 * what it receives, keeping its own buyer id and, unless the config names eids (a non-empty list), the eids it may
 * see.
 */
export function applyFirstPartyData(plan: FpdPlan, bidder: string, request: BidRequest): void {
  const key = bidder.toLowerCase();
  if (plan.listed) {
    if (!plan.listed.has(key)) {
      if (request.site !== undefined) request.site = withoutGlobalData(request.site, 'site') as BidRequest['site'];
      if (request.app !== undefined) request.app = withoutGlobalData(request.app, 'site') as BidRequest['app'];
      if (request.user !== undefined) request.user = withoutGlobalData(request.user, 'user') as BidRequest['user'];
      return;
    }
    if (request.site !== undefined) request.site = withGlobalDataMerged(request.site) as BidRequest['site'];
    if (request.app !== undefined) request.app = withGlobalDataMerged(request.app) as BidRequest['app'];
    if (request.user !== undefined) {
      request.user = plan.userExtRewritten ? (withoutGlobalData(request.user, 'ext') as BidRequest['user']) : (withGlobalDataMerged(request.user) as BidRequest['user']);
    }
  }
  const fpd = plan.configs.get(key);
  if (!fpd) return;
  if (fpd.site !== undefined && request.site) request.site = mergeOpenrtb2Member('site', request.site, fpd.site as Json) as BidRequest['site'];
  if (fpd.app !== undefined && request.app) request.app = mergeOpenrtb2Member('app', request.app, fpd.app as Json) as BidRequest['app'];
  if (fpd.device !== undefined) request.device = mergeOpenrtb2Member('device', request.device, fpd.device as Json) as BidRequest['device'];
  if (fpd.user !== undefined) {
    const current = request.user;
    const user = mergeOpenrtb2Member('user', current, fpd.user as Json);
    if (current) {
      if (plan.userExtRewritten) {
        if (current.ext !== undefined) user.ext = current.ext;
        else delete user.ext;
      }
      if (current.buyeruid) user.buyeruid = current.buyeruid;
      // Only a config naming eids replaces the eids the bidder may see (an empty list or `null` names none).
      const configEids = (fpd.user as Json).eids;
      if (!Array.isArray(configEids) || configEids.length === 0) {
        if (current.eids !== undefined) user.eids = current.eids;
        else delete user.eids;
      }
    }
    request.user = user as BidRequest['user'];
  }
}

/**
 * Prebid Server takes `ext.data` out of the request and merges `{"data": ...}` back in for a listed bidder: beside
 * other `ext` members that is a JSON merge patch, which drops the `null`s inside (and a `null` data itself); alone it
 * is put back as it was. The same object when that changes nothing.
 */
function withGlobalDataMerged(holder: unknown): unknown {
  if (!isJsonObject(holder) || !isJsonObject(holder.ext) || holder.ext.data === undefined) return holder;
  const ext = holder.ext;
  const data = ext.data;
  if (!hasNull(data)) return holder;
  let others = false;
  for (const name in ext) if (name !== 'data') { others = true; break; }
  if (!others) return holder;
  const { data: _data, ...rest } = ext;
  return { ...holder, ext: data === null ? rest : { ...rest, data: withoutNulls(data) } };
}

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  if (Array.isArray(value)) return value.some((item) => item !== null && typeof item === 'object' && hasNull(item));
  if (!isJsonObject(value)) return false;
  for (const name in value) if (hasNull(value[name])) return true;
  return false;
}
