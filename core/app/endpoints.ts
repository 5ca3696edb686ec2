import { ampRoutes } from '../amp/index.js';
import { eventRoutes, type EventConsumer } from '../events/index.js';
import { userSyncRoutes } from '../usersync/index.js';
import { videoRoutes } from '../video/index.js';
import type { BidCacheService, TargetingService } from '../api/index.js';
import type { AuctionEndpointServices } from '../auction/auction-endpoint.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { CacheServices } from '../cache/index.js';
import type { CategoryMappings } from '../auction/category-mappings.js';
import type { EndpointHandler } from '../http/app.js';
import type { Logger } from './logger.js';
import type { PrivacyService } from '../privacy/index.js';

/** What every endpoint handler may use; built once at boot. */
export interface EndpointServices extends AuctionEndpointServices {
  cache: CacheServices;
  bidders: BidderCatalog;
  logger: Logger;
  /** The hook-point services the video endpoint keys and caches its pods with. */
  targeting: TargetingService;
  bidCache: BidCacheService;
  /** The host's brand-category mappings (`video.categoryMappings`), loaded at boot. */
  categories: CategoryMappings;
  /** Where `GET /event` sends the events it accepts (analytics). */
  onEvent: EventConsumer;
  /** The privacy service (consent for user syncs). */
  privacy: PrivacyService;
}

/** The endpoints beyond /openrtb2/auction (AMP, video, user sync, events) add their routes here. */
export function endpointContributions(services: EndpointServices): { jsonPost: Record<string, EndpointHandler>; get: Record<string, EndpointHandler> } {
  const userSync = userSyncRoutes(services);
  const events = eventRoutes(services);
  return {
    jsonPost: { ...videoRoutes(services).jsonPost, ...userSync.jsonPost, ...events.jsonPost },
    get: { ...ampRoutes(services).get, ...userSync.get, ...events.get },
  };
}
