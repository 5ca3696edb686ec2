import { decodeGo, failInUnmarshaler, GoDecodeError, goBool, goMap, goSlice, goString, goStruct, goStructType, type GoType } from './go-decoding.js';
import { isJsonObject } from './helpers.js';

type Json = Record<string, unknown>;

/**
 * `ext.<ns>` written back as Prebid Server writes its `openrtb_ext.ExtRequestPrebid` struct once its endpoint has
 * changed it (`RequestExt.SetPrebid`: the targeting defaults, an app's channel, the validated multibid): the members
 * the struct has, under their own names; `omitempty` members left out when zero or empty (`debug: false`,
 * `aliases: {}`, `prefix: ""`); members without it written even when absent (`channel.version`,
 * `currency.usepbsrates`, `data.eidpermissions`, `includebrandcategory.withcategory`); members the struct does not
 * have dropped. What hooks, the debug output and the validated request then show is what Prebid Server shows.
 *
 * A member of the wrong JSON type is kept as it is, for validation to name (Prebid Server refuses it while decoding).
 * Gavel's own additions to the interface (`cache.winningonly`, `targeting.requireexactduration`,
 * `includebrandcategory.deduplicate`, an `audio` granularity) are kept: the auction reads them.
 */
export function encodeRequestOptionsAsPrebidServer(options: Json): Json {
  const written = encodeOptions(options) as Json;
  if (isJsonObject(written)) WRITTEN_AS_PREBID_SERVER.add(written);
  return written;
}

/** The `ext.<ns>` objects written back as Prebid Server's struct writes them (see isWrittenAsPrebidServer). */
const WRITTEN_AS_PREBID_SERVER = new WeakSet<object>();

/**
 * Whether a request's `ext.<ns>` is one the endpoint wrote back as Prebid Server's struct writes it: Prebid Server
 * re-encodes its struct then, so what its validation changed in the struct in place (alias targets named as the core
 * bidders) shows in the request; a request it never re-encodes keeps them as written.
 */
export function isWrittenAsPrebidServer(options: unknown): boolean {
  return typeof options === 'object' && options !== null && WRITTEN_AS_PREBID_SERVER.has(options);
}

/** How Go's decoder reads a member of `ExtRequestPrebid` at its top: a struct pointer, a map, a list (its Go type), a bool, a string, raw JSON. */
type PrebidMemberKind = 'struct' | 'map' | `[]${string}` | 'bool' | 'string' | 'raw';

/** `openrtb_ext.ExtRequestPrebid`'s members by lower-cased JSON name: Go field name (named in decoder errors) and kind. */
const EXT_REQUEST_PREBID_MEMBERS: Readonly<Record<string, readonly [string, PrebidMemberKind]>> = {
  adservertargeting: ['AdServerTargeting', '[]openrtb_ext.AdServerTarget'],
  aliases: ['Aliases', 'map'],
  aliasgvlids: ['AliasGVLIDs', 'map'],
  analytics: ['Analytics', 'map'],
  bidadjustmentfactors: ['BidAdjustmentFactors', 'map'],
  bidadjustments: ['BidAdjustments', 'struct'],
  bidderconfig: ['BidderConfigs', '[]openrtb_ext.BidderConfig'],
  bidderparams: ['BidderParams', 'raw'],
  cache: ['Cache', 'struct'],
  channel: ['Channel', 'struct'],
  currency: ['CurrencyConversions', 'struct'],
  data: ['Data', 'struct'],
  debug: ['Debug', 'bool'],
  events: ['Events', 'raw'],
  experiment: ['Experiment', 'struct'],
  floors: ['Floors', 'struct'],
  integration: ['Integration', 'string'],
  multibid: ['MultiBid', '[]*openrtb_ext.ExtMultiBid'],
  passthrough: ['Passthrough', 'raw'],
  schains: ['SChains', '[]*openrtb_ext.ExtRequestPrebidSChain'],
  sdk: ['Sdk', 'struct'],
  server: ['Server', 'struct'],
  storedrequest: ['StoredRequest', 'struct'],
  supportdeals: ['SupportDeals', 'bool'],
  targeting: ['Targeting', 'struct'],
  alternatebiddercodes: ['AlternateBidderCodes', 'struct'],
  macros: ['Macros', 'map'],
  nosale: ['NoSale', '[]string'],
  returnallbidstatus: ['ReturnAllBidStatus', 'bool'],
  trace: ['Trace', 'string'],
  biddercontrols: ['BidderControls', 'map'],
};

