import { isJsonObject, type BidderConfig, type PluginLogger } from '../../core/api/index.js';

/**
 * What a host must arrange with Magnite before Rubicon bids: the regional endpoint and XAPI credentials (sent as
 * HTTP basic auth), and the tracker id (the `tk_xint` query parameter). The host's public URL (`server.externalUrl`)
 * and version travel in each imp's targeting (`pbs_url`, `pbs_version`) so Magnite can tell integrations apart.
 *
 * Host configuration (`bidders.rubicon`):
 *   endpoint: https://exapi-us-east.rubiconproject.com/a/api/exchange
 *   extra: { xapi: { username, password, tracker }, hostVersion }   (hostVersion: defaults to the host's Gavel version)
 */
export interface RubiconHostSettings {
  /** The endpoint with the tracker query parameter added. */
  uri: string;
  username: string;
  password: string;
  externalUrl: string;
  hostVersion: string;
  /** False until the host gave XAPI credentials: the bidder then sends nothing. */
  configured: boolean;
}

export function readHostSettings(config: BidderConfig, logger: PluginLogger): RubiconHostSettings {
  const extra = config.extra ?? {};
  const xapi = isJsonObject(extra.xapi) ? extra.xapi : {};
  const username = stringOr(xapi.username);
  const password = stringOr(xapi.password);
  const configured = username !== '' && password !== '';
  if (!configured) {
    logger.warn({ bidder: config.name }, 'rubicon: no XAPI credentials (extra.xapi.username and password); the bidder sends nothing until they are set');
  }
  return {
    uri: withTracker(config.endpoint, stringOr(xapi.tracker)),
    username,
    password,
    externalUrl: config.host.externalUrl,
    hostVersion: typeof extra.hostVersion === 'string' ? extra.hostVersion : (config.host.version ?? ''),
    configured,
  };
}

export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * The endpoint with `tk_xint=<tracker>` added to its query, as Prebid Server adds it (Go's url.Values: the query's
 * keys sorted, values form-encoded). An endpoint that is not a URL (a test host's bare path) gets it appended.
 */
function withTracker(endpoint: string, tracker: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `${endpoint}${endpoint.includes('?') ? '&' : '?'}tk_xint=${formEncode(tracker)}`;
  }
  const params = [...url.searchParams.entries(), ['tk_xint', tracker] as [string, string]];
  // A stable sort by key keeps the order of repeated keys, as Go's Encode does.
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  url.search = params.map(([key, value]) => `${formEncode(key)}=${formEncode(value)}`).join('&');
  return url.toString();
}

/** Go's `url.QueryEscape`: letters, digits and `-_.~` as they are, space as `+`, every other byte as `%XX`. */
function formEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

function stringOr(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
