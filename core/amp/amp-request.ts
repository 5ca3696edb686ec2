import { randomUUID } from 'node:crypto';
import { BidderErrorCode, isJsonObject, type BidRequest, type Ext, type Imp, type Regs, type Site, type User, type Warning } from '../api/index.js';
import type { Namespace } from '../auction/namespace.js';
import { mergePatch } from '../stored/index.js';
import { goUrlHost } from '../auction/implicit-fields.js';
import { decodeTcfConsent, usPrivacyProblem } from '../privacy/index.js';
import { INVALID_CONSENT_WARNING } from './messages.js';
import type { AmpConsent, AmpParams } from './params.js';
import { resolveBannerFormats } from './sizes.js';

export interface AmpTimeouts {
  /** The AMP default timeout: the ceiling of tmax (spec section 8). */
  defaultTimeoutMs: number;
  /** Host default for `amp_timeout_adjustment_ms`. */
  timeoutAdjustmentMs: number;
}

/** The built request, or the 400 lines that say why it could not be built. */
export type AmpBuildResult = { warnings: Warning[] };


/** `holder.ext`, created when absent; left to validation (and so returned as a throwaway) when it is not an object. */
function extOf(holder: { ext?: Ext }): Ext {
  if (holder.ext === undefined || holder.ext === null) holder.ext = {};
  return isJsonObject(holder.ext) ? holder.ext : {};
}

/**
 * Turns the stored request into the AMP auction's request, in place (the caller owns it): the query's sizes, page,
 * slot, targeting data, account, consent, debug, trace and timeout, plus what every AMP auction needs (a secure imp,
 * `site.ext.amp`, targeting and bid caching on). Reference behaviour section 10.
 */
export function applyAmpParams(request: BidRequest, params: AmpParams, namespace: Namespace, timeouts: AmpTimeouts, gdprEnabled: boolean, generateRequestId = false): AmpBuildResult {
  const imp = request.imp[0]!;
  // AMP pages are served over https only, so the ad must be too.
  imp.secure = 1;
  if (isJsonObject(imp.banner)) {
    const formats = resolveBannerFormats(imp.banner.format, params.sizes);
    if (formats !== undefined) imp.banner.format = formats;
  }
  if (params.slot !== undefined) imp.tagid = params.slot;

  const site = siteOf(request);
  applyPage(site, params.canonicalUrl);
  applyAccount(site, params.account);
  const siteExt = extOf(site);
  if (siteExt.amp === undefined) siteExt.amp = 1;

  const warnings = applyConsent(request, params.consent, gdprEnabled);
  const targetingWarning = mergeTargetingData(imp, params.targeting);
  if (targetingWarning) warnings.push(targetingWarning);
  if (params.debug) request.test = 1;
  request.tmax = ampTmax(request, params, timeouts);
  // Prebid Server's `generate_request_id` gives every AMP request a fresh id; `{{UUID}}` asks for one anyway.
  if (generateRequestId || request.id === '{{UUID}}') request.id = randomUUID();
  enableTargetingAndCache(request, namespace);
  if (params.trace !== undefined) askForTrace(request, namespace, params.trace);
  return { warnings };
}

/**
 * `trace` asks for the hooks trace in the answer: written over the stored request's `ext.<ns>.trace`, as Prebid
 * Server merges `{"prebid": {"trace": <value>}}` into the request's ext (a level other than `basic` or `verbose`
 * then asks for nothing).
 */
function askForTrace(request: BidRequest, namespace: Namespace, level: string): void {
  const options = extOf(request)[namespace];
  if (isJsonObject(options)) options.trace = level;
}

/** An AMP request is always a site request (spec 2.18 forbids `app`), so a stored request without one gets one. */
function siteOf(request: BidRequest): Site {
  if (!isJsonObject(request.site)) request.site = {};
  return request.site as Site;
}

/** `curl` is the page; its host, as Go's URL parser reads it (goUrlHost), without the port, is the domain. */
function applyPage(site: Site, canonicalUrl: string | undefined): void {
  if (canonicalUrl === undefined) return;
  site.page = canonicalUrl;
  const host = goUrlHost(canonicalUrl);
  if (host === undefined) return;
  const colon = host.lastIndexOf(':');
  const domain = colon === -1 ? host : host.slice(0, colon);
  // Prebid Server writes an empty domain, which its encoding then leaves out.
  if (domain === '') delete site.domain;
  else site.domain = domain;
}

/** `account` names the publisher of a stored request that names none (a stored publisher id wins, as in Prebid Server). */
function applyAccount(site: Site, account: string | undefined): void {
  if (account === undefined) return;
  const publisher = isJsonObject(site.publisher) ? site.publisher : {};
  if (typeof publisher.id === 'string' && publisher.id !== '') return;
  site.publisher = { ...publisher, id: account };
}

