/**
 * Prebid Server's adapter first brings the request up to OpenRTB 2.6 (`openrtb_ext.ConvertUpTo26`), so that it
 * finds each signal in one place: the supply chain in `source.schain` (from `ext.schain` or `source.ext.schain`),
 * GDPR and US privacy in `regs`, consent and eids in `user`, the rewarded flag in `imp.rwdd`. A value already in its
 * 2.6 place wins; the 2.5 copy is removed either way, and an ext left empty goes.
 */
import { isJsonObject, type BidRequest, type Imp, type JsonObject } from '../../core/api/index.js';

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

/** The exts the conversion reads must be objects holding the 2.5 fields with their types, or the request fails. */
function invalidExt(request: BidRequest): string | undefined {
  const checks: Array<[unknown, string, Record<string, (value: unknown) => boolean>]> = [
    [request.ext, 'req.ext', {}],
    [request.source?.ext, 'req.source.ext', { schain: isJsonObject }],
    [request.regs?.ext, 'req.regs.ext', { gdpr: Number.isInteger, us_privacy: (value) => typeof value === 'string' }],
    [request.user?.ext, 'req.user.ext', { consent: (value) => typeof value === 'string', eids: Array.isArray }],
  ];
  for (const [ext, name, fields] of checks) {
    const problem = extProblem(ext, fields);
    if (problem) return `${name} is invalid: ${problem}`;
  }
  for (const [index, imp] of request.imp.entries()) {
    const problem = extProblem(imp.ext, { prebid: isJsonObject });
    if (problem) return `imp[${index}].imp.ext is invalid: ${problem}`;
  }
  return undefined;
}

function extProblem(ext: unknown, fields: Record<string, (value: unknown) => boolean>): string | undefined {
  if (ext === undefined || ext === null) return undefined;
  if (!isJsonObject(ext)) return `expect { or n, but found ${JSON.stringify(ext)[0]}`;
  for (const [key, fits] of Object.entries(fields)) {
    const value = ext[key];
    if (value !== undefined && value !== null && !fits(value)) return `cannot unmarshal ${key}: unexpected ${JSON.stringify(value)}`;
  }
  return undefined;
}
