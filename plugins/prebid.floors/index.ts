import { defineModule, readJsonBeside, SDK_VERSION } from '../../core/api/index.js';
import { FloorsFetcher } from './fetcher.js';
import { createFloorHooks, type FloorsModuleConfig } from './floors.js';

/** Price floors, as Prebid Server's `floors` package: signalled per imp, enforced on bids, fetched per account. */
export default defineModule<FloorsModuleConfig>({
  code: 'prebid.floors',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  description: 'Price floors (ext.prebid.floors, account rules, fetched files): imp.bidfloor per bidder, bids under the floor rejected.',
  // Our specification applies the floors a request carries by default (reference-behaviour section 13).
  enabledByDefault: true,
  stages: ['processed-auction-request', 'bidder-request', 'all-processed-bid-responses'],
  configSchema: readJsonBeside(import.meta.url, './config.schema.json'),
  create(config, deps) {
    const fetches = deps.metrics?.counter({
      name: 'gavel_floors_fetches_total',
      help: 'Floors files fetched, by outcome',
      labels: { status: ['success', 'error', 'timeout', 'too-large', 'invalid'] },
    });
    const fetcher = new FloorsFetcher({
      maxEntries: config.fetcher?.maxEntries ?? 10_000,
      logger: deps.logger,
      count: fetches ? (status) => fetches.inc({ status }) : undefined,
    });
    return createFloorHooks(fetcher);
  },
});
