import { isJsonObject } from '../api/index.js';
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

  const puts = read.puts.map(({ put, bidId, bidder, timestamp }) => {
    if (put.type !== 'xml' || typeof put.value !== 'string' || !allowsVast(bidder, services)) return put;
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

function readPuts(body: unknown): { puts: VtrackPut[] } | { error: string } {
  if (!isJsonObject(body) || !Array.isArray(body.puts)) return { error: 'the body must be {"puts": [...]}' };
  const puts: VtrackPut[] = [];
  for (const entry of body.puts) {
    if (!isJsonObject(entry)) return { error: 'every put must be an object' };
    if (typeof entry.bidid !== 'string' || entry.bidid === '') return { error: "'bidid' is required field and can't be empty" };
    if (typeof entry.bidder !== 'string' || entry.bidder === '') return { error: "'bidder' is required field and can't be empty" };
    if (entry.type !== 'xml' && entry.type !== 'json') return { error: "'type' must be \"xml\" or \"json\"" };
    const put: CachePut = { type: entry.type, value: entry.value };
    if (typeof entry.ttlseconds === 'number') put.ttlseconds = entry.ttlseconds;
    const timestamp = typeof entry.timestamp === 'number' && entry.timestamp > 0 ? entry.timestamp : undefined;
    puts.push({ put, bidId: entry.bidid, bidder: entry.bidder, timestamp });
  }
  return { puts };
}