/**
 * `ext.prebid` as a Go adapter forwards it after decoding the request ext into a struct holding
 * `openrtb_ext.ExtRequestPrebid` and encoding it again (adf, ix): each member's JSON type is checked at its top, in
 * the order written, and the first that does not fit throws a `GoDecodeError` with json-iterator's text (`links`
 * is the chain to the field holding the struct); then the struct is written as `encodeRequestOptionsAsPrebidServer`
 * writes it, nested structs included (`channel.version` always there, empty members left out, unknown ones gone).
 * A `null` is the zero value: an empty object.
 */
export function reencodeExtRequestPrebid(value: unknown, links: readonly string[]): Json {
  const prebid = goStruct(value, links);
  decodeExtRequestPrebidMembers(prebid, links);
  return encodeRequestOptionsAsPrebidServer(prebid);
}

/**
 * `ext.prebid` as Prebid Server's endpoint decodes it into `openrtb_ext.ExtRequestPrebid` (its `req.ext is invalid`
 * step): each member's JSON type checked at its top, in the order written; the decoder's text for the first that does
 * not fit (`cannot unmarshal openrtb_ext.ExtRequestPrebid.Aliases: expect { or n, but found [`), or undefined.
 */
export function extRequestPrebidDecodeProblem(prebid: Json): string | undefined {
  try {
    decodeExtRequestPrebidMembers(prebid, [], true);
    return undefined;
  } catch (err) {
    if (err instanceof GoDecodeError) return err.message;
    throw err;
  }
}

/**
 * Throws a `GoDecodeError` at the first member of `ExtRequestPrebid` whose JSON type its field cannot hold; `deep`
 * reads the members Prebid Server's endpoint validation reads (DEEP_MEMBERS) down to their leaves.
 */
function decodeExtRequestPrebidMembers(prebid: Json, links: readonly string[], deep = false): void {
  let stack: string[] | undefined;
  for (const key in prebid) {
    const name = key.toLowerCase();
    const member = Object.hasOwn(prebid, key) ? EXT_REQUEST_PREBID_MEMBERS[name] : undefined;
    const memberValue = prebid[key];
    if (member === undefined || memberValue === null) continue;
    const [goName, kind] = member;
    const deepType = deep ? DEEP_MEMBERS[name] : undefined;
    if (deepType !== undefined) {
      stack ??= [...links];
      stack.push(`openrtb_ext.ExtRequestPrebid.${goName}`);
      decodeGo(memberValue, deepType, stack);
      stack.pop();
      continue;
    }
    // Every request comes through here: the chain of links is spelled only for a member that does not fit.
    if (fitsMemberKind(memberValue, kind)) continue;
    const memberLinks = [...links, `openrtb_ext.ExtRequestPrebid.${goName}`];
    if (kind === 'struct') goStruct(memberValue, memberLinks);
    else if (kind === 'map') goMap(memberValue, memberLinks);
    else if (kind === 'bool') goBool(memberValue, memberLinks);
    else if (kind === 'string') goString(memberValue, memberLinks);
    else if (kind !== 'raw') goSlice(memberValue, memberLinks, kind);
  }
}

const LEGACY_GRANULARITIES = new Set(['low', 'med', 'medium', 'high', 'auto', 'dense']);

const GRANULARITY_RAW = goStructType('openrtb_ext.PriceGranularityRaw', {
  precision: ['Precision', 'int'],
  ranges: ['Ranges', { slice: '[]openrtb_ext.GranularityRange', of: goStructType('openrtb_ext.GranularityRange', { min: ['Min', 'float64'], max: ['Max', 'float64'], increment: ['Increment', 'float64'] }) }],
});

/**
 * `*PriceGranularity` has its own UnmarshalJSON: a legacy name, else the struct, whose error (cut by jsonutil)
 * json-iterator reports under the field.
 */
const PRICE_GRANULARITY: GoType = {
  unmarshal: (value, links) => {
    if (typeof value === 'string' && LEGACY_GRANULARITIES.has(value)) return;
    try {
      decodeGo(goStruct(value, []), GRANULARITY_RAW, []);
    } catch (err) {
      if (err instanceof GoDecodeError) failInUnmarshaler(links, err.message);
      throw err;
    }
  },
};

