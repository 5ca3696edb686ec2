import { encodeAsOpenrtb2Eids, encodeAsOpenrtb2SupplyChain, encodeImpOptionsAsPrebidServer, isJsonObject, type BidRequest, type Imp } from '../api/index.js';

type Json = Record<string, unknown>;

/**
 * The fields OpenRTB 2.6 promoted out of `ext`, as Prebid Server's converters move them (openrtb_ext/convert_up.go,
 * convert_down.go): `[object, field]`, the 2.6 home being `<object>.<field>` and the 2.5 one `<object>.ext.<field>`.
 */
const PROMOTED: ReadonlyArray<readonly ['regs' | 'user' | 'source', string]> = [
  ['source', 'schain'],
  ['regs', 'gdpr'],
  ['user', 'consent'],
  ['regs', 'us_privacy'],
  ['user', 'eids'],
];

/** PROMOTED grouped by the object holding the fields, in the same order. */
const PROMOTED_BY_HOLDER: ReadonlyArray<readonly ['regs' | 'user' | 'source', readonly string[]]> = (['source', 'regs', 'user'] as const).map(
  (name) => [name, PROMOTED.filter(([holder]) => holder === name).map(([, field]) => field)] as const,
);

/** A value Go decodes into an `int8` (`regs.ext.gdpr`, `imp.ext.<ns>.is_rewarded_inventory`). */
function isInt8(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= -128 && value <= 127;
}

/**
 * The 2.5 value a 2.6 field takes, as Prebid Server's ext decoders type it; anything else is left where it is for
 * validation to name (Prebid Server refuses the request on it before moving anything).
 */
const WELL_TYPED: Readonly<Record<string, (value: unknown) => boolean>> = {
  schain: isJsonObject,
  gdpr: isInt8,
  consent: (value) => typeof value === 'string',
  us_privacy: (value) => typeof value === 'string',
  eids: Array.isArray,
};

/**
 * Whether Prebid Server takes a 2.6 field as given, so that its 2.5 copy is dropped rather than moved: Go's nil
 * (absent or `null`) is not, nor an empty consent or US privacy string (convert_up.go compares them with "").
 */
function isSetIn26(field: string, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return value !== '' || (field !== 'consent' && field !== 'us_privacy');
}

/** Whether `holder.ext` is there but no object: left as it is, for validation to name (Prebid Server refuses it first). */
function undecodableExt(holder: Json): boolean {
  return holder.ext !== undefined && holder.ext !== null && !isJsonObject(holder.ext);
}

/**
 * Normalises a request to OpenRTB 2.6 in place (the auction owns it), once per request, as Prebid Server's endpoints
 * do before anything reads it (openrtb_ext/convert_up.go): `ext.schain` (2.4) to `source.ext.schain` unless one is
 * there, then each promoted field from `<object>.ext` to `<object>` unless the 2.6 field is set (isSetIn26; the ext
 * copy goes either way), and `imp.ext.<ns>.is_rewarded_inventory` to `imp.rwdd` unless that is set. A `null` in ext
 * is Go's nil: nothing moves, and the member goes as Prebid Server's ext writer drops it (a `null` 2.4 schain is the
 * exception: its decoder makes an empty SupplyChain of it, which moves). A value of the wrong type stays where it
 * is, for request validation to name where the client put it.
 */
export function convertUpTo26(request: BidRequest, namespace: string): void {
  const requestExt = isJsonObject(request.ext) ? request.ext : undefined;
  if (requestExt && (requestExt.schain === null || isJsonObject(requestExt.schain)) && (request.source == null || isJsonObject(request.source))) {
    const source = (request.source ??= {});
    if (!undecodableExt(source)) {
      if (!(isJsonObject(source.ext) && isJsonObject(source.ext.schain))) {
        source.ext = { ...(isJsonObject(source.ext) ? source.ext : undefined), schain: requestExt.schain ?? {} };
      }
      delete requestExt.schain;
    }
  }
  for (const [name, field] of PROMOTED) {
    const holder = request[name];
    if (!isJsonObject(holder) || !isJsonObject(holder.ext) || holder.ext[field] === undefined) continue;
    const value = holder.ext[field];
    if (value !== null) {
      if (!WELL_TYPED[field]!(value)) continue;
      if (!isSetIn26(field, holder[field])) holder[field] = value;
    }
    delete holder.ext[field];
    if (isEmpty(holder.ext)) delete holder.ext;
  }
  if (Array.isArray(request.imp)) for (const imp of request.imp) if (isJsonObject(imp)) rewardedUp(imp as Imp, namespace);
  // Prebid Server writes these exts back after moving fields out of them, and an empty one goes as none (its user
  // ext, written back the same way, stays `{}`).
  if (isJsonObject(request.ext) && isEmpty(request.ext)) delete request.ext;
  for (const name of ['source', 'regs'] as const) {
    const holder = request[name];
    if (isJsonObject(holder) && isJsonObject(holder.ext) && isEmpty(holder.ext)) delete holder.ext;
  }
}

