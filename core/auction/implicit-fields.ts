import { randomUUID } from 'node:crypto';
import { getPublicSuffix } from 'tldts';
import { DEFAULT_PRICE_GRANULARITY, isJsonObject, LEGACY_PRICE_GRANULARITIES, RESERVED_IMP_EXT_KEYS, type BidRequest, type PriceGranularity, encodeImpOptionsAsPrebidServer, writeRequestOptionsAsPrebidServer } from '../api/index.js';
import { fillDeviceFacts, type HttpFacts } from '../privacy/index.js';
import type { RequestContext } from '../context/request-context.js';
import { fillBrowsingTopics, fillCookieDeprecation, headerValue, SEC_BROWSING_TOPICS, SEC_COOKIE_DEPRECATION } from './privacy-sandbox.js';

type Json = Record<string, unknown>;

/**
 * What an endpoint writes into a request before its auction, from the HTTP request and as defaults, as Prebid
 * Server's endpoints do (`setFieldsImplicitly`, `ortb.SetDefaults`). A service of its own because Prebid Server's
 * exchange tests start below the endpoint, without these (the exchange runner binds none).
 */
export interface ImplicitFields {
  /**
   * `namespace`: the one the request speaks (`prebid` or `svc`), its spellings already folded into it; `scope`: the
   * request's settled context and whether its body named a stored request (none: no account-driven fill-ins).
   */
  fill(request: BidRequest, facts: HttpFacts, namespace?: string, scope?: FillScope): void;
}

/** What the fill-ins read beside the request: its settled context (account, endpoint, debug, warnings). */
export interface FillScope {
  context: Pick<RequestContext, 'account' | 'endpoint' | 'debug' | 'warn'>;
  /** The body named a stored request (`ext.<ns>.storedrequest.id`). */
  storedRequest: boolean;
}

export const NO_IMPLICIT_FIELDS: ImplicitFields = { fill: () => undefined };

/**
 * Prebid Server's fill-ins: the request-level bidder params merged into each imp (see mergeBidderParams); the device
 * facts (core/privacy); for a request that is not an app's or a DOOH screen's,
 * the site, from the Referer or its own page: `site.page`, `site.domain` (the page's host) and
 * `site.publisher.domain` (its registrable domain) when absent, and `site.ext.amp` 0 when unset; `at` 1 (first
 * price) when unset; `imp.secure` 1 when unset; the targeting defaults (see fillTargetingDefaults); an app's channel
 * (`ext.<ns>.channel` `{name: "app", version: ""}` when it has none, as Prebid Server's validateOrFillChannel fills
 * it; `ext.<ns>` is then written back as Prebid Server's struct writes it, see encodeRequestOptionsAsPrebidServer); with
 * `generateTids`, a random `source.tid` and `imp.ext.tid` where the request has none or the `{{UUID}}` placeholder
 * (and, with `generateRequestId`, always for an AMP request or one that named a stored request, as Prebid Server's
 * validateAndFillSourceTID). With the account's privacy sandbox settings: the `Sec-Browsing-Topics` topics in
 * `user.data` and the `Sec-Cookie-Deprecation` label in `device.ext.cdep` (see privacy-sandbox.ts).
 */
export function implicitFields(settings: { trustProxyHeaders: boolean; generateTids: boolean; generateRequestId?: boolean }): ImplicitFields {
  return {
    fill(request, facts, namespace = 'prebid', scope) {
      if (isJsonObject(request.ext)) mergeBidderParams(request, request.ext[namespace], namespace);
      fillDeviceFacts(request, facts, settings.trustProxyHeaders);
      if (request.app == null && request.dooh == null) fillSite(request, headerValue(facts.headers, 'referer'));
      if (request.at == null || request.at === 0) request.at = 1;
      if (scope) fillPrivacySandbox(request, facts, scope);
      if (Array.isArray(request.imp)) for (const imp of request.imp) if (isJsonObject(imp) && imp.secure == null) imp.secure = 1;
      let rewritten = false;
      if (isJsonObject(request.ext)) for (const spelling of NAMESPACES) if (fillTargetingDefaults(request.ext[spelling]) && spelling === namespace) rewritten = true;
      if (request.app != null && fillAppChannel(request, namespace)) rewritten = true;
      if (rewritten || hasMultibid(request, namespace)) writeRequestOptionsAsPrebidServer(request, namespace);
      if (settings.generateTids) fillTids(request, settings.generateRequestId === true && scope !== undefined && (scope.context.endpoint === 'amp' || scope.storedRequest));
    },
  };
}

