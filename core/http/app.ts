import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import Koa from 'koa';
import { Router } from '@koa/router';
import type { PluginLogger } from '../api/index.js';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import { httpMetricsMiddleware, type Metrics } from '../metrics/index.js';
import { HttpError, parseJsonObject, readBody } from './body.js';
import { corsHandler } from './cors.js';

export type EndpointHandler = (request: EndpointRequest) => Promise<EndpointResponse>;

/** The routes one Gavel instance serves; the composition root fills it. */
export interface HttpRoutes {
  maxRequestBytes: number;
  allowedOrigins: string[];
  logger: PluginLogger;
  /** Counts every answer by route and status; outermost, so it sees the status the error handler settles on. */
  metrics?: Metrics;
  /** POST endpoints taking a JSON body. */
  jsonPost: Record<string, EndpointHandler>;
  /** GET endpoints reading the query string. */
  get: Record<string, EndpointHandler>;
  /** Extra routes a component registers itself (e.g. the bid cache). */
  extend?: (router: Router) => void;
}

function isSecure(req: IncomingMessage): boolean {
  if (req.socket && 'encrypted' in req.socket && req.socket.encrypted) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  if (!forwarded) return false;
  return String(forwarded).split(',')[0]!.trim().toLowerCase() === 'https';
}

/** The `uids` cookie as Koa's `ctx.cookies.get('uids')` reads it: the raw value, surrounding quotes removed. */
const UIDS_COOKIE = /(?:^|;) *uids=([^;]*)/;

function uidsCookieOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const value = UIDS_COOKIE.exec(header)?.[1];
  return value?.[0] === '"' ? value.slice(1, -1) : value;
}

/** The query string's parameters, the first value of each; parsed only when there is a query string. */
function queryParams(querystring: string): Record<string, string> {
  const query: Record<string, string> = {};
  if (!querystring) return query;
  const parsed = parseQueryString(querystring);
  for (const key in parsed) {
    const value = parsed[key];
    if (value !== undefined) query[key] = Array.isArray(value) ? value[0]! : value;
  }
  return query;
}

function toEndpointRequest(req: IncomingMessage, path: string, query: Record<string, string>, receivedAt: number, body?: Record<string, unknown>): EndpointRequest {
  return {
    method: req.method ?? 'GET',
    path,
    headers: req.headers,
    query,
    body,
    secure: isSecure(req),
    receivedAt,
    uidsCookie: uidsCookieOf(req.headers.cookie),
  };
}

/** Statuses that carry no body. */
const EMPTY_STATUSES = new Set([204, 205, 304]);

/**
 * Writes an endpoint's answer: objects as JSON, strings and buffers as they are. The content type a handler leaves
 * out is chosen as Koa chooses it, so an answer reads the same on either lane of the edge.
 */