function isEmpty(object: Json): boolean {
  for (const _key in object) return false;
  return true;
}

function rewardedUp(imp: Imp, namespace: string): void {
  const options = isJsonObject(imp.ext) && isJsonObject(imp.ext[namespace]) ? (imp.ext[namespace] as Json) : undefined;
  const rewarded = options?.is_rewarded_inventory;
  if (!isInt8(rewarded)) return;
  // Go's int8: absent and null read as 0, which is not set.
  if (imp.rwdd == null || imp.rwdd === 0) imp.rwdd = rewarded;
  delete options!.is_rewarded_inventory;
  // Written back as Prebid Server's struct writes it (ImpExt.SetPrebid): members it does not know are gone.
  const written = encodeImpOptionsAsPrebidServer(options);
  if (written === undefined) delete imp.ext![namespace];
  else imp.ext![namespace] = written;
}

/**
 * The request as an OpenRTB 2.5 bidder receives it: each promoted field moved back into its object's `ext`, and
 * `imp.rwdd` into `imp.ext.<ns>.is_rewarded_inventory` (only when set, as Prebid Server moves it; `imp.ext.<ns>` then
 * written as its struct writes it). Other 2.6 fields
 * stay (as in Prebid Server: a 2.5 bidder ignores what it does not know, and dropping them would lose data such as
 * `regs.gpp` that 2.5 bidders read). The input is not changed; only the branches that move are copied, and a request
 * with nothing to move is returned as it is. With `converted` (one map per auction), an object the auction's bidders
 * share is converted once and the bidders keep sharing the converted copy.
 */
export function convertDownTo25(request: BidRequest, namespace: string, converted?: Map<object, Json>): BidRequest {
  let result: BidRequest | undefined;
  for (const [name, fields] of PROMOTED_BY_HOLDER) {
    const holder = request[name];
    if (!isJsonObject(holder)) continue;
    let holder25 = converted?.get(holder);
    if (holder25 === undefined) {
      holder25 = holderIn25(holder, fields);
      converted?.set(holder, holder25);
    }
    if (holder25 !== holder) (result ??= { ...request })[name] = holder25;
  }
  let imps: Imp[] | undefined;
  for (let i = 0; i < request.imp.length; i++) {
    const imp = request.imp[i]!;
    if (typeof imp.rwdd !== 'number' || imp.rwdd === 0) continue;
    const { rwdd, ...rest } = imp;
    const ext = isJsonObject(imp.ext) ? imp.ext : {};
    // Written as Prebid Server's struct writes it (ImpExt.SetPrebid): what of `imp.ext.<ns>` the bidder had (its
    // `options`) keeps only the members the struct knows.
    rest.ext = { ...ext, [namespace]: encodeImpOptionsAsPrebidServer({ ...(isJsonObject(ext[namespace]) ? ext[namespace] : undefined), is_rewarded_inventory: rwdd }) };
    (imps ??= request.imp.slice())[i] = rest as Imp;
  }
  if (imps) (result ??= { ...request }).imp = imps;
  return result ?? request;
}

/**
 * A moved field as Prebid Server writes it into `ext`: from its openrtb2 struct (`SupplyChain`, `[]EID`), so members
 * the struct lacks are gone, as they are from the 2.6 fields the 2.6 bidders get.
 */
function writtenAsGo(field: string, value: unknown): unknown {
  if (field === 'schain' && isJsonObject(value)) return encodeAsOpenrtb2SupplyChain(value);
  if (field === 'eids' && Array.isArray(value)) return encodeAsOpenrtb2Eids(value);
  return value;
}

/**
 * Whether Prebid Server moves a 2.6 field: a `null` (Go's nil) or an empty string is not set and stays where it is
 * (where the wire leaves it out); an eid list is moved even when empty.
 */
function movesDown(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * One object with its promoted fields moved back into its `ext`: the object itself when none is set. An empty eid
 * list leaves `user` and is not written into its ext, and an ext left with nothing goes (Prebid Server's user ext
 * writer drops an empty `eids`, and an empty ext with it).
 */
function holderIn25(holder: Json, fields: readonly string[]): Json {
  // Copied once, however many of its fields move (a rest spread per field cost a copy each).
  let moved: Record<string, unknown> | undefined;
  for (const field of fields) if (movesDown(holder[field])) (moved ??= {})[field] = writtenAsGo(field, holder[field]);
  if (!moved) return holder;
  const rest: Record<string, unknown> = {};
  for (const key in holder) if (!(key in moved)) rest[key] = holder[key];
  if (Array.isArray(moved.eids) && moved.eids.length === 0) delete moved.eids;
  const ext = isJsonObject(holder.ext) ? { ...holder.ext, ...moved } : moved;
  if (isEmpty(ext)) delete rest.ext;
  else rest.ext = ext;
  return rest;
}
