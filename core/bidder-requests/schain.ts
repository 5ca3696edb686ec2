import { isJsonObject } from '../api/index.js';

type Json = Record<string, unknown>;

/** Supply chains per bidder (`ext.<ns>.schains`) and the host's own node, read once per auction. */
export interface SchainPlan {
  /** By bidder name as the entry spells it (Prebid Server matches names exactly); `*` for every bidder not named. */
  byBidder: Map<string, Json>;
  hostNode: Json | undefined;
}

/**
 * Reads `ext.<ns>.schains: [{bidders: [...], schain: {...}}]`. A bidder named in two entries is the client's mistake
 * (Prebid Server's 400). Undefined when there is nothing to write into any bidder's request.
 */
export function planSchains(options: Json | undefined, hostNode: Json | undefined, namespace: string): SchainPlan | { error: string } | undefined {
  const entries = options?.schains;
  if (!hostNode && !Array.isArray(entries)) return undefined;
  const byBidder = new Map<string, Json>();
  if (Array.isArray(entries)) {
    for (const entry of entries) {
      if (!isJsonObject(entry) || !Array.isArray(entry.bidders) || !isJsonObject(entry.schain)) continue;
      for (const bidder of entry.bidders) {
        if (typeof bidder !== 'string') continue;
        if (byBidder.has(bidder)) {
          return { error: `request.ext.${namespace}.schains contains multiple schains for bidder ${bidder}; it must contain no more than one per bidder.` };
        }
        byBidder.set(bidder, entry.schain);
      }
    }
  }
  if (byBidder.size === 0 && !hostNode) return undefined;
  return { byBidder, hostNode };
}

/**
 * The `source` one bidder receives: `source.schain` is the bidder's own chain from `ext.<ns>.schains` (named as the
 * request names the bidder, case included; else the wildcard's), with the host's node appended when the host has one.
 * A bidder with neither keeps the request's `source`. With only the host's node, the chain starts from scratch
 * (`ver` 1.0 and that node): as in Prebid Server's schain writer, the request's own `source.schain` is replaced.
 */
export function sourceFor(plan: SchainPlan, bidder: string, source: unknown): Json | undefined {
  const own = plan.byBidder.get(bidder) ?? plan.byBidder.get('*');
  const current = isJsonObject(source) ? source : undefined;
  if (!own && !plan.hostNode) return current;
  const base = own ?? { complete: 0, nodes: [], ver: '1.0' };
  const schain: Json = { ...base };
  if (plan.hostNode) schain.nodes = [...(Array.isArray(base.nodes) ? base.nodes : []), plan.hostNode];
  return { ...current, schain };
}