/**
 * `targeting` is the amp-ad's JSON targeting: Prebid Server wraps its text as `{"data": <targeting>}` and merges that
 * (RFC 7386) into `imp[0].ext` (so `null` removes the data, and a value that is not an object replaces it, for
 * validation to judge); an imp without ext takes the wrapper as it is. A wrapper that is not JSON is a warning
 * (code 2) in the words of Prebid Server's merge library, and leaves the imp as it was.
 */
function mergeTargetingData(imp: Imp, targeting: string | undefined): Warning | undefined {
  if (targeting === undefined) return undefined;
  let patch: Ext;
  try {
    patch = JSON.parse(`{"data":${targeting}}`) as Ext;
  } catch {
    return { code: BidderErrorCode.BadInput, message: 'unable to merge imp.ext with targeting data, check targeting data is correct: Invalid JSON Patch' };
  }
  imp.ext = imp.ext === undefined ? patch : (mergePatch(imp.ext, patch) as Ext);
  return undefined;
}

/**
 * tmax = min(AMP default, `timeout`) - adjustment. Without `timeout`, the stored tmax (or the AMP default) stands
 * in for it. Never below 1 ms: 0 would mean "host default" to the auction, the opposite of what a tiny budget asks.
 * The auction may still lower it to the host maximum.
 */
function ampTmax(request: BidRequest, params: AmpParams, timeouts: AmpTimeouts): number {
  const storedTmax = typeof request.tmax === 'number' && request.tmax > 0 ? request.tmax : undefined;
  const asked = params.timeoutMs ?? storedTmax ?? timeouts.defaultTimeoutMs;
  const adjustment = params.timeoutAdjustmentMs ?? timeouts.timeoutAdjustmentMs;
  return Math.max(1, Math.min(timeouts.defaultTimeoutMs, asked) - adjustment);
}

/**
 * The AMP answer is targeting, and its `hb_cache_id` lets the creative fetch the bid: both are forced on. A stored
 * targeting object is kept as it is (its price granularity in particular); a stored value of the wrong type is
 * left for validation to report.
 */
function enableTargetingAndCache(request: BidRequest, namespace: Namespace): void {
  const ext = extOf(request);
  if (ext[namespace] === undefined || ext[namespace] === null) ext[namespace] = {};
  const options = ext[namespace];
  if (!isJsonObject(options)) return;
  if (options.targeting === undefined || options.targeting === null) options.targeting = {};
  if (options.cache === undefined || options.cache === null) options.cache = {};
  if (isJsonObject(options.cache) && (options.cache.bids === undefined || options.cache.bids === null)) options.cache.bids = {};
  // A stored `"channel": null` is no channel (Go decodes it to a nil pointer), so the AMP one is filled in too.
  if (options.channel === undefined || options.channel === null) options.channel = { name: 'amp', version: '' };
}

/** What the AMP consent parameters write into the request. */
interface ConsentWrite {
  /** A TCF v2 string, with whether GDPR applies. */
  tcf2?: { consent: string; gdpr: 0 | 1 };
  usPrivacy?: string;
  gpp?: string;
}

function consentWarning(message: string): Warning {
  return { code: INVALID_CONSENT_WARNING, message };
}

/**
 * The consent parameters as Prebid Server reads them (`amp.ReadPolicy`): `consent_type` 2 is a TCF v2 string (only
 * while the host enforces GDPR; GDPR then applies unless `gdpr_applies=false`), 3 a US privacy string, 4 a GPP string
 * (`regs.gpp`, judged by the auction's GPP reader as any request's; whether GDPR applies is then `gpp_sid`'s to say,
 * not `gdpr_applies`'s), 1 (TCF v1) is no longer supported; without a type, a valid US privacy string is one, else a
 * valid TCF v2 string is one. Without a consent string, `gdpr_applies` alone writes nothing.
 */
