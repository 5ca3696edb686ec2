import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Container } from 'inversify';
import { pino } from 'pino';
import { bootGavel, type BootOptions, type GavelApp } from '../../core/app/boot.js';
import { Tokens, type Clock } from '../../core/app/tokens.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import type { CacheStore } from '../../core/cache/index.js';
import { checkConfig, deepMerge, defaultConfig, type GavelConfig } from '../../core/config/index.js';
import type { Metrics } from '../../core/metrics/index.js';
import type { StoredDataFetcher } from '../../core/stored/index.js';

export const silentLogger = pino({ level: 'silent' });

/** A config for tests: the embedded defaults, quiet logs, and whatever the test adds. */
export function testConfig(overrides: Record<string, unknown> = {}): GavelConfig {
  const base = deepMerge(structuredClone(defaultConfig) as unknown as Record<string, unknown>, { logging: { level: 'silent' } });
  return checkConfig(deepMerge(base, overrides), 'test');
}

export interface RunningGavel {
  app: GavelApp;
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** The core services a test may replace. */
export interface Replacements {
  transport?: BidderTransport;
  cacheStore?: CacheStore;
  stored?: StoredDataFetcher;
  clock?: Clock;
  metrics?: Metrics;
}

/** A `configure` step that rebinds each given service's token: how tests replace the core's services. */
export function replacing(services: Replacements): (container: Container) => void {
  return (container) => {
    if (services.transport) container.rebind(Tokens.BidderTransport).toConstantValue(services.transport);
    if (services.cacheStore) container.rebind(Tokens.CacheStore).toConstantValue(services.cacheStore);
    if (services.stored) container.rebind(Tokens.StoredData).toConstantValue({ fetcher: services.stored, close: async () => undefined });
    if (services.clock) container.rebind(Tokens.Clock).toConstantValue(services.clock);
    if (services.metrics) container.rebind(Tokens.Metrics).toConstantValue(services.metrics);
  };
}

/** Boots Gavel on an ephemeral loopback port; `boot.configure` may rebind services (see `replacing`). */
export async function startGavel(overrides: Record<string, unknown> = {}, boot: BootOptions = {}): Promise<RunningGavel> {
  const app = await bootGavel(testConfig(overrides), boot);
  const server = await app.listen(0, '127.0.0.1');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { app, server, url, close: () => app.close() };
}

/** An HTTP answer as the tests read it: status, raw text, JSON when the text is JSON, and how long it took. */
export interface HttpAnswer {
  status: number;
  text: string;
  json: any;
  headers: Headers;
  elapsedMs: number;
}

/** Fetches and reads the whole answer, timing it from the call. */
export async function fetchAnswer(url: string, init: RequestInit = {}): Promise<HttpAnswer> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: response.headers, elapsedMs: performance.now() - started };
}

export function getJson(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return fetchAnswer(url, { headers });
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return fetchAnswer(url, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
}

/** A minimal valid auction request offering one banner imp to the named bidders. */
export function bannerRequest(bidders: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'req-1',
    site: { page: 'https://publisher.example/article' },
    imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: bidders }],
    tmax: 500,
    ...extra,
  };
}

/** A Gavel and the simulated bidder behind its `ortb` bidders, started once for a mocha suite. */
export interface SuiteServers {
  readonly gavel: RunningGavel;
  readonly bidder: import('./mock-bidder.js').MockBidder;
}

/**
 * Registers `before`/`after` hooks that start a simulated bidder and a Gavel whose bidders are `ortb` bidders on
 * it: `{ alpha: 'name=alpha&price=1.25' }` declares `alpha` answering per that query (see the simulated bidder).
 */
export function useGavelWithBidders(bidderQueries: Record<string, string>, config: Record<string, unknown> = {}): SuiteServers {
  const servers = {} as { gavel: RunningGavel; bidder: import('./mock-bidder.js').MockBidder };
  before(async () => {
    const { startMockBidder } = await import('./mock-bidder.js');
    servers.bidder = await startMockBidder();
    const bidders = Object.fromEntries(Object.entries(bidderQueries).map(([name, query]) => [name, { adapter: 'ortb', endpoint: `${servers.bidder.url}/rtb?${query}` }]));
    servers.gavel = await startGavel({ ...config, bidders: { ...bidders, ...(config.bidders as Record<string, unknown> | undefined) } });
  });
  after(async () => {
    await servers.gavel?.close();
    await servers.bidder?.close();
  });
  return servers;
}
