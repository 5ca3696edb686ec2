import { isJsonObject, BidderErrorCode, RESERVED_IMP_EXT_KEYS, type AuctionContext, type BidderRequest, type BidRequest, type Imp, type ImpSplitter, type MediaType, type ModuleDeps } from '../../core/api/index.js';

// This service runs on every auction and builds one share per bidder, so the common path (an ordinary, valid request)
// avoids intermediate objects: plain loops over keys instead of Object.entries, no per-imp maps, sets or closures,
// and copies only where a bidder must see something different from the request.
//
// Copies are made with a spread only when nothing is then added to or deleted from them. V8 (Node 20) gives an
// object made by spread no place in its shape tree, so adding a key to it makes a brand-new hidden class per object
// (about 0.7 us each, plus the memory), and deleting one turns it into a slow dictionary. When a copy needs a key
// added or left out, it is built key by key instead, which shares hidden classes.

type Json = Record<string, unknown>;

// `for...in` also walks the prototype chain; checking own keys keeps exactly the keys Object.entries would give.
const hasOwnProperty = Object.prototype.hasOwnProperty;
const propertyIsEnumerable = Object.prototype.propertyIsEnumerable;

/** The media types an imp can offer, in the order `impMediaTypes` lists them (and errors are reported in). */
const MEDIA_TYPES: readonly MediaType[] = ['banner', 'video', 'audio', 'native'];
const NO_MEDIA_TYPES: readonly MediaType[] = [];

/** What one split works with and builds up. */
interface Split {
  readonly request: BidRequest;
  readonly ns: string;
  readonly kind: 'site' | 'app' | 'dooh';
  readonly secure: boolean;
  readonly deps: ModuleDeps;
  /** Request aliases (`ext.<ns>.aliases`), lower-cased; undefined when the request names none (the usual case). */
  readonly aliasTargets: ReadonlyMap<string, string> | undefined;
  /** Where errors (per bidder) and warnings are reported. */
  readonly context: AuctionContext;
  /** One per seat, in the order seats first get an imp. */
  readonly bidderRequests: BidderRequest[];
}

/** `ext.<ns>.aliases` as a map from lower-case alias to lower-case target. */
function aliasTargetsOf(aliases: Json): Map<string, string> {
  const targets = new Map<string, string>();
  for (const alias in aliases) {
    if (!hasOwnProperty.call(aliases, alias)) continue;
    const target = aliases[alias];
    if (typeof target === 'string') targets.set(alias.toLowerCase(), target.toLowerCase());
  }
  return targets;
}

/** The host bidder that serves a name from the request (bidder or alias, any case), if this host knows one. */
function hostBidderOf(split: Split, name: string): string | undefined {
  const lower = name.toLowerCase();
  const target = split.aliasTargets?.get(lower) ?? lower;
  return split.deps.bidders.has(target) ? target : undefined;
}

function inventoryKind(request: BidRequest): 'site' | 'app' | 'dooh' {
  return request.app ? 'app' : request.dooh ? 'dooh' : 'site';
}

/** Whether the imp offers at least one media type the bidder supports (an imp left with none is not sent). */
function offersSupportedMediaType(imp: Imp, supported: readonly MediaType[]): boolean {
  for (let i = 0; i < MEDIA_TYPES.length; i++) if (imp[MEDIA_TYPES[i]!] && supported.includes(MEDIA_TYPES[i]!)) return true;
  return false;
}

