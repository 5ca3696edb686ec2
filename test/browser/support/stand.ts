/**
 * The browser suite's stand: what a publisher's page meets in production, on 127.0.0.1.
 *
 *   publisher site   http://127.0.0.1:<p>     the page, Prebid.js (bundled from the npm package) and the AMP page
 *   Gavel            https://localhost:<t>    a TLS proxy (self-signed, made by openssl) in front of an in-process
 *                                             Gavel, so the page calls another site, with CORS and credentials, and
 *                                             the `uids` cookie (SameSite=None; Secure) is kept
 *   bidders          http://127.0.0.1:<b>     the simulated OpenRTB bidder (one per query string)
 *   bidder sync      http://127.0.0.1:<s>     a bidder's user-sync redirect
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryFetcher } from '../../../core/stored/index.js';
import { replacing, startGavel, type RunningGavel } from '../../support/gavel.js';
import { startMockBidder, type MockBidder } from '../../support/mock-bidder.js';
import { buildPrebidBundle } from './prebid-bundle.js';
import { AMP_PAGE, PUBLISHER_PAGE, RUNNER_SCRIPT } from './pages.js';

/** A VAST document a video bidder answers: its name makes each bid's cached VAST tell which bid it is. */
export const vastOf = (name: string): string => `<VAST version="3.0"><Ad id="${name}"><InLine><AdSystem>${name}</AdSystem><AdTitle>${name}</AdTitle></InLine></Ad></VAST>`;

/** The AMP slot's stored request: a banner imp offered to alpha and beta. */
export const AMP_TAG_ID = 'amp-sports-top';
function ampStoredRequest(): Record<string, unknown> {
  return {
    id: 'amp-stored',
    site: { page: 'https://news.example/amp-story', publisher: { id: 'pub-1' } },
    imp: [{ id: 'amp-imp', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {}, beta: {} } } } }],
  };
}

/** The uid the simulated bidder's sync gives the browser. */
export const SYNCED_UID = 'alpha-browser-uid-7';

/** What the TLS proxy saw of one request to Gavel. */
export interface ProxiedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  /** The first bytes of the body (a gzip body starts 1f 8b). */
  head: Buffer;
}

export interface Stand {
  /** The publisher's origin (`http://127.0.0.1:<p>`). */
  site: string;
  /** Gavel as the page reaches it (`https://localhost:<t>`). */
  gavelUrl: string;
  gavel: RunningGavel;
  bidder: MockBidder;
  /** Every request the TLS proxy forwarded to Gavel. */
  proxied: ProxiedRequest[];
  /** Every request the bidders' sync server got. */
  syncs: string[];
  close(): Promise<void>;
}

export interface StandOptions {
  /** Bidders that answer 200 with a body that is not OpenRTB (the negative check). */
  garbage?: string[];
}

/** The bidders of the stand's Gavel: each an `ortb` bidder on the simulated bidder, told how to answer by its query. */
function bidderQueries(): Record<string, string> {
  return {
    alpha: 'name=alpha&price=2.5&adm=' + encodeURIComponent('<div id="alpha-ad" style="width:300px;height:250px;background:#2a6">alpha creative</div>'),
    beta: 'name=beta&price=1.2',
    vida: `name=vida&price=3&adm=${encodeURIComponent(vastOf('vida'))}`,
    vidb: `name=vidb&price=1&adm=${encodeURIComponent(vastOf('vidb'))}`,
    nat: 'name=nat&price=1.8&native=root',
    slow: 'name=slow&price=9&delayMs=2500',
  };
}

function listen(server: Server | TlsServer): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: Server | TlsServer): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A self-signed certificate for localhost and 127.0.0.1, made fresh for the run. */
function selfSignedCertificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'gavel-browser-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=localhost',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** HTTPS in front of Gavel, as a TLS-terminating load balancer is: it says so in `X-Forwarded-Proto`. */
function tlsProxy(target: () => number, proxied: ProxiedRequest[]): TlsServer {
  return createTlsServer(selfSignedCertificate(), (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      proxied.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, head: body.subarray(0, 8) });
      const upstream = httpRequest(
        { host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-proto': 'https', 'content-length': String(body.length) } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      upstream.end(body);
    });
  });
}

/** A bidder's sync endpoint: redirects the browser back to Gavel's /setuid with its uid. */
function syncServer(syncs: string[]): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://sync');
    if (url.pathname === '/sync') {
      syncs.push(req.url ?? '');
      const back = url.searchParams.get('r') ?? '';
      res.writeHead(302, { location: back.replace('$UID', SYNCED_UID) }).end();
      return;
    }
    res.writeHead(404).end();
  });
}

/** The publisher's site: the page, Prebid.js, the runner script, and the AMP page. */
function publisherSite(bundle: string, gavelUrl: () => string): Server {
  return createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://site').pathname;
    if (path === '/prebid.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    else if (path === '/runner.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(RUNNER_SCRIPT);
    else if (path === '/amp.html') res.writeHead(200, { 'content-type': 'text/html' }).end(AMP_PAGE(gavelUrl()));
    else if (path === '/' || path === '/page.html') res.writeHead(200, { 'content-type': 'text/html' }).end(PUBLISHER_PAGE);
    else if (path === '/favicon.ico') res.writeHead(204).end();
    else res.writeHead(404).end();
  });
}

let bundleSource: string | undefined;

export async function startStand(options: StandOptions = {}): Promise<Stand> {
  bundleSource ??= buildPrebidBundle();
  const proxied: ProxiedRequest[] = [];
  const syncs: string[] = [];
  const bidder = await startMockBidder();
  const sync = syncServer(syncs);
  const syncPort = await listen(sync);
  let gavelUrl = '';
  const site = publisherSite(bundleSource, () => gavelUrl);
  const sitePort = await listen(site);
  // The proxy listens first: Gavel's externalUrl (where sync redirects and cache URLs point) is the proxy's address.
  let gavelPort = 0;
  const proxy = tlsProxy(() => gavelPort, proxied);
  gavelUrl = `https://localhost:${await listen(proxy)}`;

  const bidders: Record<string, Record<string, unknown>> = {};
  for (const [name, query] of Object.entries(bidderQueries())) {
    const endpoint = `${bidder.url}/rtb?${query}${options.garbage?.includes(name) ? '&garbage=1' : ''}`;
    bidders[name] = { adapter: 'ortb', endpoint };
  }
  // A bidder on an adapter with a params schema (appnexus), to send bad params to; never called with them.
  bidders.strict = { adapter: 'appnexus', endpoint: `${bidder.url}/rtb?name=strict` };
  bidders.alpha!.userSync = { redirect: { url: `http://127.0.0.1:${syncPort}/sync?gdpr={{.GDPR}}&r={{.RedirectURL}}`, userMacro: '$UID' } };
  const stored = new MemoryFetcher({ requests: { [AMP_TAG_ID]: ampStoredRequest() } });
  const gavel = await startGavel({ server: { externalUrl: gavelUrl }, auction: { generateBidId: true }, bidders }, { configure: replacing({ stored }) });
  gavelPort = Number(new URL(gavel.url).port);

  return {
    site: `http://127.0.0.1:${sitePort}`,
    gavelUrl,
    gavel,
    bidder,
    proxied,
    syncs,
    async close() {
      await close(proxy);
      await gavel.close();
      await bidder.close();
      await close(sync);
      await close(site);
    },
  };
}