const TARGETING = goStructType('openrtb_ext.ExtRequestTargeting', {
  pricegranularity: ['PriceGranularity', PRICE_GRANULARITY],
  mediatypepricegranularity: ['MediaTypePriceGranularity', goStructType('openrtb_ext.MediaTypePriceGranularity', {
    banner: ['Banner', PRICE_GRANULARITY], video: ['Video', PRICE_GRANULARITY], native: ['Native', PRICE_GRANULARITY],
  })],
  includewinners: ['IncludeWinners', 'bool'],
  includebidderkeys: ['IncludeBidderKeys', 'bool'],
  includebrandcategory: ['IncludeBrandCategory', goStructType('openrtb_ext.ExtIncludeBrandCategory', {
    primaryadserver: ['PrimaryAdServer', 'int'], publisher: ['Publisher', 'string'], withcategory: ['WithCategory', 'bool'],
    translatecategories: ['TranslateCategories', 'bool'],
  })],
  includeformat: ['IncludeFormat', 'bool'],
  durationrangesec: ['DurationRangeSec', { slice: '[]int', of: 'int' }],
  preferdeals: ['PreferDeals', 'bool'],
  appendbiddernames: ['AppendBidderNames', 'bool'],
  alwaysincludedeals: ['AlwaysIncludeDeals', 'bool'],
  prefix: ['Prefix', 'string'],
});

const CACHE_RETURN_CREATIVE = (goType: string): GoType => goStructType(goType, { returncreative: ['ReturnCreative', 'bool'] });

/**
 * The members Prebid Server's endpoint validates, read down to their leaves as its decoder reads them.
 * `bidadjustmentfactors.mediatypes` (a Gavel extension: per-media-type factors) is not a factor and is left out.
 */
const DEEP_MEMBERS: Readonly<Record<string, GoType>> = {
  aliases: { map: 'string' },
  aliasgvlids: { map: 'uint16' },
  bidadjustmentfactors: {
    unmarshal: (value, links) => {
      const factors = goMap(value, links);
      for (const key in factors) if (Object.hasOwn(factors, key) && key !== 'mediatypes') decodeGo(factors[key], 'float64', links as string[]);
    },
  },
  cache: goStructType('openrtb_ext.ExtRequestPrebidCache', {
    bids: ['Bids', CACHE_RETURN_CREATIVE('openrtb_ext.ExtRequestPrebidCacheBids')],
    vastxml: ['VastXML', CACHE_RETURN_CREATIVE('openrtb_ext.ExtRequestPrebidCacheVAST')],
  }),
  channel: goStructType('openrtb_ext.ExtRequestPrebidChannel', { name: ['Name', 'string'], version: ['Version', 'string'] }),
  nosale: { slice: '[]string', of: 'string' },
  targeting: TARGETING,
};

function fitsMemberKind(value: unknown, kind: PrebidMemberKind): boolean {
  switch (kind) {
    case 'struct': case 'map': return isJsonObject(value);
    case 'bool': return typeof value === 'boolean';
    case 'string': return typeof value === 'string';
    case 'raw': return true;
    default: return Array.isArray(value);
  }
}

/**
 * Writes a request's `ext.<namespace>` back as Prebid Server writes its struct once its endpoint has changed it (see
 * encodeRequestOptionsAsPrebidServer): left out when nothing is left of it, and `ext` with it when that was all it
 * held (Prebid Server drops an empty `prebid`, and an `ext` with no member). A request whose `ext.<namespace>` is not
 * an object is left for validation to name.
 */
export function writeRequestOptionsAsPrebidServer(request: { ext?: unknown }, namespace: string): void {
  const ext = request.ext;
  if (!isJsonObject(ext) || !isJsonObject(ext[namespace])) return;
  const written = encodeRequestOptionsAsPrebidServer(ext[namespace]);
  if (Object.keys(written).length > 0) ext[namespace] = written;
  else {
    delete ext[namespace];
    if (Object.keys(ext).length === 0) delete request.ext;
  }
}

/** A member's writer: its encoded value, or undefined when Go leaves it out. */
type Encode = (value: unknown) => unknown;

const raw: Encode = (value) => value;
const omitFalse: Encode = (value) => (value === false ? undefined : value);
const omitEmptyString: Encode = (value) => (value === '' ? undefined : value);
const omitEmptyArray: Encode = (value) => (Array.isArray(value) && value.length === 0 ? undefined : value);
const omitEmptyMap: Encode = (value) => (isJsonObject(value) && Object.keys(value).length === 0 ? undefined : value);