function readConsent(consent: AmpConsent, gdprEnabled: boolean): { write?: ConsentWrite; warning?: Warning } {
  const value = consent.value;
  if (value === undefined) return {};
  const asTcf2: ConsentWrite = { tcf2: { consent: value, gdpr: consent.gdprApplies === false ? 0 : 1 } };
  const asUsPrivacy: ConsentWrite = { usPrivacy: value };
  const gdprAppliesIgnored = consent.gdprApplies === true
    ? consentWarning('AMP request gdpr_applies value was ignored because provided consent string is a CCPA consent string')
    : undefined;
  const validUsPrivacy = usPrivacyProblem(value) === undefined;
  switch (consent.type) {
    case 1:
      return { warning: consentWarning('TCF1 consent is deprecated and no longer supported.') };
    case 2:
      if (!gdprEnabled) return {};
      return { write: asTcf2, warning: decodeTcfConsent(value) ? undefined : consentWarning(`Consent string '${value}' is not a valid TCF2 consent string.`) };
    case 3:
      return { write: asUsPrivacy, warning: validUsPrivacy ? gdprAppliesIgnored : consentWarning(`Consent string '${value}' is not a valid CCPA consent string.`) };
    case 4:
      return { write: { gpp: value } };
    default:
      if (validUsPrivacy) return { write: asUsPrivacy, warning: gdprAppliesIgnored };
      if (gdprEnabled && decodeTcfConsent(value)) return { write: asTcf2 };
      return { warning: consentWarning(`Consent string '${value}' is not recognized as one of the supported formats CCPA or TCF2.`) };
  }
}

/**
 * Writes the consent query params where bidders read them: `user.ext.consent` and `regs.ext.gdpr`, or
 * `regs.ext.us_privacy`, or `regs.gpp`; `attl_consent` as it came in `user.ext.ConsentedProvidersSettings` and as its
 * provider ids in `user.ext.consented_providers_settings`; `gpp_sid` in `regs.gpp_sid` and `gpp` in `regs.gpp`, over
 * the stored values. When the stored request already uses an OpenRTB 2.6 home for the same value, that is updated too
 * so the two never disagree. A consent parameter with a warning writes nothing, as in Prebid Server (whose reading of
 * the query stops there; Gavel still applies the timeout, targeting and the rest).
 */
function applyConsent(request: BidRequest, consent: AmpConsent, gdprEnabled: boolean): Warning[] {
  if (consent.additional !== undefined) applyAdditionalConsent(userOf(request), consent.additional);
  const warnings = applyGpp(request, consent);
  const { write, warning } = readConsent(consent, gdprEnabled);
  if (warning) return [...warnings, warning];
  if (write?.tcf2) {
    setPrivacyValue(regsOf(request), 'gdpr', write.tcf2.gdpr);
    setPrivacyValue(userOf(request), 'consent', write.tcf2.consent);
  }
  if (write?.usPrivacy !== undefined) setPrivacyValue(regsOf(request), 'us_privacy', write.usPrivacy);
  if (write?.gpp !== undefined) regsOf(request).gpp = write.gpp;
  return warnings;
}

/**
 * `gpp_sid` and `gpp` go in OpenRTB 2.6's homes, `regs.gpp_sid` and `regs.gpp`, where the auction's GPP reader finds
 * them. A `gpp_sid` that is not a list of section ids is left out with a warning (code 10001, in the words Prebid
 * Server uses for a malformed `gpp_sid`), and the auction goes on with the stored sections.
 */
function applyGpp(request: BidRequest, consent: AmpConsent): Warning[] {
  if (consent.gpp !== undefined) regsOf(request).gpp = consent.gpp;
  if (consent.gppSid === 'invalid') return [consentWarning('invalid gpp_sid encoding, must be a csv list of integers')];
  if (consent.gppSid !== undefined) regsOf(request).gpp_sid = consent.gppSid;
  return [];
}

/** Google's Additional Consent string is `<version>~<id>.<id>...`; its ids, those that are whole numbers. */
export function consentedProviderIds(additional: string): number[] {
  const parts = additional.split('~');
  if (parts.length !== 2) return [];
  const ids: number[] = [];
  for (const id of parts[1]!.split('.')) if (/^[+-]?\d+$/.test(id)) ids.push(Number(id));
  return ids;
}

function applyAdditionalConsent(user: User, additional: string): void {
  const ext = extOf(user);
  const ids = consentedProviderIds(additional);
  if (ids.length > 0) {
    const settings = isJsonObject(ext.consented_providers_settings) ? ext.consented_providers_settings : {};
    const known = Array.isArray(settings.consented_providers) ? settings.consented_providers : [];
    ext.consented_providers_settings = { ...settings, consented_providers: [...known, ...ids] };
  }
  ext.ConsentedProvidersSettings = { consented_providers: additional };
}

function setPrivacyValue(holder: Regs | User, key: string, value: string | number): void {
  extOf(holder)[key] = value;
  if (holder[key] !== undefined) holder[key] = value;
}

function regsOf(request: BidRequest): Regs {
  if (!isJsonObject(request.regs)) request.regs = {};
  return request.regs as Regs;
}

function userOf(request: BidRequest): User {
  if (!isJsonObject(request.user)) request.user = {};
  return request.user as User;
}
