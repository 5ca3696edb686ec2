import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PluginLogger } from '../api/index.js';
import type { MetricsExposition } from './metrics.js';

export interface AdminServerOptions {
  /** Default 127.0.0.1: the admin endpoints are for the host's own agents, never the public. */
  host?: string;
  /** 0 picks a free port. */
  port: number;
  metrics: MetricsExposition;
  logger: PluginLogger;
  /** True while this instance should receive traffic: after it listens, and until it starts draining. */
  readiness: () => boolean;
}

export interface AdminServer {
  /** The address and port actually bound (the port is useful with port 0). */
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

const TEXT = 'text/plain; charset=utf-8';

function answer(res: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function isReady(readiness: () => boolean): boolean {
  try {
    return readiness() === true;
  } catch {
    return false;
  }
}

async function serveMetrics(res: ServerResponse, options: AdminServerOptions): Promise<void> {
  let text: string;
  try {
    text = await options.metrics.render();
  } catch (err) {
    options.logger.error({ err }, 'metrics could not be rendered');
    answer(res, 500, TEXT, 'metrics unavailable\n');
    return;
  }
  answer(res, 200, options.metrics.contentType, text);
}

function serveHealth(res: ServerResponse, options: AdminServerOptions): void {
  const ready = isReady(options.readiness);
  answer(res, ready ? 200 : 503, 'application/json', JSON.stringify({ status: ready ? 'ok' : 'unavailable' }));
}

function route(req: IncomingMessage, res: ServerResponse, options: AdminServerOptions): void {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (path !== '/metrics' && path !== '/health') {
    answer(res, 404, TEXT, 'not found\n');
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    answer(res, 405, TEXT, 'method not allowed\n', { allow: 'GET, HEAD' });
    return;
  }
  if (path === '/health') serveHealth(res, options);
  else void serveMetrics(res, options);
}

/**
 * The operators' listener: `GET /metrics` (Prometheus text format) and `GET /health` (200 when ready, 503 when not),
 * 404 for anything else. Separate from the public app so neither path is ever reachable from the internet by
 * accident; bound to loopback unless the host says otherwise.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => route(req, res, options));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => options.logger.error({ err }, 'admin server error'));
  const { address, port } = server.address() as AddressInfo;
  options.logger.info({ host: address, port }, 'admin endpoints listening (/metrics, /health)');
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
