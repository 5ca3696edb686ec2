import type { Server } from 'node:http';
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

function isSecure(ctx: Koa.Context): boolean {
  if (ctx.req.socket && 'encrypted' in ctx.req.socket && ctx.req.socket.encrypted) return true;
  const forwarded = ctx.req.headers['x-forwarded-proto'];
  if (!forwarded) return false;
  return String(forwarded).split(',')[0]!.trim().toLowerCase() === 'https';
}

function toEndpointRequest(ctx: Koa.Context, receivedAt: number, body?: Record<string, unknown>): EndpointRequest {
  // Query and cookies are parsed only when the request has them: most auctions carry neither.
  const query: Record<string, string> = {};
  if (ctx.querystring) for (const [key, value] of Object.entries(ctx.query)) if (value !== undefined) query[key] = Array.isArray(value) ? value[0]! : value;
  return {
    method: ctx.method,
    path: ctx.path,
    headers: ctx.headers,
    query,
    body,
    secure: isSecure(ctx),
    receivedAt,
    uidsCookie: ctx.headers.cookie ? (ctx.cookies.get('uids') ?? undefined) : undefined,
  };
}

function write(ctx: Koa.Context, answer: EndpointResponse): void {
  ctx.status = answer.status;
  const headers = answer.headers;
  for (const name in headers) ctx.set(name, headers[name]!);
  if (typeof answer.body === 'string' || Buffer.isBuffer(answer.body)) ctx.body = answer.body;
  else {
    // The content type is set before the body, so Koa does not guess one from the text.
    if (!headers['content-type']) ctx.set('content-type', 'application/json; charset=utf-8');
    ctx.body = JSON.stringify(answer.body);
  }
}

/** An HttpError becomes its 4xx with a plain-text message; anything else is logged and answered with a bare 500. */
function answerError(ctx: Koa.Context, err: unknown, logger: PluginLogger): void {
  ctx.type = 'text/plain; charset=utf-8';
  if (err instanceof HttpError) {
    ctx.status = err.status;
    ctx.body = `${err.message}\n`;
    return;
  }
  logger.error({ err, path: ctx.path }, 'unhandled error');
  ctx.status = 500;
  ctx.body = 'Critical error.\n';
}

/**
 * The HTTP edge: CORS, body limits and decompression, JSON parsing, and the mapping of errors to 4xx. No auction
 * logic lives here; each route hands an `EndpointRequest` to its handler and writes the `EndpointResponse` back.
 */
export function createHttpApp(routes: HttpRoutes): Koa {
  const app = new Koa();
  const router = new Router();

  if (routes.metrics) app.use(httpMetricsMiddleware(routes.metrics));

  // One middleware for CORS, the error mapping and the JSON POST endpoints (the auction's hot path): each layer of
  // Koa middleware costs a promise and a closure per request. The JSON POST endpoints have fixed paths, so one map
  // lookup finds them where the router would walk its whole table; everything else goes on to @koa/router.
  const applyCors = corsHandler(routes.allowedOrigins);
  const jsonPost = new Map(Object.entries(routes.jsonPost));
  app.use(async (ctx, next) => {
    if (applyCors(ctx)) return;
    try {
      const handler = ctx.method === 'POST' ? jsonPost.get(ctx.path) : undefined;
      if (!handler) return await next();
      const receivedAt = performance.timeOrigin + performance.now();
      const body = parseJsonObject(await readBody(ctx, routes.maxRequestBytes));
      write(ctx, await handler(toEndpointRequest(ctx, receivedAt, body)));
    } catch (err) {
      answerError(ctx, err, routes.logger);
    }
  });
  for (const [path, handler] of Object.entries(routes.get)) {
    router.get(path, async (ctx) => {
      const receivedAt = performance.timeOrigin + performance.now();
      write(ctx, await handler(toEndpointRequest(ctx, receivedAt)));
    });
  }
  routes.extend?.(router);
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
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
