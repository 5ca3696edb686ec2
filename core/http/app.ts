import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import Koa from 'koa';
import { Router } from '@koa/router';
import type { PluginLogger } from '../api/index.js';
import type { EndpointRequest, EndpointResponse } from '../auction/endpoint-types.js';
import { OTHER, type Metrics } from '../metrics/index.js';
import { DEFAULT_MAX_JSON_DEPTH, HttpError, parseJsonObject, readBody } from './body.js';
import { answerPreflight, corsHandler } from './cors.js';
import { responseCompressor, type CompressionSettings, type ResponseCompressor } from './compression.js';
import { LoadShedder, type LoadSheddingSettings } from './load-shedding.js';
import { NOT_FOUND, RouteTable, type PathMatch, type Route } from './routes.js';
import { REQUEST_ID_HEADER, RequestLogger, requestIdOf, writeAccessLine, type AccessLog, type AccessNote } from './request-log.js';

export { REQUEST_ID_HEADER, RequestLogger, type AccessLog, type AccessLogSettings, type AccessNote } from './request-log.js';
export { fastRoutes, RouteTable, type EndpointHandler, type FastRoute, type KoaRoute, type PathRoutes, type Route, type RouteMethod } from './routes.js';

/** What one Gavel instance serves; the composition root fills it. */
export interface HttpRoutes {
  maxRequestBytes: number;
  /** Deepest nesting of arrays and objects a JSON body may have (default 64). */
  maxJsonDepth?: number;
  /** How long a client may take to send a request's headers, and the whole request (Node's defaults: 60 s and 300 s). */
  timeouts?: { headersMs: number; requestMs: number };
  /** Load shedding for the auction endpoints (`/openrtb2/*`); none when absent. */
  shedding?: LoadSheddingSettings;
  allowedOrigins: string[];
  logger: PluginLogger;
  /** Counts every answer by route pattern and status. */
  metrics?: Metrics;
  /** The routing table: every public endpoint, and the lane that serves it. */
  routes: readonly Route[];
  /** One line per request, when the host keeps an access log. */
  accessLog?: AccessLog;
  /** Response compression (`compression.response`); off when absent. */
  compression?: CompressionSettings;
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

/** What the edge knows of a request besides its HTTP parts: its id, its logger, its access-line note. */
interface Exchange {
  requestId: string;
  logger: RequestLogger;
  access: AccessNote | undefined;
}

function toEndpointRequest(req: IncomingMessage, found: PathMatch, query: Record<string, string>, receivedAt: number, exchange: Exchange, body?: Record<string, unknown>): EndpointRequest {
  return {
    requestId: exchange.requestId,
    logger: exchange.logger,
    access: exchange.access,
    method: req.method ?? 'GET',
    path: found.path,
    params: found.params,
    headers: req.headers,
    query,
    body,
    secure: isSecure(req),
    remoteAddress: req.socket.remoteAddress,
    receivedAt,
    uidsCookie: uidsCookieOf(req.headers.cookie),
  };
}

/** The routes load shedding applies to: the auction endpoints. */
const AUCTION_PREFIX = '/openrtb2/';

/** Statuses that carry no body. */
const EMPTY_STATUSES = new Set([204, 205, 304]);

/**
 * Writes an endpoint's answer: objects as JSON, strings and buffers as they are. The content type a handler leaves
 * out is chosen as Koa chooses it, so an answer reads the same on either lane of the edge.
 */
function writeAnswer(res: ServerResponse, answer: EndpointResponse, req: IncomingMessage, compress: ResponseCompressor | undefined): void {
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
  if (compress) body = compress(req, res, body as string | Buffer);
  res.setHeader('content-length', Buffer.byteLength(body as string | Buffer));
  res.end(body);
}

/**
 * The Koa lane's answers go through the fast lane's compressor: the handler's body is serialised as Koa would write
 * it (an object as JSON) and, when the compressor encodes it, replaced by the encoded bytes, for which Koa then sets
 * the content length. A stream body is left as it is: no Koa-lane route answers with one.
 */
function compressKoaAnswer(compress: ResponseCompressor): Koa.Middleware {
  return async (ctx, next) => {
    await next();
    const body: unknown = ctx.body;
    if (body === undefined || body === null || EMPTY_STATUSES.has(ctx.status)) return;
    let plain: string | Buffer;
    if (typeof body === 'string' || Buffer.isBuffer(body)) plain = body;
    else if (typeof body === 'object' && isJsonBody(body)) plain = JSON.stringify(body);
    else return;
    const encoded = compress(ctx.req, ctx.res, plain);
    if (encoded !== plain) ctx.body = encoded;
  };
}

/** An object Koa writes as JSON (not a stream, blob or other instance). */
function isJsonBody(body: object): boolean {
  const proto: unknown = Object.getPrototypeOf(body);
  return proto === Object.prototype || proto === null || Array.isArray(body);
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
  // An answer before the body was read (a 413, a bad encoding): the rest of the body would be read as the next
  // request, or left unread with the connection hanging. The connection ends with this answer instead.
  if (res.req && !res.req.readableEnded) res.setHeader('connection', 'close');
  res.statusCode = status;
  if (err instanceof HttpError && err.headers) for (const name in err.headers) res.setHeader(name, err.headers[name]!);
  res.setHeader('content-type', 'text/plain; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  res.end(text);
}

/** The HTTP edge: a node:http request listener, and `listen` to serve it. */
export interface HttpEdge {
  readonly listener: RequestListener;
  /** The compiled routing table the listener serves. */
  readonly routes: RouteTable;
  listen(port: number, host: string): Server;
  /** From now on every answer says `Connection: close`: a keep-alive connection carries no request after it. */
  drain(): void;
}

/**
 * The HTTP edge: CORS, routing, body limits and decompression, JSON parsing, and the mapping of errors to 4xx. No
 * auction logic lives here; each route hands an `EndpointRequest` to its handler and writes the `EndpointResponse`
 * back.
 *
 * Every request is routed once, by the one routing table (see RouteTable for the rule), before either lane sees it,
 * so 404, 405, HEAD and OPTIONS are decided alike for every path, and the one metric is recorded here, by pattern.
 * Two lanes then serve the routes. The fast lane answers on node's request and response directly: Koa's context,
 * its middleware promises and its response handling cost, measured on a trivial handler, a third to a half more CPU
 * per request than node:http alone, and the auction is the hot path. The Koa lane serves handlers written against a
 * Koa context (the bid cache routes) through @koa/router, which is handed the path in its declared spelling.
 */
export function createHttpApp(options: HttpRoutes): HttpEdge {
  const { logger, metrics, maxRequestBytes } = options;
  const maxJsonDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const table = new RouteTable(options.routes);
  const applyCors = corsHandler(options.allowedOrigins);
  const compress = responseCompressor(options.compression);
  metrics?.declareRoutes(table.paths.map((path) => path.pattern));

  const koaRoutes = options.routes.filter((route) => route.lane === 'koa');
  let viaKoa: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  if (koaRoutes.length > 0) {
    const app = new Koa();
    // Strict and case-sensitive: it only ever sees a path the table already matched and spelt as declared.
    const router = new Router({ strict: true, sensitive: true });
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (err) {
        ctx.respond = false;
        writeError(ctx.res, err, ctx.path, logger);
      }
    });
    if (compress) app.use(compressKoaAnswer(compress));
    for (const route of koaRoutes) router.register(route.path, [route.method], route.handler);
    app.use(router.routes());
    viaKoa = app.callback();
  }