const NAMESPACES = ['prebid', 'svc'] as const;
const MEDIA_TYPE_GRANULARITIES = ['video', 'banner', 'native'] as const;

/**
 * Prebid Server's targeting defaults (`ortb.SetDefaults`), written into a request that asks for targeting, so that
 * hooks, the debug output and the validated request see what the auction applies: the price granularity in its
 * object form (a legacy name's ranges, the default when none is given; `precision` 2 and each range's `min` when
 * left out), each media type's granularity likewise, `includewinners` and `includebidderkeys` true when unset. A
 * value validation will refuse is left as it is for validation to name. True when Prebid Server counts the targeting
 * as modified (and so writes `ext.prebid` back through its struct): a legacy name alone, already in its ranges for
 * Go's decoder, is no change, and then nothing is written.
 */
function fillTargetingDefaults(options: unknown): boolean {
  if (!isJsonObject(options) || !isJsonObject(options.targeting)) return false;
  const targeting = options.targeting;
  const updates: Array<[holder: Json, key: string, value: Json]> = [];
  let modified = false;
  const consider = (holder: Json, key: string): void => {
    const update = granularityObject(holder[key]);
    if (update === undefined) return;
    updates.push([holder, key, update.value]);
    modified ||= update.modified;
  };
  consider(targeting, 'pricegranularity');
  const perType = targeting.mediatypepricegranularity;
  if (isJsonObject(perType)) for (const mediaType of MEDIA_TYPE_GRANULARITIES) if (perType[mediaType] != null) consider(perType, mediaType);
  if (targeting.includewinners == null || targeting.includebidderkeys == null) modified = true;
  if (!modified) return false;
  for (const [holder, key, value] of updates) holder[key] = value;
  if (targeting.includewinners == null) targeting.includewinners = true;
  if (targeting.includebidderkeys == null) targeting.includebidderkeys = true;
  return true;
}

/**
 * The object form of a granularity, and whether Prebid Server's defaults changed it; undefined when validation has
 * something to say about it. An object without ranges (none, or an empty list; `ranges` being optional) is the
 * default granularity whole, its precision included, and each range starts where the one before ended (its own `min`
 * overwritten), as Prebid Server's defaults write them.
 */
function granularityObject(value: unknown): { value: Json; modified: boolean } | undefined {
  if (value == null) return { value: writtenOut(DEFAULT_PRICE_GRANULARITY), modified: true };
  if (typeof value === 'string') return Object.hasOwn(LEGACY_PRICE_GRANULARITIES, value) ? { value: writtenOut(LEGACY_PRICE_GRANULARITIES[value]!), modified: false } : undefined;
  if (!isJsonObject(value)) return undefined;
  if (value.ranges == null || (Array.isArray(value.ranges) && value.ranges.length === 0)) return { value: writtenOut(DEFAULT_PRICE_GRANULARITY), modified: true };
  if (!Array.isArray(value.ranges) || !value.ranges.every(isJsonObject)) return undefined;
  let modified = value.precision == null;
  let previousMax: unknown = 0;
  for (const range of value.ranges as Json[]) {
    if ((range.min ?? 0) !== previousMax) modified = true;
    previousMax = range.max ?? 0;
  }
  if (!modified) return { value, modified };
  const ranges = (value.ranges as Json[]).map((range) => ({ ...range }));
  previousMax = 0;
  for (const range of ranges) {
    range.min = previousMax;
    previousMax = range.max;
  }
  return { value: { ...value, precision: value.precision ?? 2, ranges }, modified };
}

function writtenOut(granularity: PriceGranularity): Json {
  let previousMax = 0;
  const ranges = granularity.ranges.map(({ min, max, increment }) => {
    const range = { min: min ?? previousMax, max, increment };
    previousMax = max;
    return range;
  });
  return { precision: granularity.precision, ranges };
}

/**
 * `ext.<ns>.bidderparams` (params by bidder, for every imp) merged into each imp's params for that bidder, in both
 * places an imp names bidders (`imp.ext.<bidder>` and `imp.ext.<ns>.bidder.<bidder>`): a param the imp sets wins, a
 * bidder the imp does not name gets nothing. As Prebid Server's mergeBidderParams: names matched exactly, a
 * `bidderparams` that is not an object of objects merges nothing, an imp's `null` params take all of them.
 */
