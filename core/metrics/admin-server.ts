import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PluginLogger } from '../api/index.js';
import type { MetricsExposition } from './metrics.js';
import type { ReadinessReport } from './readiness.js';

/** What the stored-data invalidation endpoint hands on: everything, or the named documents. */
export type InvalidationOrder = { all: true } | { changes: Array<{ kind: string; id: string }> };

export interface AdminServerOptions {
  /** Default 127.0.0.1: the admin endpoints are for the host's own agents, never the public. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  metrics: MetricsExposition;
  /** Each worker's metrics apart, a `worker` label on every series (`GET /metrics/workers`); only with workers. */
  workerMetrics?: MetricsExposition;
  logger: PluginLogger;
  /**
   * Whether this instance should receive traffic: after it listens, until it starts draining, while the backends the
   * host requires are up. A report also names each backend's state in the answer.
   */
  readiness: () => boolean | ReadinessReport;
  /**
   * Reads the body of `POST /stored/invalidate` (an order, or the message saying what is wrong with it) and carries
   * it out; absent, the path is 404.
   */
  invalidation?: {
    read(body: unknown): InvalidationOrder | { error: string };
    apply(order: InvalidationOrder): void | Promise<void>;
  };
  /** More pages, each under its own path prefix (the auction inspector, the OpenAPI document). */
  mounts?: readonly AdminMount[];
}

/** Pages served on the admin listener under `prefix` (the path itself, and any path below it); they check methods. */
export interface AdminMount {
  prefix: string;
  serve(req: IncomingMessage, res: ServerResponse, path: string): void | Promise<void>;
}

/**
 * A read-only JSON page on the admin listener at exactly `path` (GET and HEAD; 405 for other methods, 404 below it);
 * `body` gives its text for each GET.
 */
export function jsonAdminMount(path: string, body: () => string): AdminMount {
  return {
    prefix: path,
    serve(req, res, requested) {
      if (requested !== path) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' }).end('method not allowed\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body());
    },
  };
}

export interface AdminServer {
  /** The address and port actually bound (the port is useful with port 0). */
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';
const JSON_TYPE = 'application/json';
/** Largest body the invalidation endpoint reads: ids of a few thousand documents. */
const MAX_BODY_BYTES = 256 * 1024;

function answer(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function readiness(options: AdminServerOptions): ReadinessReport {
  try {
    const report = options.readiness();
    return typeof report === 'boolean' ? { ready: report, backends: {} } : report;
  } catch {
    return { ready: false, backends: {} };
  }
}

async function serveMetrics(res: ServerResponse, exposition: MetricsExposition, logger: PluginLogger): Promise<void> {
  let text: string;
  try {
    text = await exposition.render();
  } catch (err) {
    logger.error({ err }, 'metrics could not be rendered');
    answer(res, 500, TEXT, 'metrics unavailable\n');
    return;
  }
  answer(res, 200, exposition.contentType, text);
}

function serveHealth(res: ServerResponse, options: AdminServerOptions): void {
  const { ready, backends } = readiness(options);
  const body: Record<string, unknown> = { status: ready ? 'ok' : 'unavailable' };
  if (Object.keys(backends).length > 0) body.backends = backends;
  answer(res, ready ? 200 : 503, JSON_TYPE, JSON.stringify(body));
}

async function serveInvalidation(req: IncomingMessage, res: ServerResponse, invalidation: NonNullable<AdminServerOptions['invalidation']>): Promise<void> {
  let text = '';
  let tooLarge = false;
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > MAX_BODY_BYTES) {
      tooLarge = true;
      break;
    }
  }
  if (tooLarge) return answer(res, 413, TEXT, `the body is larger than ${MAX_BODY_BYTES} bytes: send the ids in several calls\n`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(res, 400, TEXT, 'the body is not JSON: send {"all": true} or {"requests": ["id"], "imps": [...], "accounts": [...], "responses": [...]}\n');
  }
  const order = invalidation.read(body);
  if ('error' in order) return answer(res, 400, TEXT, `${order.error}\n`);
  await invalidation.apply(order);
  answer(res, 200, JSON_TYPE, JSON.stringify('all' in order ? { invalidated: 'all' } : { invalidated: order.changes.length }));
}

interface AdminRoute {
  methods: readonly string[];
  serve(req: IncomingMessage, res: ServerResponse): void | Promise<void>;
}

function adminRoutes(options: AdminServerOptions): Map<string, AdminRoute> {
  const read = ['GET', 'HEAD'];
  const routes = new Map<string, AdminRoute>([
    ['/metrics', { methods: read, serve: (_req, res) => serveMetrics(res, options.metrics, options.logger) }],
    ['/health', { methods: read, serve: (_req, res) => serveHealth(res, options) }],
  ]);
  const { workerMetrics, invalidation } = options;
  if (workerMetrics) routes.set('/metrics/workers', { methods: read, serve: (_req, res) => serveMetrics(res, workerMetrics, options.logger) });
  if (invalidation) routes.set('/stored/invalidate', { methods: ['POST'], serve: (req, res) => serveInvalidation(req, res, invalidation) });
  return routes;
}

/**
 * The operators' listener: `GET /metrics` (Prometheus text format), `GET /health` (200 when ready, 503 when not),
 * with workers `GET /metrics/workers`, and `POST /stored/invalidate`; 404 for anything else. Separate from the public
 * app so none of these is ever reachable from the internet by accident; bound to loopback unless the host says otherwise.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const host = options.host ?? '127.0.0.1';
  const routes = adminRoutes(options);
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt < 0 ? url : url.slice(0, queryAt);
    const route = routes.get(path);
    const mount = route ? undefined : options.mounts?.find((candidate) => path === candidate.prefix || path.startsWith(`${candidate.prefix}/`));
    if (!route && !mount) return answer(res, 404, TEXT, 'not found\n');
    if (route && !route.methods.includes(req.method ?? 'GET')) return answer(res, 405, TEXT, 'method not allowed\n', { allow: route.methods.join(', ') });
    // Through a promise, so that a page that throws, at once or later, is answered 500 and logged.
    Promise.resolve()
      .then(() => (route ? route.serve(req, res) : mount!.serve(req, res, path)))
      .catch((err: unknown) => {
        options.logger.error({ err, path: url }, 'admin endpoint failed');
        if (!res.headersSent) answer(res, 500, TEXT, 'failed\n');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => options.logger.error({ err }, 'admin server error'));
  const { address, port } = server.address() as AddressInfo;
  options.logger.info({ host: address, port, paths: [...routes.keys(), ...(options.mounts ?? []).map((mount) => mount.prefix)] }, 'admin endpoints listening');
  return {
    host: address,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scrape in flight is worth nothing once the process stops: don't let it hold the shutdown.
        server.closeAllConnections();
      }),
  };
}
