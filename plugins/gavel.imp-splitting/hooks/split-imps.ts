import {
  BidderErrorCode,
  impMediaTypes,
  RESERVED_IMP_EXT_KEYS,
  type BidderError,
  type BidderRequest,
  type BidRequest,
  type HookContext,
  type HookResult,
  type Imp,
  type MediaType,
  type ModuleDeps,
  type SplitPayload,
  type Warning,
} from '../../../core/api/index.js';


type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

interface Resolved { seat: string; hostBidder: string }

/** Resolves a name from a request (bidder or alias, any case) to the host bidder that serves it. */
function resolver(deps: ModuleDeps, aliases: Json): (name: string) => Resolved | undefined {
  const aliasTargets = new Map<string, string>();
  for (const [alias, target] of Object.entries(aliases)) if (typeof target === 'string') aliasTargets.set(alias.toLowerCase(), target.toLowerCase());
  return (name) => {
    const lower = name.toLowerCase();
    const target = aliasTargets.get(lower) ?? lower;
    return deps.bidders.has(target) ? { seat: name, hostBidder: target } : undefined;
  };
}

/** The params each named bidder has in one imp: `imp.ext.<ns>.bidder.<name>` first, then `imp.ext.<name>`. */
function paramsByBidder(imp: Imp, ns: string): Map<string, unknown> {
  const found = new Map<string, unknown>();
  const ext = isObject(imp.ext) ? imp.ext : {};
  const nested = isObject(ext[ns]) ? (ext[ns] as Json).bidder : undefined;
  if (isObject(nested)) for (const [name, params] of Object.entries(nested)) found.set(name, params);
  for (const [name, params] of Object.entries(ext)) if (!RESERVED_IMP_EXT_KEYS.has(name) && !found.has(name)) found.set(name, params);
  return found;
}

function inventoryKind(request: BidRequest): 'site' | 'app' | 'dooh' {
  return request.app ? 'app' : request.dooh ? 'dooh' : 'site';
}

/** The imp as one bidder sees it: its own params in `ext.bidder`, only media types it supports, `secure` filled. */
function impForBidder(imp: Imp, params: unknown, ns: string, supported: ReadonlySet<MediaType>, secure: boolean): { imp?: Imp; dropped: MediaType[] } {
  const ext: Json = {};
  for (const [key, value] of Object.entries(imp.ext ?? {})) {
    if (key === ns && isObject(value)) {
      const { bidder: _bidders, ...options } = value;
      if (Object.keys(options).length > 0) ext[ns] = options;
    } else if (RESERVED_IMP_EXT_KEYS.has(key) && key !== 'bidder' && key !== 'svc' && key !== 'prebid') {
      ext[key] = value;
    }
  }
  ext.bidder = params;
  const copy: Imp = { ...imp, ext };
  const dropped: MediaType[] = [];
  for (const type of impMediaTypes(imp)) {
    if (!supported.has(type)) {
      dropped.push(type);
      delete (copy as Record<string, unknown>)[type];
    }
  }
  if (impMediaTypes(copy).length === 0) return { dropped };
  if (secure && copy.secure === undefined) copy.secure = 1;
  return { imp: copy, dropped };
}

/** Buyer ids (spec 2.12): an explicit `user.buyeruid` wins; else the bidder's entry in `user.ext.<ns>.buyeruids`. */
function userForBidder(request: BidRequest, ns: string, seat: string, hostBidder: string): BidRequest['user'] {
  const user = request.user;
  if (!user) return undefined;
  const nsExt = isObject(user.ext?.[ns]) ? (user.ext![ns] as Json) : undefined;
  const buyeruids = nsExt && isObject(nsExt.buyeruids) ? (nsExt.buyeruids as Json) : undefined;
  if (!buyeruids) return user;
  const { buyeruids: _removed, ...restNs } = nsExt!;
  const ext: Json = { ...user.ext };
  if (Object.keys(restNs).length > 0) ext[ns] = restNs;
  else delete ext[ns];
  const copy: NonNullable<BidRequest["user"]> = { ...user, ext };
  if (Object.keys(ext).length === 0) delete copy.ext;
  if (!user.buyeruid) {
    const match = Object.entries(buyeruids).find(([name]) => name.toLowerCase() === seat.toLowerCase())
      ?? Object.entries(buyeruids).find(([name]) => name.toLowerCase() === hostBidder);
    if (match && typeof match[1] === 'string') copy.buyeruid = match[1];
  }
  return copy;
}

/**
 * Splits the request into one share per bidder named in any imp. Bidders run in the order they first appear, so
 * ties in the auction are stable.
 */
export function splitImps(payload: Readonly<SplitPayload>, context: HookContext, deps: ModuleDeps): HookResult<SplitPayload> {
  const request = payload.request;
  const ns = context.namespace;
  const options = isObject(request.ext?.[ns]) ? (request.ext![ns] as Json) : {};
  const resolve = resolver(deps, isObject(options.aliases) ? options.aliases : {});
  const kind = inventoryKind(request);
  const errors: Record<string, BidderError[]> = {};
  const warnings: Warning[] = [];
  const shares = new Map<string, { hostBidder: string; imps: Imp[] }>();

  request.imp.forEach((imp, index) => {
    for (const [name, params] of paramsByBidder(imp, ns)) {
      const resolved = resolve(name);
      if (!resolved) continue;
      const host = deps.bidders.get(resolved.hostBidder)!;
      if (!host.enabled) {
        warnings.push({ code: 10001, message: `bidder ${name} is disabled on this host; its imps were not sent` });
        continue;
      }
      const supported = new Set(host.capabilities[kind]?.mediaTypes ?? []);
      const { imp: bidderImp, dropped } = impForBidder(imp, params, ns, supported, context.secure);
      for (const type of dropped) {
        (errors[name] ??= []).push({ code: BidderErrorCode.BadInput, message: `request.imp[${index}] uses ${type}, but this bidder doesn't support it` });
      }
      if (!bidderImp) continue;
      let share = shares.get(name);
      if (!share) shares.set(name, (share = { hostBidder: resolved.hostBidder, imps: [] }));
      share.imps.push(bidderImp);
    }
  });

  const bidderRequests: BidderRequest[] = [];
  for (const [seat, share] of shares) {
    const bidderRequest: BidRequest = { ...request, imp: share.imps };
    const user = userForBidder(request, ns, seat, share.hostBidder);
    if (user) bidderRequest.user = user;
    bidderRequests.push({ bidder: seat, adapter: share.hostBidder, request: bidderRequest });
  }
  const result: HookResult<SplitPayload> = {
    action: 'update',
    changes: [(target) => { target.bidderRequests = bidderRequests; }],
    errors,
  };
  if (warnings.length > 0) result.warnings = { general: warnings };
  return result;
}