/**
 * A struct's writer from its members' writers. Go's decoder matches member names ignoring case (the last match wins;
 * `null` sets the zero value), and the struct is written under its own names. A value that is not an object is kept
 * for validation.
 */
function struct(members: Record<string, Encode>, always: Json = {}): Encode {
  const byLowerName = new Map(Object.entries(members).map(([name, encode]) => [name.toLowerCase(), [name, encode] as const]));
  return (value) => {
    if (!isJsonObject(value)) return value;
    const written: Json = { ...always };
    for (const key in value) {
      const member = Object.hasOwn(value, key) ? byLowerName.get(key.toLowerCase()) : undefined;
      if (member === undefined) continue;
      const [name, encode] = member;
      const encoded = value[key] === null ? undefined : encode(value[key]);
      if (encoded !== undefined) written[name] = encoded;
      else if (Object.hasOwn(always, name)) written[name] = always[name];
      else delete written[name];
    }
    return written;
  };
}

/** A list of structs: left out when empty, each element written by `element`. */
function list(element: Encode): Encode {
  return (value) => (!Array.isArray(value) ? value : value.length === 0 ? undefined : value.map((item) => (item === null ? null : element(item))));
}

/** `*PriceGranularity`: precision and ranges, each range's three members always. */
const granularity = struct({ precision: raw, ranges: list(struct({ min: raw, max: raw, increment: raw }, { min: 0, max: 0, increment: 0 })) });

const targeting = struct({
  pricegranularity: granularity,
  mediatypepricegranularity: struct({ banner: granularity, video: granularity, native: granularity, audio: granularity }),
  includewinners: raw,
  includebidderkeys: raw,
  includebrandcategory: struct(
    { primaryadserver: (value) => (value === 0 ? undefined : value), publisher: omitEmptyString, withcategory: raw, translatecategories: raw, deduplicate: raw },
    { withcategory: false },
  ),
  includeformat: omitFalse,
  durationrangesec: omitEmptyArray,
  preferdeals: omitFalse,
  appendbiddernames: omitFalse,
  alwaysincludedeals: omitFalse,
  prefix: omitEmptyString,
  requireexactduration: raw,
});

/** `openrtb2.SupplyChain`: complete, nodes and ver always; each node's asi and sid always. */
const supplyChain = struct(
  {
    complete: raw,
    nodes: (value) => (Array.isArray(value) ? value.map(struct({ asi: raw, sid: raw, rid: omitEmptyString, name: omitEmptyString, domain: omitEmptyString, hp: raw, ext: raw }, { asi: '', sid: '' })) : value),
    ver: raw,
    ext: raw,
  },
  { complete: 0, nodes: null, ver: '' },
);

/** A Go map written by `element` for each value (a `null` value stays `null`); left out when empty, as `omitempty` does. */
function mapOf(element: Encode): Encode {
  return (value) => {
    if (!isJsonObject(value)) return value;
    const keys = Object.keys(value);
    if (keys.length === 0) return undefined;
    return Object.fromEntries(keys.map((key) => [key, value[key] === null ? null : element(value[key])]));
  };
}

/**
 * `*ExtRequestPrebidBidAdjustments`: `mediatype` always (a struct), its six media types left out when empty, each
 * bidder's deals as they are (a list may be empty), each adjustment's three members left out when zero.
 */
const adjustmentsByDeal: Encode = (value) => (isJsonObject(value)
  ? Object.fromEntries(Object.entries(value).map(([deal, list]) => [deal, Array.isArray(list) ? list.map((item) => (item === null ? null : adjustment(item))) : list]))
  : value);
const adjustment = struct({ adjtype: omitEmptyString, value: (value) => (value === 0 ? undefined : value), currency: omitEmptyString });
const byBidder = mapOf(adjustmentsByDeal);
const bidAdjustments = struct(
  { mediatype: struct({ banner: byBidder, 'video-instream': byBidder, 'video-outstream': byBidder, audio: byBidder, native: byBidder, '*': byBidder }) },
  { mediatype: {} },
);

