import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EndpointRequest, EndpointResponse } from '../../core/auction/endpoint-types.js';
import { buildBidderCatalog, type BidderCatalog } from '../../core/bidders/catalog.js';
import { createHttpApp, fastRoutes } from '../../core/http/app.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
import { userSyncHandlers, type UserSyncDeps } from '../../core/usersync/index.js';
import { PrivacyService, VendorLists } from '../../core/privacy/index.js';
import { silentLogger, testConfig } from '../support/gavel.js';

/** A fixed "now" so expiry dates in the tests are exact. */
export const NOW = Date.parse('2025-03-01T12:00:00.000Z');
export const DAY_MS = 86_400_000;
export const EXTERNAL_URL = 'https://gavel.example.com';

/** The real bidder catalog (the installed adapters with their shipped user-sync info) under a test config. */
export async function userSyncDeps(config: Record<string, unknown> = {}, now = NOW): Promise<UserSyncDeps> {
  // ix ships disabled until a host gives it its own endpoint: this test host does, so ix takes part in user sync.
  const full = testConfig({ server: { externalUrl: EXTERNAL_URL }, bidders: { ix: { endpoint: 'https://ix.example/pbs' } }, ...config });
  const bidders: BidderCatalog = buildBidderCatalog(full, await discoverPlugins(), silentLogger);
  return { config: full, bidders, privacy: new PrivacyService(full.privacy, VendorLists.fromFiles(full.privacy.gdpr.vendorLists)), now: () => now };
}

/** An endpoint request as the HTTP edge would build it, with the `uids` cookie lifted out of `cookie`. */
export function endpointRequest(options: { method?: string; path: string; query?: Record<string, string>; body?: Record<string, unknown>; cookie?: string; userAgent?: string }): EndpointRequest {
  const uidsCookie = options.cookie?.split(';').map((pair) => pair.trim()).find((pair) => pair.startsWith('uids='))?.slice('uids='.length);
  return {
    method: options.method ?? 'GET',
    path: options.path,
    headers: { ...(options.cookie ? { cookie: options.cookie } : {}), ...(options.userAgent ? { 'user-agent': options.userAgent } : {}) },
    query: options.query ?? {},
    body: options.body,
    secure: true,
    receivedAt: NOW,
    uidsCookie,
  };
}

/** A `uids` cookie value written by hand in the documented format (not by the code under test). */
export function handWrittenUids(entries: Record<string, { uid: string; expires: number }>, extra: Record<string, unknown> = {}): string {
  const tempUIDs: Record<string, { uid: string; expires: string }> = {};
  for (const [key, entry] of Object.entries(entries)) tempUIDs[key] = { uid: entry.uid, expires: new Date(entry.expires).toISOString() };
  return Buffer.from(JSON.stringify({ tempUIDs, ...extra })).toString('base64');
}

/** The JSON inside a `uids` cookie value. */
export function decodeUids(value: string): { tempUIDs: Record<string, { uid: string; expires: string }>; optout?: boolean } {
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
}

/** Splits a `Set-Cookie` header into its value and its attributes (attribute names lower-cased). */
export function parseSetCookie(header: string): { name: string; value: string; attributes: Record<string, string> } {
  const [pair, ...rest] = header.split(';').map((part) => part.trim());
  const separator = pair!.indexOf('=');
  const attributes: Record<string, string> = {};
  for (const attribute of rest) {
    const [name, ...value] = attribute.split('=');
    attributes[name!.toLowerCase()] = value.join('=');
  }
  return { name: pair!.slice(0, separator), value: pair!.slice(separator + 1), attributes };
}

/** The `uids` value a handler's answer sets. */
export function setUidsValue(response: EndpointResponse): string {
  const header = response.headers['set-cookie'];
  if (!header) throw new Error(`no Set-Cookie in answer ${response.status}: ${String(response.body)}`);
  return parseSetCookie(header).value;
}

/** The user-sync routes behind the real HTTP edge (CORS, cookies, body parsing, answer writing) on a loopback port. */
export async function startUserSyncServer(deps: UserSyncDeps): Promise<{ url: string; close(): Promise<void> }> {
  const handlers = userSyncHandlers(deps);
  const routes = [...fastRoutes('POST', handlers.jsonPost), ...fastRoutes('GET', handlers.get)];
  const app = createHttpApp({ maxRequestBytes: 65536, allowedOrigins: [], logger: silentLogger, routes });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
