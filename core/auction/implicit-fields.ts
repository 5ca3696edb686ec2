import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { getDomain } from 'tldts';
import { DEFAULT_PRICE_GRANULARITY, isJsonObject, LEGACY_PRICE_GRANULARITIES, type BidRequest, type PriceGranularity } from '../api/index.js';
import { fillDeviceFacts, type HttpFacts } from '../privacy/index.js';

type Json = Record<string, unknown>;

/**
 * What an endpoint writes into a request before its auction, from the HTTP request and as defaults, as Prebid
 * Server's endpoints do (`setFieldsImplicitly`, `ortb.SetDefaults`). A service of its own because Prebid Server's
 * exchange tests start below the endpoint, without these (the exchange runner binds none).
 */
export interface ImplicitFields {
  fill(request: BidRequest, facts: HttpFacts): void;
}

export const NO_IMPLICIT_FIELDS: ImplicitFields = { fill: () => undefined };

/**
 * Prebid Server's fill-ins: the device facts (core/privacy); for a request that is not an app's or a DOOH screen's,
 * the site, from the Referer or its own page: `site.page`, `site.domain` (the page's host) and
 * `site.publisher.domain` (its registrable domain) when absent, and `site.ext.amp` 0 when unset; `at` 1 (first
 * price) when unset; `imp.secure` 1 when unset; the targeting defaults (see fillTargetingDefaults); with
 * `generateTids`, a random `source.tid` and `imp.ext.tid` where the request has none or the `{{UUID}}` placeholder.
 */
export function implicitFields(settings: { trustProxyHeaders: boolean; generateTids: boolean }): ImplicitFields {
  return {
    fill(request, facts) {
      fillDeviceFacts(request, facts, settings.trustProxyHeaders);
      if (request.app == null && request.dooh == null) fillSite(request, firstHeader(facts.headers, 'referer'));
      if (request.at == null || request.at === 0) request.at = 1;
      if (Array.isArray(request.imp)) for (const imp of request.imp) if (isJsonObject(imp) && imp.secure == null) imp.secure = 1;
      if (isJsonObject(request.ext)) for (const namespace of NAMESPACES) fillTargetingDefaults(request.ext[namespace]);
      if (settings.generateTids) fillTids(request);
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
 * value validation will refuse is left as it is for validation to name.
 */
function fillTargetingDefaults(options: unknown): void {
  if (!isJsonObject(options) || !isJsonObject(options.targeting)) return;
  const targeting = options.targeting;
  const granularity = granularityObject(targeting.pricegranularity);
  if (granularity !== undefined) targeting.pricegranularity = granularity;
  const perType = targeting.mediatypepricegranularity;
  if (isJsonObject(perType)) {
    for (const mediaType of MEDIA_TYPE_GRANULARITIES) {
      if (perType[mediaType] == null) continue;
      const own = granularityObject(perType[mediaType]);
      if (own !== undefined) perType[mediaType] = own;
    }
  }
  if (targeting.includewinners == null) targeting.includewinners = true;
  if (targeting.includebidderkeys == null) targeting.includebidderkeys = true;
}

/**
 * The object form of a granularity, or undefined when validation has something to say about it. An object without
 * ranges (none, or an empty list; `ranges` being optional) is the default granularity whole, its precision included,
 * and each range starts where the one before ended (its own `min` overwritten), as Prebid Server's defaults write them.
 */
function granularityObject(value: unknown): Json | undefined {
  if (value == null) return writtenOut(DEFAULT_PRICE_GRANULARITY);
  if (typeof value === 'string') return Object.hasOwn(LEGACY_PRICE_GRANULARITIES, value) ? writtenOut(LEGACY_PRICE_GRANULARITIES[value]!) : undefined;
  if (!isJsonObject(value)) return undefined;
  if (value.ranges == null || (Array.isArray(value.ranges) && value.ranges.length === 0)) return writtenOut(DEFAULT_PRICE_GRANULARITY);
  if (!Array.isArray(value.ranges) || !value.ranges.every(isJsonObject)) return undefined;
  if (value.precision == null) value.precision = 2;
  let previousMax: unknown = 0;
  for (const range of value.ranges as Json[]) {
    range.min = previousMax;
    previousMax = range.max;
  }
  return value;
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

/** A transaction id to make: none given, or the placeholder Prebid.js leaves for the server to fill. */
function lacksTid(tid: unknown): boolean {
  return tid == null || tid === '' || tid === '{{UUID}}';
}

function fillTids(request: BidRequest): void {
  if (request.source != null && !isJsonObject(request.source)) return;
  const source = (request.source ??= {}) as Json;
  if (lacksTid(source.tid)) source.tid = randomUUID();
  if (!Array.isArray(request.imp)) return;
  for (const imp of request.imp) {
    if (!isJsonObject(imp) || (imp.ext != null && !isJsonObject(imp.ext))) continue;
    const ext = (imp.ext ??= {}) as Json;
    if (lacksTid(ext.tid)) ext.tid = randomUUID();
  }
}

function firstHeader(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
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

/** The host's eTLD+1 by the public suffix list, private domains included (Go's publicsuffix); undefined when none. */
function registrableDomain(host: string): string | undefined {
  let domain = registrable.get(host);
  if (domain === undefined) {
    const colon = host.lastIndexOf(':');
    const name = colon > host.lastIndexOf(']') ? host.slice(0, colon) : host;
    domain = getDomain(name, { allowPrivateDomains: true });
    if (registrable.size >= REGISTRABLE_KEPT) registrable.delete(registrable.keys().next().value!);
    registrable.set(host, domain);
  }
  return domain ?? undefined;
}
