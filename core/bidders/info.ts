import { jsonResponse, type EndpointRequest, type EndpointResponse } from '../auction/endpoint-types.js';
import type { BidderCatalog, BidderEntry } from './catalog.js';

function describe(entry: BidderEntry): Record<string, unknown> {
  const info = entry.info;
  const described: Record<string, unknown> = {
    status: entry.enabled ? 'ACTIVE' : 'DISABLED',
    adapter: entry.adapter,
    maintainer: info.maintainer,
    capabilities: info.capabilities,
  };
  if (entry.aliasOf) described.aliasOf = entry.aliasOf;
  if (entry.disabledReason) described.disabledReason = entry.disabledReason;
  if (entry.endpoint) described.endpoint = entry.endpoint.template;
  if (info.gvlVendorId !== undefined) described.gvlVendorId = info.gvlVendorId;
  if (info.userSync) described.userSync = info.userSync;
  if (info.ortbVersion) described.openrtb = { version: info.ortbVersion };
  return described;
}

/** The read-only bidder discovery endpoints. */
export function bidderInfoHandlers(catalog: BidderCatalog): Record<string, (request: EndpointRequest) => Promise<EndpointResponse>> {
  const sorted = [...catalog.entries.values()].sort((a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : 1));
  return {
    '/info/bidders': async (request) => {
      const enabledOnly = request.query.enabledonly === 'true';
      return jsonResponse(200, sorted.filter((entry) => !enabledOnly || entry.enabled).map((entry) => entry.name));
    },
    '/info/bidders/:name': async (request) => {
      const name = request.params?.name ?? '';
      const entry = catalog.get(name);
      if (!entry) return { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `Unknown bidder: ${name}\n` };
      return jsonResponse(200, describe(entry));
    },
    '/bidders/params': async () => {
      const schemas: Record<string, unknown> = {};
      for (const entry of sorted) schemas[entry.name] = entry.paramsSchema ?? {};
      return jsonResponse(200, schemas);
    },
  };
}
