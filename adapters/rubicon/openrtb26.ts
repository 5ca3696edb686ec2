/**
 * Prebid Server's adapter first brings the request up to OpenRTB 2.6 (`openrtb_ext.ConvertUpTo26`), so that it
 * finds each signal in one place: the supply chain in `source.schain` (from `ext.schain` or `source.ext.schain`),
 * GDPR and US privacy in `regs`, consent and eids in `user`, the rewarded flag in `imp.rwdd`. A value already in its
 * 2.6 place wins; the 2.5 copy is removed either way, and an ext left empty goes.
 */
import { embeddedExtImpBidderError, GoDecodeError, goMap, goSlice, goString, goStruct, isJsonObject, type BidRequest, type Imp, type JsonObject } from '../../core/api/index.js';

export function convertUpTo26(incoming: BidRequest): { converted: BidRequest } | { error: string } {
  // Go decodes a `null` imp as an empty one.
  const request: BidRequest = { ...incoming, imp: (Array.isArray(incoming.imp) ? incoming.imp : []).map((imp) => (isJsonObject(imp) ? imp : { id: '' })) };
  const invalid = invalidExt(request);
  if (invalid) return { error: invalid };

  const converted: BidRequest = { ...request };
  const requestExt = { ...(request.ext ?? {}) };
  const schain24 = requestExt.schain;
  delete requestExt.schain;
  if (request.ext) converted.ext = requestExt;

  if (request.source || schain24 !== undefined) {
    const source = { ...request.source };
    const sourceExt = { ...(source.ext ?? {}) };
    const schain25 = sourceExt.schain ?? schain24;
    delete sourceExt.schain;
    setExt(source, sourceExt);
    if (schain25 !== undefined && schain25 !== null && (source.schain === undefined || source.schain === null)) source.schain = schain25;
    if (request.source || source.schain !== undefined) converted.source = source;
  }

  if (request.regs) {
    const regs = { ...request.regs };
    const regsExt = { ...(regs.ext ?? {}) };
    if (regsExt.gdpr !== undefined && regsExt.gdpr !== null && (regs.gdpr === undefined || regs.gdpr === null)) regs.gdpr = regsExt.gdpr as number;
    if (typeof regsExt.us_privacy === 'string' && regsExt.us_privacy !== '' && !regs.us_privacy) regs.us_privacy = regsExt.us_privacy;
    delete regsExt.gdpr;
    delete regsExt.us_privacy;
    setExt(regs, regsExt);
    converted.regs = regs;
  }

  if (request.user) {
    const user = { ...request.user };
    const userExt = { ...(user.ext ?? {}) };
    if (typeof userExt.consent === 'string' && !user.consent) user.consent = userExt.consent;
    if (Array.isArray(userExt.eids) && (user.eids === undefined || user.eids === null)) user.eids = userExt.eids;
    delete userExt.consent;
    delete userExt.eids;
    setExt(user, userExt);
    converted.user = user;
  }

  converted.imp = request.imp.map(withRewardedFlag);
  return { converted };
}

/** `imp.ext.prebid.is_rewarded_inventory` moves to `imp.rwdd` unless that is set. */
function withRewardedFlag(imp: Imp): Imp {
  const prebid = imp.ext?.prebid;
  if (!isJsonObject(prebid) || prebid.is_rewarded_inventory === undefined || prebid.is_rewarded_inventory === null) return imp;
  const { is_rewarded_inventory: rewarded, ...rest } = prebid;
  const moved: Imp = { ...imp, ext: { ...imp.ext, prebid: rest } };
  if (!imp.rwdd) moved.rwdd = rewarded;
  return moved;
}

function setExt(object: { ext?: JsonObject }, ext: JsonObject): void {
  if (Object.keys(ext).length > 0) object.ext = ext;
  else delete object.ext;
}

/**
 * Go's request wrapper decodes each ext the conversion reads, and the first one that fails stops the request:
 * `<name> is invalid: <decoder text>`. Each ext must be an object; the fields the wrapper knows are decoded on
 * their own (so their texts are those of a value at the top), with two wrapper texts of its own for `regs.ext.gdpr`.
 */
function invalidExt(request: BidRequest): string | undefined {
  const checks: Array<[string, unknown, (ext: JsonObject) => void]> = [
    ['req.ext', request.ext, (ext) => {
      goStructField(ext, 'prebid');
      goStructField(ext, 'schain');
    }],
    ['req.source.ext', request.source?.ext, (ext) => goStructField(ext, 'schain')],
    ['req.regs.ext', request.regs?.ext, (ext) => {
      goStructField(ext, 'dsa');
      if (ext.gdpr !== undefined && !isInt8(ext.gdpr)) throw new GoDecodeError('gdpr must be an integer');
      goString(ext.us_privacy, []);
    }],
    ['req.user.ext', request.user?.ext, (ext) => {
      goString(ext.consent, []);
      goStructField(ext, 'prebid');
      goSlice(ext.eids, [], '[]openrtb2.EID').forEach((eid) => goStruct(eid, ['[]openrtb2.EID']));
    }],
    ...request.imp.map((imp, index): [string, unknown, (ext: JsonObject) => void] => [`imp[${index}].imp.ext`, imp.ext, (ext) => {
      goStructField(ext, 'prebid');
      // Its typed members too (`openrtb_ext.ExtImpPrebid`): a failure below its top names the inner field, as here.
      const prebidError = embeddedExtImpBidderError('prebid', ext.prebid);
      if (prebidError !== undefined) throw new GoDecodeError(prebidError);
      const data = goStructField(ext, 'data');
      goString(data.pbadslot, ['openrtb_ext.ExtImpData.PbAdslot']);
      const adserverLinks = ['openrtb_ext.ExtImpData.AdServer'];
      const adserver = goStruct(data.adserver, adserverLinks);
      goString(adserver.name, [...adserverLinks, 'openrtb_ext.ExtImpDataAdServer.Name']);
      goString(adserver.adslot, [...adserverLinks, 'openrtb_ext.ExtImpDataAdServer.AdSlot']);
      goString(ext.tid, []);
      goString(ext.gpid, []);
    }]),
  ];
  for (const [name, ext, checkFields] of checks) {
    try {
      // An absent ext is nothing to decode; `null` decodes to an empty map.
      if (ext !== undefined) checkFields(goMap(ext, []));
    } catch (err) {
      if (err instanceof GoDecodeError) return `${name} is invalid: ${err.message}`;
      throw err;
    }
  }
  return undefined;
}

/** A field the wrapper decodes into a struct of its own, at the top of that decoding. */
function goStructField(ext: JsonObject, key: string): JsonObject {
  return ext[key] === undefined ? {} : goStruct(ext[key], []);
}

/** Go's `*int8`: `null` is nil; anything else must be an integer from -128 to 127. */
function isInt8(value: unknown): boolean {
  return value === null || (Number.isInteger(value) && (value as number) >= -128 && (value as number) <= 127);
}