/** Sets a data property the way a spread does: a `__proto__` key becomes an own key, not the prototype. */
function setOwn(target: Json, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** `object` without `key` (as `{ [key]: _, ...rest }` gives it), or undefined when nothing else is in it. */
function withoutKey(object: Json, key: string): Json | undefined {
  let rest: Json | undefined;
  for (const other in object) if (other !== key && hasOwnProperty.call(object, other)) setOwn((rest ??= {}), other, object[other]);
  return rest;
}

/**
 * A bidder's `imp.ext`: the imp's non-bidder keys (and `<ns>` without the bidder map), then its own params. A key
 * that names no bidder this host knows is publisher data the request kept (validation warned about it): every
 * bidder gets it, as Prebid Server forwards every `imp.ext` member but its own namespace.
 */
function extForBidder(split: Split, impExt: Json, params: unknown): Json {
  const ns = split.ns;
  const ext: Json = {};
  for (const key in impExt) {
    if (!hasOwnProperty.call(impExt, key)) continue;
    const value = impExt[key];
    if (key === ns && isJsonObject(value)) {
      // `imp.ext.<ns>` without the bidder map, and only when something else is in it.
      const options = withoutKey(value, 'bidder');
      if (options) ext[ns] = options;
    } else if (RESERVED_IMP_EXT_KEYS.has(key) ? key !== 'bidder' && key !== 'svc' && key !== 'prebid' : hostBidderOf(split, key) === undefined) {
      setOwn(ext, key, value);
    }
  }
  ext.bidder = params;
  return ext;
}

/** Whether the imp offers a media type the bidder does not support (it is then left out of the bidder's copy). */
function offersUnsupportedMediaType(imp: Imp, supported: readonly MediaType[]): boolean {
  for (let i = 0; i < MEDIA_TYPES.length; i++) if (imp[MEDIA_TYPES[i]!] && !supported.includes(MEDIA_TYPES[i]!)) return true;
  return false;
}

/** The imp as one bidder sees it: its own params in `ext.bidder`, only media types it supports, `secure` filled. */
function impForBidder(split: Split, imp: Imp, impExt: Json, params: unknown, supported: readonly MediaType[]): Imp {
  const ext = extForBidder(split, impExt, params);
  const fillSecure = split.secure && imp.secure === undefined;
  if (!fillSecure && !offersUnsupportedMediaType(imp, supported)) return { ...imp, ext };
  // Built key by key, not spread (see the top of the file): unsupported media types are left out, `secure` added.
  const copy: Json = {};
  for (const key in imp) {
    if (!hasOwnProperty.call(imp, key)) continue;
    const value = (imp as Json)[key];
    if (value && MEDIA_TYPES.includes(key as MediaType) && !supported.includes(key as MediaType)) continue;
    setOwn(copy, key, value);
  }
  copy.ext = ext;
  if (fillSecure) copy.secure = 1;
  return copy as Imp;
}

/**
 * A bidder that takes one media type per imp (bidder info `openrtb.multiformat: false`) gets only the publisher's
 * preferred type of a multi-format imp: `ext.<ns>.biddercontrols.<bidder>.prefmtype`, else the account's
 * `preferredmediatype.<bidder>`. Without a preference, or when the imp does not offer it, the imp goes as it is.
 */
function preferredOnly(split: Split, imp: Imp, name: string, supported: readonly MediaType[]): readonly MediaType[] {
  let offered = 0;
  for (let i = 0; i < MEDIA_TYPES.length; i++) if (imp[MEDIA_TYPES[i]!] && supported.includes(MEDIA_TYPES[i]!)) offered++;
  if (offered < 2) return supported;
  const options = split.request.ext?.[split.ns];
  const controls = isJsonObject(options) && isJsonObject(options.biddercontrols) ? options.biddercontrols : undefined;
  const control = controls ? controls[keyIgnoringCase(controls, name.toLowerCase()) ?? name] : undefined;
  const accountPreferences = split.context.account.preferredmediatype;
  const preferred = (isJsonObject(control) ? control.prefmtype : undefined) ?? (isJsonObject(accountPreferences) ? accountPreferences[keyIgnoringCase(accountPreferences, name.toLowerCase()) ?? name] : undefined);
  return typeof preferred === 'string' && imp[preferred as MediaType] && supported.includes(preferred as MediaType) ? [preferred as MediaType] : supported;
}

/** Error code 2 for each media type the imp offers that the bidder does not support. */
function reportUnsupportedMediaTypes(split: Split, imp: Imp, index: number, name: string, supported: readonly MediaType[]): void {
  for (let i = 0; i < MEDIA_TYPES.length; i++) {
    const type = MEDIA_TYPES[i]!;
    if (imp[type] && !supported.includes(type)) {
      split.context.fail(name, { code: BidderErrorCode.BadInput, message: `request.imp[${index}] uses ${type}, but this bidder doesn't support it` });
    }
  }
}

/** The key of `object` equal to `lowerName` ignoring case, first in key order. */
function keyIgnoringCase(object: Json, lowerName: string): string | undefined {
  for (const key in object) if (hasOwnProperty.call(object, key) && key.toLowerCase() === lowerName) return key;
  return undefined;
}

/**
 * A copy of `object` (own keys, in order) with `key` set to `value` where it stands (appended if absent), or left
 * out when `value` is undefined. Built key by key, not spread (see the top of the file).
 */
function withKeyReplaced(object: Json, key: string, value: Json | undefined): Json {
  const copy: Json = {};
  for (const other in object) {
    if (!hasOwnProperty.call(object, other)) continue;
    if (other !== key) setOwn(copy, other, object[other]);
    else if (value !== undefined) setOwn(copy, key, value);
  }
  if (value !== undefined && !hasOwnProperty.call(object, key)) setOwn(copy, key, value);
  return copy;
}

/**
 * Buyer ids (spec 2.12): an explicit `user.buyeruid` wins; else the bidder's own entry in `user.ext.<ns>.buyeruids`,
 * by the name the imp gives it, any case (an alias gets only its own, as in Prebid Server). `user.ext.<ns>` goes
 * from the bidder's copy whole, buyer ids or not (and `user.ext` with it when left empty): Prebid Server reads it into a
 * struct whose only member is `buyeruids`, and writes it back without them, so nothing else in it survives.
 */
function userForBidder(request: BidRequest, ns: string, seat: string): BidRequest['user'] {
  const user = request.user;
  if (!user) return undefined;
  if (!isJsonObject(user.ext) || !hasOwnProperty.call(user.ext, ns)) return user;
  const nsExt = user.ext[ns];
  const buyeruids = isJsonObject(nsExt) && isJsonObject(nsExt.buyeruids) ? (nsExt.buyeruids as Json) : undefined;
  const copy = withKeyReplaced(user, 'ext', withoutKey(user.ext, ns)) as NonNullable<BidRequest['user']>;
  if (!buyeruids) return copy;
  if (!user.buyeruid) {
    const key = keyIgnoringCase(buyeruids, seat.toLowerCase());
    if (key !== undefined && typeof buyeruids[key] === 'string') copy.buyeruid = buyeruids[key];
  }
  return copy;
}

/**
 * Adds an imp to a seat's share, creating the share (with the seat's buyer ids) when this is the seat's first imp.
 * The new share's imp list starts as `[imp]`, sized exactly: most shares hold one imp or a few.
 */
function addToShare(split: Split, seat: string, hostBidder: string, imp: Imp): void {
  // A linear search: there is one share per bidder named in the request, a handful, cheaper to scan than to hash.
  for (let i = 0; i < split.bidderRequests.length; i++) {
    const share = split.bidderRequests[i]!;
    if (share.bidder === seat) {
      share.request.imp.push(imp);
      return;
    }
  }
  const request: BidRequest = { ...split.request, imp: [imp] };
  const user = userForBidder(split.request, split.ns, seat);
  if (user) request.user = user;
  split.bidderRequests.push({ bidder: seat, adapter: hostBidder, request });
}

/** Offers one imp to one bidder named in it, with the params the imp gives that bidder. */
function offerImp(split: Split, imp: Imp, impExt: Json, index: number, name: string, params: unknown): void {
  const hostBidder = hostBidderOf(split, name);
  if (hostBidder === undefined) return;
  const host = split.deps.bidders.get(hostBidder)!;
  if (!host.enabled) {
    split.context.warn('general', { code: BidderErrorCode.BidderTemporarilyDisabled, message: `Bidder "${name}" has been disabled on this instance of Prebid Server. Please work with the PBS host to enable this bidder again.` });
    return;
  }
  let supported = host.capabilities[split.kind]?.mediaTypes ?? NO_MEDIA_TYPES;
  reportUnsupportedMediaTypes(split, imp, index, name, supported);
  if (!offersSupportedMediaType(imp, supported)) return;
  if (host.multiformat === false) supported = preferredOnly(split, imp, name, supported);
  addToShare(split, name, hostBidder, impForBidder(split, imp, impExt, params, supported));
}

/**
 * Offers an imp to each bidder named in it, params from `imp.ext.<ns>.bidder.<name>` first, then `imp.ext.<name>`
 * (a name in both is offered once, with the nested params).
 */
function offerToNamedBidders(split: Split, imp: Imp, index: number): void {
  const impExt = imp.ext;
  if (!isJsonObject(impExt)) return;
  const nsExt = impExt[split.ns];
  const nested = isJsonObject(nsExt) && isJsonObject(nsExt.bidder) ? nsExt.bidder : undefined;
  if (nested) {
    for (const name in nested) if (hasOwnProperty.call(nested, name)) offerImp(split, imp, impExt, index, name, nested[name]);
  }
  for (const name in impExt) {
    if (!hasOwnProperty.call(impExt, name) || RESERVED_IMP_EXT_KEYS.has(name)) continue;
    if (nested && propertyIsEnumerable.call(nested, name)) continue;
    offerImp(split, imp, impExt, index, name, impExt[name]);
  }
}

/**
 * The built-in imp-splitting service: one share per bidder named in any imp. Bidders run in the order they first
 * appear, so ties in the auction are stable.
 */
export function createImpSplitter(deps: ModuleDeps): ImpSplitter {
  return {
    split(request: BidRequest, context: AuctionContext): BidderRequest[] {
      const ns = context.namespace;
      const options = request.ext?.[ns];
      const split: Split = {
        request,
        ns,
        kind: inventoryKind(request),
        secure: context.secure,
        deps,
        aliasTargets: isJsonObject(options) && isJsonObject(options.aliases) ? aliasTargetsOf(options.aliases) : undefined,
        context,
        bidderRequests: [],
      };
      for (let index = 0; index < request.imp.length; index++) offerToNamedBidders(split, request.imp[index]!, index);
      return split.bidderRequests;
    },
  };
}
