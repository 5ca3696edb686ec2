import { goDecodeProblem, goFieldNameMatches, goStructType, isJsonObject } from '../api/index.js';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { CacheClient, CachePut } from '../cache/index.js';
import { accountOf, integrationError, type AccountLoader } from './event-endpoint.js';
import { eventUrl, withImpressionTracker } from './event-urls.js';

export interface VtrackServices {
  cache: CacheClient;
  bidders: BidderCatalog;
  loadAccount: AccountLoader;
  externalUrl: string;
  timeoutMs: number;
  /** Insert tracking into the VAST of bidders this host does not know (`events.vtrackAllowUnknownBidder`). */
  allowUnknownBidder: boolean;
  now(): number;
}

const text = (status: number, body: string): EndpointResponse => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body });

interface VtrackPut {
  put: CachePut;
  bidId: string;
  bidder: string;
  timestamp?: number;
}

/**
 * `POST /vtrack?a=<account>[&int=]` with a Prebid Cache body (`{"puts": [{type, value, ttlseconds, bidid, bidder,
 * timestamp}]}`), as Prebid Server answers it: each VAST of a bidder that allows it (its `modifyingVastXmlAllowed`, or
 * any bidder this host does not know when the host allows that) gets an impression tracker (`/event?t=imp&f=b`), and
 * every value is put in the bid cache; the answer is the cache's `{"responses": [{"uuid"}]}`.
 */
export async function handleVtrack(input: EndpointRequest, services: VtrackServices): Promise<EndpointResponse> {
  const accountId = input.query.a ?? '';
  if (accountId === '') return text(400, "Account 'a' is required query parameter and can't be empty");
  const integration = input.query.int ?? '';
  const badIntegration = integrationError(integration);
  if (badIntegration) return text(400, `Invalid integration type: ${badIntegration}\n`);
  const read = readPuts(input.body);
  if ('error' in read) return text(400, `Invalid request: ${read.error}\n`);

  const loaded = await accountOf(accountId, services);
  if ('refused' in loaded) return loaded.refused;

  // No puts: Prebid Server's cache client puts nothing and answers no uuid.
  if (read.puts.length === 0) return { status: 200, headers: { 'content-type': 'application/json' }, body: { responses: [] } };
  const puts = read.puts.map(({ put, bidId, bidder, timestamp }) => {
    // Whatever its type: Prebid Server looks for `</Impression>` in any value of a bidder that allows it.
    if (typeof put.value !== 'string' || !allowsVast(bidder, services)) return put;
    const tracker = eventUrl(services.externalUrl, { type: 'imp', bidId, accountId, bidder, timestamp, format: 'b', integration: integration || undefined });
    const tracked = withImpressionTracker(put.value, tracker);
    return tracked === undefined ? put : { ...put, value: tracked };
  });
  const uuids = await services.cache.put(puts, services.now() + services.timeoutMs);
  if (uuids.some((uuid) => uuid === undefined)) return text(500, 'Error(s) updating vast: the bid cache did not store every value\n');
  return { status: 200, headers: { 'content-type': 'application/json' }, body: { responses: uuids.map((uuid) => ({ uuid })) } };
}

function allowsVast(bidder: string, services: VtrackServices): boolean {
  const entry = services.bidders.get(bidder);
  if (!entry) return services.allowUnknownBidder;
  return entry.enabled && entry.info.modifyingVastXmlAllowed === true;
}

/** Prebid Server's vtrack body, `events.BidCacheRequest`, as json-iterator decodes it. */
const CACHEABLE = goStructType('prebid_cache_client.Cacheable', {
  type: ['Type', 'string'],
  value: ['Data', 'raw'],
  ttlseconds: ['TTLSeconds', 'int'],
  key: ['Key', 'string'],
  bidid: ['BidID', 'string'],
  bidder: ['Bidder', 'string'],
  timestamp: ['Timestamp', 'int'],
});
const BID_CACHE_REQUEST = goStructType('events.BidCacheRequest', { puts: ['Puts', { slice: '[]prebid_cache_client.Cacheable', of: CACHEABLE }] });

/** A member of a decoded Go struct: matched ignoring case, the last one in the object wins, `null` is the zero value. */
function member(object: Record<string, unknown>, jsonName: string): unknown {
  let found: unknown;
  for (const key in object) if (Object.hasOwn(object, key) && goFieldNameMatches(key, jsonName)) found = object[key];
  return found ?? undefined;
}

/**
 * The puts, as Prebid Server's `ParseVTrackRequest` reads them: the body decoded as its Go struct (no puts at all is
 * an empty list), then every put must name its bid and its bidder, in order; what the bid cache itself takes (the
 * type) is checked after.
 */
function readPuts(body: unknown): { puts: VtrackPut[] } | { error: string } {
  const problem = goDecodeProblem(body, BID_CACHE_REQUEST);
  if (problem !== undefined) return { error: problem };
  const entries = (isJsonObject(body) ? (member(body, 'puts') as Record<string, unknown>[] | undefined) : undefined) ?? [];
  for (const entry of entries) {
    if (entry === null || !member(entry, 'bidid')) return { error: "'bidid' is required field and can't be empty" };
    if (!member(entry, 'bidder')) return { error: "'bidder' is required field and can't be empty" };
  }
  const puts: VtrackPut[] = [];
  for (const entry of entries) {
    const type = member(entry, 'type');
    if (type !== 'xml' && type !== 'json') return { error: "'type' must be \"xml\" or \"json\"" };
    const put: CachePut = { type, value: member(entry, 'value') };
    const ttlseconds = member(entry, 'ttlseconds') as number | undefined;
    if (ttlseconds) put.ttlseconds = ttlseconds;
    const timestamp = member(entry, 'timestamp') as number | undefined;
    puts.push({ put, bidId: member(entry, 'bidid') as string, bidder: member(entry, 'bidder') as string, timestamp: timestamp && timestamp > 0 ? timestamp : undefined });
  }
  return { puts };
}
