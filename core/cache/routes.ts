import type { IncomingMessage } from 'node:http';
import type { Router } from '@koa/router';
import type { PluginLogger } from '../api/index.js';
import type { KoaRoute } from '../http/routes.js';
import type { CacheClientLimits, ClientRefusal } from './client-limits.js';
import { checkPut, maxRequestBodyBytes, type CacheLimits } from './limits.js';
import type { CacheEntry, CacheStore } from './store.js';

export interface CacheRouteOptions {
  logger?: Pick<PluginLogger, 'error'>;
  /** Rate and share limits per client of `POST /cache`; none when absent. */
  clientLimits?: CacheClientLimits;
  /** Told of each put refused by them (a metric). */
  onRefused?: () => void;
}

/**
 * Served with every value: it came from a client, so a browser must neither run it as a document of this origin
 * (an XHTML value with a script, say) nor guess another type for it.
 */
const VALUE_HEADERS = { 'content-security-policy': 'sandbox', 'x-content-type-options': 'nosniff' } as const;

const CONTENT_TYPES = { json: 'application/json', xml: 'application/xml' } as const;

/** The slice of a koa context the cache routes use; keeps the handlers independent of the host's state types. */
interface HttpExchange {
  req: IncomingMessage;
  request: unknown;
  query: Record<string, string | string[] | undefined>;
  status: number;
  body: unknown;
  type: string;
  set(field: string, value: string): void;
}

/**
 * The Prebid Cache protocol endpoints, as rows of the public routing table: `POST /cache` stores up to
 * `maxPutsPerRequest` values and answers their uuids in order; `GET /cache?uuid=` serves one back. The POST body is
 * read here, under a size limit derived from `limits`, so the route needs no body-parsing middleware.
 */
export function cacheRoutes(store: CacheStore, limits: CacheLimits, options: CacheRouteOptions = {}): KoaRoute[] {
  const bodyLimit = maxRequestBodyBytes(limits);
  return [
    { method: 'POST', path: '/cache', lane: 'koa', handler: (ctx) => handlePut(ctx, store, limits, bodyLimit, options) },
    { method: 'GET', path: '/cache', lane: 'koa', handler: (ctx) => handleGet(ctx, store, options) },
  ];
}

/** The same endpoints on a router of the caller's (a stand-alone cache server). */
export function registerCacheRoutes<S, C>(router: Router<S, C>, store: CacheStore, limits: CacheLimits, options: CacheRouteOptions = {}): void {
  for (const route of cacheRoutes(store, limits, options)) router.register(route.path, [route.method], route.handler as Parameters<Router<S, C>['register']>[2]);
}

async function handlePut(ctx: HttpExchange, store: CacheStore, limits: CacheLimits, bodyLimit: number, options: CacheRouteOptions): Promise<void> {
  const client = ctx.req.socket?.remoteAddress ?? '';
  const limited = options.clientLimits?.admit(client);
  if (limited) return refuse(ctx, limited, options);
  const body = await readJsonBody(ctx, bodyLimit);
  if (!body.ok) return sendText(ctx, body.status, body.message);

  const entries = checkPuts(body.value, limits);
  if (!entries.ok) return sendText(ctx, 400, entries.messages.join('\n'));
  const overShare = options.clientLimits?.reserve(client, entries.entries);
  if (overShare) return refuse(ctx, overShare, options);

  let uuids: string[];
  try {
    uuids = await store.put(entries.entries);
  } catch (error) {
    options.logger?.error({ err: error }, 'bid cache store failed to put');
    return sendText(ctx, 500, 'the cache store is unavailable; try again later');
  }
  ctx.status = 200;
  ctx.body = { responses: uuids.map((uuid) => ({ uuid })) };
}