  const accessLog = options.accessLog;
  let draining = false;
  const shedder = options.shedding ? new LoadShedder(options.shedding) : undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const startedAt = performance.now();
    const receivedAt = performance.timeOrigin + startedAt;
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const requestId = requestIdOf(req);
    const exchange: Exchange = { requestId, logger: new RequestLogger(logger, requestId), access: accessLog?.settings.enabled ? {} : undefined };
    res.setHeader(REQUEST_ID_HEADER, requestId);
    if (draining) res.setHeader('connection', 'close');
    applyCors(req, res);
    let label: string = OTHER;
    let admitted = false;
    try {
      const found = table.find(path);
      if (found === undefined) throw NOT_FOUND;
      label = found.routes.pattern;
      const method = req.method ?? 'GET';
      const route = found.routes.methods.get(method);
      if (route === undefined) {
        if (method !== 'OPTIONS') throw found.routes.notAllowed;
        answerPreflight(req, res, found.routes.allow);
      } else if (route.lane === 'fast') {
        // Before anything is read or parsed: an overloaded process answers an auction at once, for nearly nothing.
        if (shedder && found.routes.pattern.startsWith(AUCTION_PREFIX)) {
          const refused = shedder.admit();
          if (refused !== undefined) {
            metrics?.shed(refused);
            throw shedder.refusal;
          }
          admitted = true;
        }
        const query = queryParams(queryAt === -1 ? '' : url.slice(queryAt + 1));
        // Prebid.js marks a gzip body with `?gzip=1` when it cannot set Content-Encoding.
        const body = route.method === 'POST' ? parseJsonObject(await readBody(req, query.gzip === '1', maxRequestBytes), maxJsonDepth) : undefined;
        const answer = await route.handler(toEndpointRequest(req, found, query, receivedAt, exchange, body));
        // A drain that began while the auction ran: this is the connection's last answer.
        if (draining) res.setHeader('connection', 'close');
        writeAnswer(res, answer, req, compress);
      } else {
        if (path !== found.path) req.url = queryAt === -1 ? found.path : found.path + url.slice(queryAt);
        await viaKoa!(req, res);
      }
    } catch (err) {
      if (draining) res.setHeader('connection', 'close');
      writeError(res, err, path, exchange.logger);
    }
    if (admitted) shedder!.done();
    metrics?.httpRequest(label, res.statusCode);
    if (exchange.access) writeAccessLine(accessLog!, req, res, { requestId, path, route: label, startedAt, note: exchange.access });
  };

  const listener: RequestListener = (req, res) => void handle(req, res);
  return {
    listener,
    routes: table,
    listen: (port, host) => {
      const timeouts = options.timeouts;
      const server = timeouts
        ? // Node checks these timeouts on an interval (30 s by default): checked each second, a slow client is cut close to its limit.
          createServer({ headersTimeout: timeouts.headersMs, requestTimeout: timeouts.requestMs, connectionsCheckingInterval: 1000 }, listener)
        : createServer(listener);
      return server.listen(port, host);
    },
    drain: () => {
      draining = true;
      shedder?.stop();
    },
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