const encodeOptions: Encode = struct({
  adservertargeting: list(struct({ key: omitEmptyString, source: omitEmptyString, value: omitEmptyString })),
  aliases: omitEmptyMap,
  aliasgvlids: omitEmptyMap,
  analytics: omitEmptyMap,
  bidadjustmentfactors: omitEmptyMap,
  bidadjustments: bidAdjustments,
  bidderconfig: list(struct({ bidders: omitEmptyArray, config: struct({ ortb2: struct({ site: raw, app: raw, user: raw, device: raw }) }) })),
  bidderparams: raw,
  cache: struct({ bids: struct({ returnCreative: raw }), vastxml: struct({ returnCreative: raw }), winningonly: raw }),
  channel: struct({ name: raw, version: raw }, { name: '', version: '' }),
  currency: struct({ rates: raw, usepbsrates: raw }, { rates: null, usepbsrates: null }),
  data: struct({ eidpermissions: (value) => (Array.isArray(value) ? value.map(struct({ source: raw, bidders: raw }, { source: '', bidders: null })) : value), bidders: omitEmptyArray }, { eidpermissions: null }),
  debug: omitFalse,
  events: raw,
  experiment: struct({ adscert: struct({ enabled: omitFalse }) }),
  floors: raw,
  integration: omitEmptyString,
  multibid: list(struct({ bidder: omitEmptyString, bidders: omitEmptyArray, maxbids: raw, targetbiddercodeprefix: omitEmptyString })),
  passthrough: raw,
  schains: list(struct({ bidders: omitEmptyArray, schain: supplyChain }, { schain: { complete: 0, nodes: null, ver: '' } })),
  sdk: struct({ renderers: list(struct({ name: omitEmptyString, version: omitEmptyString, data: raw })) }),
  server: struct({ externalurl: raw, gvlid: raw, datacenter: raw }, { externalurl: '', gvlid: 0, datacenter: '' }),
  storedrequest: struct({ id: raw }, { id: '' }),
  supportdeals: omitFalse,
  targeting,
  alternatebiddercodes: struct(
    { enabled: raw, bidders: (value) => (isJsonObject(value) ? Object.fromEntries(Object.entries(value).map(([name, codes]) => [name, struct({ enabled: raw, allowedbiddercodes: raw }, { enabled: false, allowedbiddercodes: null })(codes)])) : value) },
    { enabled: false, bidders: null },
  ),
  macros: omitEmptyMap,
  nosale: omitEmptyArray,
  returnallbidstatus: omitFalse,
  trace: omitEmptyString,
  biddercontrols: (value) => (isJsonObject(value) ? (Object.keys(value).length === 0 ? undefined : Object.fromEntries(Object.entries(value).map(([name, control]) => [name, struct({ prefmtype: raw }, { prefmtype: '' })(control)]))) : value),
});

const omitZero: Encode = (value) => (value === 0 ? undefined : value);
/** A struct whose one member is an id written always (`ExtStoredRequest`, `ExtStoredAuctionResponse`). */
const storedId = struct({ id: raw }, { id: '' });

/** `openrtb_ext.ExtImpPrebid` (openrtb_ext/imp.go). */
const encodeImpOptions: Encode = struct({
  storedrequest: storedId,
  storedauctionresponse: storedId,
  storedbidresponse: list(struct({ id: raw, bidder: raw, replaceimpid: raw }, { id: '', bidder: '', replaceimpid: null })),
  is_rewarded_inventory: raw,
  bidder: omitEmptyMap,
  options: struct({ echovideoattrs: raw }, { echovideoattrs: false }),
  adunitcode: omitEmptyString,
  passthrough: raw,
  floors: struct({ floorrule: omitEmptyString, floorrulevalue: omitZero, floorvalue: omitZero, floormin: omitZero, floorminCur: omitEmptyString }),
  imp: omitEmptyMap,
});

/**
 * `imp.ext.<ns>` written back as Prebid Server writes its `openrtb_ext.ExtImpPrebid` struct once its endpoint has
 * changed it (`ImpExt.SetPrebid`: bidders promoted from `imp.ext.<bidder>` or a disabled one removed by validation,
 * the request's bidder params merged in, `is_rewarded_inventory` moved to `imp.rwdd`): the struct's members only
 * (`storedrequest`, `storedauctionresponse`, `storedbidresponse`, `is_rewarded_inventory`, `bidder`, `options`,
 * `adunitcode`, `passthrough`, `floors`, `imp`), `omitempty` ones left out when zero or empty; anything else the
 * publisher put there is gone. Undefined when nothing is left: Prebid Server then drops the member from `imp.ext`.
 * A value that is not an object is kept, for validation to name.
 */
export function encodeImpOptionsAsPrebidServer(options: unknown): unknown {
  const written = encodeImpOptions(options);
  return isJsonObject(written) && Object.keys(written).length === 0 ? undefined : written;
}