function mergeBidderParams(request: BidRequest, options: unknown, namespace: string): void {
  if (!isJsonObject(options) || !isJsonObject(options.bidderparams) || !Array.isArray(request.imp)) return;
  const byBidder = options.bidderparams;
  for (const bidder in byBidder) if (Object.hasOwn(byBidder, bidder) && !isJsonObject(byBidder[bidder])) return;
  for (const imp of request.imp) {
    if (!isJsonObject(imp) || !isJsonObject(imp.ext)) continue;
    const ext = imp.ext;
    const named = isJsonObject(ext[namespace]) && isJsonObject((ext[namespace] as Json).bidder) ? ((ext[namespace] as Json).bidder as Json) : undefined;
    let namedMerged = false;
    for (const bidder in byBidder) {
      if (!Object.hasOwn(byBidder, bidder)) continue;
      const params = byBidder[bidder] as Json;
      if (!RESERVED_IMP_EXT_KEYS.has(bidder) && Object.hasOwn(ext, bidder)) ext[bidder] = withParams(ext[bidder], params);
      if (named && Object.hasOwn(named, bidder)) {
        const merged = withParams(named[bidder], params);
        namedMerged ||= merged !== named[bidder];
        named[bidder] = merged;
      }
    }
    // Prebid Server writes `imp.ext.prebid` back through its struct once it has merged params into it.
    if (namedMerged) ext[namespace] = encodeImpOptionsAsPrebidServer(ext[namespace]);
  }
}

/** The imp's params with the request's added where the imp has none; params that are not an object stay as they are. */
function withParams(own: unknown, params: Json): unknown {
  if (own === null) return { ...params };
  if (!isJsonObject(own)) return own;
  let merged: Json | undefined;
  // A copy, not the imp's own object: that may be a stored imp's, shared with other requests.
  for (const key in params) if (Object.hasOwn(params, key) && !Object.hasOwn(own, key)) (merged ??= { ...own })[key] = params[key];
  return merged ?? own;
}

/**
 * An app request names its channel: `app`, when it names none (a `null` channel is none, as Go decodes it). True when
 * it was filled.
 */
function fillAppChannel(request: BidRequest, namespace: string): boolean {
  if (request.ext != null && !isJsonObject(request.ext)) return false;
  const options = request.ext?.[namespace];
  if (options != null && !isJsonObject(options)) return false;
  if (options?.channel != null) return false;
  const ext = (request.ext ??= {}) as Json;
  const own = (options ?? (ext[namespace] = {})) as Json;
  own.channel = { name: 'app', version: '' };
  return true;
}

/** Prebid Server writes `ext.prebid` back whenever it has a multibid list: its validation replaces the list. */
function hasMultibid(request: BidRequest, namespace: string): boolean {
  const options = isJsonObject(request.ext) ? request.ext[namespace] : undefined;
  return isJsonObject(options) && Array.isArray(options.multibid);
}


/** A transaction id to make: none given, or the placeholder Prebid.js leaves for the server to fill. */
function lacksTid(tid: unknown): boolean {
  return tid == null || tid === '' || tid === '{{UUID}}';
}

/** `regenerate`: every tid is replaced, as Prebid Server's `generate_request_id` does for AMP and stored requests. */
function fillTids(request: BidRequest, regenerate: boolean): void {
  if (request.source != null && !isJsonObject(request.source)) return;
  const source = (request.source ??= {}) as Json;
  if (regenerate || lacksTid(source.tid)) source.tid = randomUUID();
  if (!Array.isArray(request.imp)) return;
  for (const imp of request.imp) {
    if (!isJsonObject(imp) || (imp.ext != null && !isJsonObject(imp.ext))) continue;
    const ext = (imp.ext ??= {}) as Json;
    if (regenerate || lacksTid(ext.tid)) ext.tid = randomUUID();
  }
}

/**
 * The account's privacy sandbox fill-ins (Prebid Server's setSecBrowsingTopicsImplicitly and
 * validateOrFillCookieDeprecation): the Topics header's debug warnings only for a debug auction, the cdep warning
 * for every one.
 */
