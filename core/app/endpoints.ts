import { ampRoutes } from '../amp/index.js';
import { userSyncRoutes } from '../usersync/index.js';
import { videoRoutes } from '../video/index.js';
import type { AuctionPipeline } from '../auction/pipeline.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { CacheServices } from '../cache/index.js';
import type { GavelConfig } from '../config/index.js';
import type { EndpointHandler } from '../http/app.js';
import type { StoredDataFetcher } from '../stored/index.js';
import type { Logger } from './logger.js';

/** What every endpoint handler may use; built once at boot. */
export interface EndpointServices {
  pipeline: AuctionPipeline;
  stored: StoredDataFetcher;
  config: GavelConfig;
  cache: CacheServices;
  bidders: BidderCatalog;
  logger: Logger;
}

/** The endpoints beyond /openrtb2/auction (AMP, video, user sync) add their routes here. */
export function endpointContributions(services: EndpointServices): { jsonPost: Record<string, EndpointHandler>; get: Record<string, EndpointHandler> } {
  const userSync = userSyncRoutes(services);
  return {
    jsonPost: { ...videoRoutes(services).jsonPost, ...userSync.jsonPost },
    get: { ...ampRoutes(services).get, ...userSync.get },
  };
}
