import { jsonResponse, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import type { BidderCatalog, BidderEntry } from './catalog.js';

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };
const INVALID_ENABLED_ONLY = "Invalid value for 'enabledonly' query param, must be of boolean type";
const INVALID_BASE_ADAPTERS_ONLY = "Invalid value for 'baseadaptersonly' query param, must be of boolean type";

/** A `MediaType[]` per kind of inventory, in Prebid Server's order: app, site, dooh. */
function capabilitiesOf(info: BidderEntry['info']): Record<string, { mediaTypes: string[] }> | undefined {
  const capabilities = info.capabilities;
  if (!capabilities) return undefined;
  const described: Record<string, { mediaTypes: string[] }> = {};
  for (const kind of ['app', 'site', 'dooh'] as const) {
    const platform = capabilities[kind];
    if (platform) described[kind] = { mediaTypes: [...(platform.mediaTypes ?? [])] };
  }
  return described;
}

/**
 * A bidder as Prebid Server's `/info/bidders/<name>` describes it: its status; when enabled, whether its endpoint is
 * https and its capabilities; its maintainer; the adapter an alias stands for.
 */
function describe(entry: BidderEntry): Record<string, unknown> {
  const info = entry.info;
  const described: Record<string, unknown> = { status: entry.enabled ? 'ACTIVE' : 'DISABLED' };
  if (entry.enabled) {
    const endpoint = entry.endpoint?.template ?? info.endpoint ?? '';
    described.usesHttps = endpoint.toLowerCase().startsWith('https://');
  }
  if (info.maintainer) described.maintainer = { email: info.maintainer.email ?? '' };
  if (entry.enabled) {
    const capabilities = capabilitiesOf(info);
    if (capabilities) described.capabilities = capabilities;
  }
  if (entry.aliasOf) described.aliasOf = entry.aliasOf;
  return described;
}

/** A boolean query flag as Prebid Server reads it: absent is false; present, `true` or `false` in any case; else undefined. */
function queryFlag(query: Record<string, string>, name: string): boolean | undefined {
  if (!Object.hasOwn(query, name)) return false;
  const value = query[name]!.toLowerCase();
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/** Go's `sort.Strings`: byte order (UTF-16 code units agree with it for the names bidders have). */
const byName = (a: BidderEntry, b: BidderEntry): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** The read-only bidder discovery endpoints. */
export function bidderInfoHandlers(catalog: BidderCatalog): Record<string, (request: EndpointRequest) => Promise<EndpointResponse>> {
  const sorted = [...catalog.entries.values()].sort(byName);
  // Every answer is fixed at boot, as Prebid Server prepares them.
  const lists = new Map<string, string[]>();
  for (const enabledOnly of [false, true]) {
    for (const baseOnly of [false, true]) {
      lists.set(`${enabledOnly}/${baseOnly}`, sorted.filter((entry) => (!enabledOnly || entry.enabled) && (!baseOnly || !entry.aliasOf)).map((entry) => entry.name));
    }
  }
  const details = new Map(sorted.map((entry) => [entry.name.toLowerCase(), describe(entry)]));
  const all: Record<string, unknown> = {};
  for (const entry of sorted) all[entry.name] = details.get(entry.name.toLowerCase());
  return {
    '/info/bidders': async (request) => {
      const enabledOnly = queryFlag(request.query, 'enabledonly');
      if (enabledOnly === undefined) return { status: 400, headers: TEXT, body: INVALID_ENABLED_ONLY };
      const baseOnly = queryFlag(request.query, 'baseadaptersonly');
      if (baseOnly === undefined) return { status: 400, headers: TEXT, body: INVALID_BASE_ADAPTERS_ONLY };
      return jsonResponse(200, lists.get(`${enabledOnly}/${baseOnly}`));
    },
    '/info/bidders/:name': async (request) => {
      const name = (request.params?.name ?? '').toLowerCase();
      if (name === 'all') return jsonResponse(200, all);
      const detail = details.get(name);
      if (!detail) return { status: 404, headers: TEXT, body: '' };
      return jsonResponse(200, detail);
    },
    '/bidders/params': async () => {
      const schemas: Record<string, unknown> = {};
      for (const entry of sorted) schemas[entry.name] = entry.paramsSchema ?? {};
      return jsonResponse(200, schemas);
    },
  };
}
