import type { GavelConfig } from '../config/index.js';
import { InspectorStore } from './store.js';

export { inspectorMount, type AuctionRunner } from './routes.js';
export { AuctionWatchers } from './watch.js';
export { InspectorStore } from './store.js';
export type { AuctionRecord } from './record.js';

/**
 * The inspector's store, when this process serves it: the admin listener is on, and Gavel runs as one process (a
 * cluster's primary serves the admin port but runs no auction, and its workers' records would be out of its reach).
 */
export function createInspectorStore(config: GavelConfig): InspectorStore | undefined {
  if (!config.admin.enabled || config.server.workers > 1) return undefined;
  return new InspectorStore(config.admin.inspector);
}