function fillPrivacySandbox(request: BidRequest, facts: HttpFacts, { context }: FillScope): void {
  const sandbox = context.account.privacy?.privacysandbox;
  if (!sandbox) return;
  const topics = headerValue(facts.headers, SEC_BROWSING_TOPICS);
  if (topics !== '' && sandbox.topicsdomain) {
    const warnings = fillBrowsingTopics(request, topics, sandbox.topicsdomain);
    if (context.debug) for (const warning of warnings) context.warn('general', warning);
  }
  if (sandbox.cookiedeprecation?.enabled === true) {
    const warning = fillCookieDeprecation(request, headerValue(facts.headers, SEC_COOKIE_DEPRECATION));
    if (warning) context.warn('general', warning);
  }
}

function fillSite(request: BidRequest, referer: string): void {
  if (!isJsonObject(request.site) && request.site != null) return;
  const site = (request.site ??= {}) as Json;
  const page = typeof site.page === 'string' ? site.page : '';
  const source = referer !== '' ? referer : page;
  if (source !== '') {
    if (page === '') site.page = source;
    const host = hostOfPage(source);
    if (host) {
      if (typeof site.domain !== 'string' || site.domain === '') site.domain = host;
      const publisherDomain = registrableDomain(host);
      if (publisherDomain !== undefined) {
        const publisher = isJsonObject(site.publisher) ? site.publisher : site.publisher == null ? (site.publisher = {}) : undefined;
        if (publisher && (typeof publisher.domain !== 'string' || publisher.domain === '')) publisher.domain = publisherDomain;
      }
    }
  }
  const ext = isJsonObject(site.ext) ? site.ext : site.ext == null ? (site.ext = {}) : undefined;
  if (ext && ext.amp == null) ext.amp = 0;
}

/**
 * The host of a URL as Go's `url.Parse` gives it: as written (no case folding, no punycode, the port kept), empty for
 * a URL with no `//authority` (a bare `www.example/page`), and undefined when the parser refuses the URL (a `%`
 * that starts no escape).
 */
export function goUrlHost(url: string): string | undefined {
  if (url.includes('%') && /%(?![0-9A-Fa-f]{2})/.test(url)) return undefined;
  const authority = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?\/\/([^/?#]*)/.exec(url);
  if (!authority) return '';
  const at = authority[1]!.lastIndexOf('@');
  return at === -1 ? authority[1]! : authority[1]!.slice(at + 1);
}

/** Hosts by page URL, and registrable domains by host: pages repeat, and the parsing is the costly part. */
const hosts = new Map<string, string | undefined>();

function hostOfPage(page: string): string | undefined {
  if (hosts.has(page)) return hosts.get(page);
  const host = goUrlHost(page);
  if (hosts.size >= REGISTRABLE_KEPT) hosts.delete(hosts.keys().next().value!);
  hosts.set(page, host);
  return host;
}

const registrable = new Map<string, string | null>();
const REGISTRABLE_KEPT = 2000;

/**
 * The host's eTLD+1 as Go's publicsuffix.EffectiveTLDPlusOne gives it (private domains included), undefined when it
 * has none. Go looks the host up as written: a label with a port or upper case matches no rule of the (lower-case)
 * list, so it is a suffix of one label under the default rule, and rules stop at it. So `www.example.com:8080` gives
 * `example.com:8080`, `WWW.EXAMPLE.CO.UK` gives `CO.UK`, an IPv4 host its last two numbers, and `localhost` none.
 */
function registrableDomain(host: string): string | undefined {
  let domain = registrable.get(host);
  if (domain === undefined) {
    domain = goEffectiveTldPlusOne(host) ?? null;
    if (registrable.size >= REGISTRABLE_KEPT) registrable.delete(registrable.keys().next().value!);
    registrable.set(host, domain);
  }
  return domain ?? undefined;
}

const SUFFIX_OPTIONS = { allowPrivateDomains: true, detectIp: false, validateHostname: false } as const;

function goEffectiveTldPlusOne(host: string): string | undefined {
  if (host.startsWith('.') || host.endsWith('.') || host.includes('..')) return undefined;
  const labels = host.split('.');
  let firstMatchable = labels.length;
  while (firstMatchable > 0 && !/[A-Z:]/.test(labels[firstMatchable - 1]!)) firstMatchable--;
  const matchable = labels.slice(firstMatchable).join('.');
  const suffix = matchable === '' ? undefined : getPublicSuffix(matchable, SUFFIX_OPTIONS);
  const suffixLabels = suffix ? suffix.split('.').length : 1;
  return labels.length > suffixLabels ? labels.slice(-suffixLabels - 1).join('.') : undefined;
}