async function handleGet(ctx: HttpExchange, store: CacheStore, options: CacheRouteOptions): Promise<void> {
  for (const [name, value] of Object.entries(VALUE_HEADERS)) ctx.set(name, value);
  const uuid = ctx.query.uuid;
  if (Array.isArray(uuid)) return sendText(ctx, 400, 'give the query parameter uuid only once');
  if (!uuid) return sendText(ctx, 400, 'missing query parameter uuid: GET /cache?uuid=<id>');

  let stored;
  try {
    stored = await store.get(uuid);
  } catch (error) {
    options.logger?.error({ err: error }, 'bid cache store failed to get');
    return sendText(ctx, 500, 'the cache store is unavailable; try again later');
  }
  if (!stored) return sendText(ctx, 404, `no cached value for uuid ${uuid}: it was never stored or has expired`);
  ctx.status = 200;
  ctx.body = stored.value;
  ctx.type = CONTENT_TYPES[stored.type];
}

function refuse(ctx: HttpExchange, refusal: ClientRefusal, options: CacheRouteOptions): void {
  options.onRefused?.();
  ctx.set('retry-after', String(refusal.retryAfterSeconds));
  sendText(ctx, refusal.status, refusal.message);
}

type PutsCheck = { ok: true; entries: CacheEntry[] } | { ok: false; messages: string[] };

/** Validates the whole `{"puts":[...]}` document; every bad put is reported, one line each. */
function checkPuts(body: unknown, limits: CacheLimits): PutsCheck {
  const puts = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).puts : undefined;
  if (!Array.isArray(puts)) {
    return { ok: false, messages: ['the body must be a JSON object with a "puts" array: {"puts":[{"type":"json","value":...}]}'] };
  }
  if (puts.length === 0) return { ok: false, messages: ['"puts" is empty: give at least one value to cache'] };
  if (puts.length > limits.maxPutsPerRequest) {
    return { ok: false, messages: [`too many puts: ${puts.length} given, at most ${limits.maxPutsPerRequest} per request`] };
  }
  const entries: CacheEntry[] = [];
  const messages: string[] = [];
  puts.forEach((put, index) => {
    const checked = checkPut(put, limits);
    if (checked.ok) entries.push(checked.entry);
    else messages.push(`puts[${index}] ${checked.reason}`);
  });
  return messages.length > 0 ? { ok: false, messages } : { ok: true, entries };
}

type BodyRead = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

async function readJsonBody(ctx: HttpExchange, limit: number): Promise<BodyRead> {
  // A body-parsing middleware mounted by the host may have consumed the stream already: use its result then.
  const parsed = (ctx.request as { body?: unknown }).body;
  if (parsed !== undefined) return { ok: true, value: parsed };

  const raw = await readRawBody(ctx.req, limit);
  if (!raw.ok) return raw;
  try {
    return { ok: true, value: JSON.parse(raw.text) };
  } catch (error) {
    return { ok: false, status: 400, message: `the body is not valid JSON: ${(error as Error).message}` };
  }
}

type RawRead = { ok: true; text: string } | { ok: false; status: 400 | 413; message: string };

/**
 * Reads the request stream into a string, giving up with 413 as soon as it passes `limit` bytes. The rest of an
 * oversized body is drained rather than the socket destroyed, so the client still receives the 413.
 */
function readRawBody(req: IncomingMessage, limit: number): Promise<RawRead> {
  const tooLarge: RawRead = { ok: false, status: 413, message: `the body is larger than the limit of ${limit} bytes` };
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.resolve(tooLarge);
  }
  if (req.readableEnded) return Promise.resolve({ ok: true, text: '' });

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > limit) {
        finish(tooLarge);
        req.resume();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => finish({ ok: true, text: Buffer.concat(chunks).toString('utf8') });
    const onError = (): void => finish({ ok: false, status: 400, message: 'the body could not be read completely' });
    const finish = (result: RawRead): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onError);
      // Keep a listener so a late socket error on a drained request is not an unhandled 'error' event.
      req.on('error', () => undefined);
      resolve(result);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}

function sendText(ctx: HttpExchange, status: number, message: string): void {
  ctx.status = status;
  ctx.body = message;
  ctx.type = 'text/plain; charset=utf-8';
}
