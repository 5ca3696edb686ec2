import { randomUUID } from 'node:crypto';
import { isJsonObject, type BidRequest, type Ext, type Imp, type Regs, type Site, type User, type Warning } from '../api/index.js';
import type { Namespace } from '../auction/namespace.js';
import { mergePatch } from '../stored/index.js';
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
export type AmpBuildResult = { warnings: Warning[] } | { invalid: string[] };


/** `holder.ext`, created when absent; left to validation (and so returned as a throwaway) when it is not an object. */
function extOf(holder: { ext?: Ext }): Ext {
  if (holder.ext === undefined || holder.ext === null) holder.ext = {};
  return isJsonObject(holder.ext) ? holder.ext : {};
}

/**
 * Turns the stored request into the AMP auction's request, in place (the caller owns it): the query's sizes, page,
 * slot, targeting data, account, consent, debug and timeout, plus what every AMP auction needs (a secure imp,
 * `site.ext.amp`, targeting and bid caching on). Reference behaviour section 10.
 */
export function applyAmpParams(request: BidRequest, params: AmpParams, namespace: Namespace, timeouts: AmpTimeouts): AmpBuildResult {
  const imp = request.imp[0]!;
  // AMP pages are served over https only, so the ad must be too.
  imp.secure = 1;
  if (isJsonObject(imp.banner)) {
    const formats = resolveBannerFormats(imp.banner.format, params.sizes);
    if (formats !== undefined) imp.banner.format = formats;
  }
  if (params.slot !== undefined) imp.tagid = params.slot;
  const targetingError = mergeTargetingData(imp, params.targeting);
  if (targetingError) return { invalid: [targetingError] };

  const site = siteOf(request);
  applyPage(site, params.canonicalUrl);
  if (params.account !== undefined) site.publisher = { ...(isJsonObject(site.publisher) ? site.publisher : {}), id: params.account };
  const siteExt = extOf(site);
  if (siteExt.amp === undefined) siteExt.amp = 1;

  const warnings = applyConsent(request, params.consent);
  if (params.debug) request.test = 1;
  request.tmax = ampTmax(request, params, timeouts);
  if (request.id === '{{UUID}}') request.id = randomUUID();
  enableTargetingAndCache(request, namespace);
  return { warnings };
}

/** An AMP request is always a site request (spec 2.18 forbids `app`), so a stored request without one gets one. */
function siteOf(request: BidRequest): Site {
  if (!isJsonObject(request.site)) request.site = {};
  return request.site as Site;
}

/** `curl` is the page; its host (without port) is the domain. */
function applyPage(site: Site, canonicalUrl: string | undefined): void {
  if (canonicalUrl === undefined) return;
  site.page = canonicalUrl;
  try {
    const host = new URL(canonicalUrl).hostname;
    if (host !== '') site.domain = host;
  } catch {
    // A page that is not an absolute URL still names the page; there is just no domain to take from it.
  }
}

/** `targeting` is the amp-ad's JSON targeting; it is merged (RFC 7386) into `imp[0].ext.data`. */
function mergeTargetingData(imp: Imp, targeting: string | undefined): string | undefined {
  if (targeting === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(targeting);
  } catch (err) {
    return `unable to merge imp.ext with targeting data, check targeting data is correct: ${(err as Error).message}`;
  }
  if (!isJsonObject(data)) return 'unable to merge imp.ext with targeting data, check targeting data is correct: it must be a JSON object';
  const ext = extOf(imp);
  ext.data = mergePatch(ext.data, data);
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
  if (options.channel === undefined) options.channel = { name: 'amp', version: '' };
}

type ConsentKind = 'tcf2' | 'usp';

/** What a consent string is: from `consent_type` when given, else by its shape (a US privacy string is `1YNN`). */
function consentKind(consent: AmpConsent & { value: string }): ConsentKind | Warning {
  switch (consent.type) {
    case undefined:
      return /^1[YNyn-]{3}$/.test(consent.value) ? 'usp' : 'tcf2';
    case 2:
      return 'tcf2';
    case 3:
      return 'usp';
    case 1:
      return { code: INVALID_CONSENT_WARNING, message: 'TCF v1 consent strings (consent_type=1) are no longer supported; the consent string was ignored.' };
    default:
      return { code: INVALID_CONSENT_WARNING, message: `consent_type ${consent.type} is not supported (use 2 for TCF v2, 3 for US privacy); the consent string was ignored.` };
  }
}

/**
 * Writes the consent query params where bidders read them (reference behaviour 12: forwarded, not enforced here):
 * `user.ext.consent`, `regs.ext.gdpr`, `regs.ext.us_privacy`, `user.ext.ConsentedProvidersSettings`. When the
 * stored request already uses an OpenRTB 2.6 home for the same value, that is updated too so the two never disagree.
 */
function applyConsent(request: BidRequest, consent: AmpConsent): Warning[] {
  const warnings: Warning[] = [];
  if (consent.gdprApplies !== undefined) setPrivacyValue(regsOf(request), 'gdpr', consent.gdprApplies ? 1 : 0);
  if (consent.value !== undefined) {
    const kind = consentKind({ ...consent, value: consent.value });
    if (kind === 'tcf2') setPrivacyValue(userOf(request), 'consent', consent.value);
    else if (kind === 'usp') setPrivacyValue(regsOf(request), 'us_privacy', consent.value);
    else warnings.push(kind);
  }
  if (consent.additional !== undefined) {
    extOf(userOf(request)).ConsentedProvidersSettings = { consented_providers: consent.additional };
  }
  return warnings;
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