function writeAnswer(res: ServerResponse, answer: EndpointResponse): void {
  res.statusCode = answer.status;
  const headers = answer.headers;
  for (const name in headers) res.setHeader(name, headers[name]!);
  let body = answer.body;
  if (body === undefined || body === null || EMPTY_STATUSES.has(answer.status)) {
    if (!EMPTY_STATUSES.has(answer.status)) res.statusCode = 204;
    res.removeHeader('content-type');
    res.end();
    return;
  }
  if (typeof body === 'string') {
    if (!res.hasHeader('content-type')) res.setHeader('content-type', /^\s*</.test(body) ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8');
  } else if (Buffer.isBuffer(body)) {
    if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/octet-stream');
  } else {
    if (!headers['content-type']) res.setHeader('content-type', 'application/json; charset=utf-8');
    body = JSON.stringify(body);
  }
  res.setHeader('content-length', Buffer.byteLength(body as string | Buffer));
  res.end(body);
}

/** An HttpError becomes its 4xx with a plain-text message; anything else is logged and answered with a bare 500. */
function writeError(res: ServerResponse, err: unknown, path: string, logger: PluginLogger): void {
  let status = 500;
  let text = 'Critical error.\n';
  if (err instanceof HttpError) {
    status = err.status;
    text = `${err.message}\n`;
  } else {
    logger.error({ err, path }, 'unhandled error');
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = status;
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** The HTTP edge: a node:http request listener, and `listen` to serve it. */
export interface HttpEdge {
  readonly listener: RequestListener;
  listen(port: number, host: string): Server;
}

/**
 * The HTTP edge: CORS, body limits and decompression, JSON parsing, and the mapping of errors to 4xx. No auction
 * logic lives here; each route hands an `EndpointRequest` to its handler and writes the `EndpointResponse` back.
 *
 * Two lanes. The endpoints with fixed paths (the JSON POST endpoints, the auction's hot path, and the plain GET
 * ones) are found with one map lookup and served on node's request and response directly: Koa's context, its
 * middleware promises and its response handling cost, measured on a trivial handler, a third to a half more CPU per
 * request than node:http alone.
 * Everything else (preflights aside: CORS answers them first, for every path) goes to Koa and @koa/router: routes
 * with parameters, HEAD, 405s, the cache routes a component registers, and paths spelt in another case or with a
 * trailing slash, which the router matches loosely.
 */
export function createHttpApp(routes: HttpRoutes): HttpEdge {
  const { logger, metrics, maxRequestBytes } = routes;
  const app = new Koa();
  const router = new Router();
  const applyCors = corsHandler(routes.allowedOrigins);
  const jsonPost = new Map(Object.entries(routes.jsonPost));
  const plainGet = new Map<string, EndpointHandler>();

  if (metrics) app.use(httpMetricsMiddleware(metrics));
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      ctx.respond = false;
      writeError(ctx.res, err, ctx.path, logger);
    }
  });
  for (const [path, handler] of Object.entries(routes.get)) {
    if (!path.includes(':')) plainGet.set(path, handler);
    router.get(path, async (ctx) => {
      const receivedAt = performance.timeOrigin + performance.now();
      const answer = await handler(toEndpointRequest(ctx.req, ctx.path, queryParams(ctx.querystring), receivedAt));
      // Written by the fast lane's writer, so both lanes answer alike; Koa is told to leave the response alone.
      ctx.respond = false;
      writeAnswer(ctx.res, answer);
    });
  }
  routes.extend?.(router);
  app.use(router.routes());
  app.use(router.allowedMethods());
  const viaKoa = app.callback();

  const serve = async (req: IncomingMessage, res: ServerResponse, handler: EndpointHandler, path: string, querystring: string): Promise<void> => {
    const receivedAt = performance.timeOrigin + performance.now();
    try {
      const query = queryParams(querystring);
      // Prebid.js marks a gzip body with `?gzip=1` when it cannot set Content-Encoding.
      const body = req.method === 'POST' ? parseJsonObject(await readBody(req, query.gzip === '1', maxRequestBytes)) : undefined;
      writeAnswer(res, await handler(toEndpointRequest(req, path, query, receivedAt, body)));
    } catch (err) {
      writeError(res, err, path, logger);
    }
    metrics?.httpRequest(path, res.statusCode);
  };

  const listener: RequestListener = (req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (applyCors(req, res)) {
      metrics?.httpRequest(path, res.statusCode);
      return;
    }
    const handler = req.method === 'POST' ? jsonPost.get(path) : req.method === 'GET' ? plainGet.get(path) : undefined;
    if (handler === undefined) {
      viaKoa(req, res);
      return;
    }
    void serve(req, res, handler, path, queryAt === -1 ? '' : url.slice(queryAt + 1));
  };

  return {
    listener,
    listen: (port, host) => createServer(listener).listen(port, host),
  };
}

/** Stops accepting, lets in-flight requests finish within `drainMs`, then drops whatever is left. */
export async function closeServer(server: Server, drainMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections become idle as their last response is written; close each as soon as it does.
  server.closeIdleConnections();
  const sweeper = setInterval(() => server.closeIdleConnections(), 50);
  let timer: NodeJS.Timeout | undefined;
  const drained = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), drainMs);
  });
  const result = await Promise.race([closed, drained]);
  clearTimeout(timer);
  clearInterval(sweeper);
  if (result === 'timeout') server.closeAllConnections();
}
