import { isJsonObject, type BidderConfig, type PluginLogger } from '../../core/api/index.js';

/**
 * What a host must arrange with Magnite before Rubicon bids: XAPI credentials (sent as HTTP basic auth), a tracker
 * id (the `tk_xint` query parameter) and the regional endpoint. The host's public URL and version travel in each
 * imp's targeting (`pbs_url`, `pbs_version`) so Magnite can tell integrations apart.
 *
 * Host configuration (`bidders.rubicon`):
 *   endpoint: https://exapi-us-east.rubiconproject.com/a/api/exchange
 *   extra: { xapi: { username, password, tracker }, externalUrl, hostVersion }
 */
export interface RubiconHostSettings {
  /** The endpoint with the tracker query parameter already appended. */
  uri: string;
  username: string;
  password: string;
  externalUrl: string;
  hostVersion: string;
}

/**
 * Used for every value the host leaves out. These are the values of Prebid Server's own reference host (the one its
 * Rubicon fixtures were recorded with), not a real Magnite account: the endpoint `uri` is not even a URL, so the
 * core refuses to send to it and an unconfigured Rubicon can never reach Magnite with made-up credentials.
 */
export const PLACEHOLDER_HOST = {
  endpoint: 'uri',
  username: 'xuser',
  password: 'xpass',
  tracker: 'pbs-test-tracker',
  externalUrl: 'http://hosturl.com',
  hostVersion: '',
} as const;

export function readHostSettings(config: BidderConfig, logger: PluginLogger): RubiconHostSettings {
  const extra = config.extra ?? {};
  const xapi = isJsonObject(extra.xapi) ? extra.xapi : {};
  const username = nonEmptyString(xapi.username);
  if (username === undefined) {
    logger.warn({ bidder: config.name }, 'rubicon: no extra.xapi.username configured; using placeholder XAPI settings');
  }
  // Magnite's own default: the tracker is the username unless they issued a separate one.
  const tracker = nonEmptyString(xapi.tracker) ?? username ?? PLACEHOLDER_HOST.tracker;
  const endpoint = nonEmptyString(config.endpoint) ?? PLACEHOLDER_HOST.endpoint;
  return {
    uri: appendQueryParam(endpoint, 'tk_xint', tracker),
    username: username ?? PLACEHOLDER_HOST.username,
    password: nonEmptyString(xapi.password) ?? (username === undefined ? PLACEHOLDER_HOST.password : ''),
    externalUrl: nonEmptyString(extra.externalUrl) ?? PLACEHOLDER_HOST.externalUrl,
    hostVersion: nonEmptyString(extra.hostVersion) ?? PLACEHOLDER_HOST.hostVersion,
  };
}

export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

function appendQueryParam(uri: string, name: string, value: string): string {
  const separator = uri.includes('?') ? '&' : '?';
  return `${uri}${separator}${name}=${encodeURIComponent(value)}`;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
