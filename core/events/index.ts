import type { BidderCatalog } from '../bidders/catalog.js';
import type { CacheServices } from '../cache/index.js';
import type { GavelConfig } from '../config/index.js';
import type { EndpointHandler } from '../http/app.js';
import type { AccountLoader as AccountService } from '../accounts/index.js';
import { handleEvent, type AccountLoader, type EventConsumer } from './event-endpoint.js';
import { handleVtrack } from './vtrack-endpoint.js';

export { eventTrackingFor, trackBid, type EventTracking } from './bid-events.js';
export { eventUrl, withImpressionTracker, type EventRequest } from './event-urls.js';
export { accountOf, handleEvent, parseEvent, PIXEL_PNG, type AccountLoader, type EventConsumer, type NotificationEvent } from './event-endpoint.js';
export { handleVtrack } from './vtrack-endpoint.js';

export const EVENT_PATH = '/event';
export const VTRACK_PATH = '/vtrack';

/** What the event endpoints use; built once at boot. */
export interface EventRouteServices {
  config: GavelConfig;
  bidders: BidderCatalog;
  cache: CacheServices;
  /** The account service (`Tokens.Accounts`): events read accounts as the auction does, host defaults under them. */
  accounts: AccountService;
  /** Where accepted events go (analytics binds its consumer under `Tokens.EventConsumer`). */
  onEvent: EventConsumer;
}

/** GET /event (win and impression events) and POST /vtrack (impression tracking in cached VAST). */
export function eventRoutes(services: EventRouteServices): {
  get: Record<string, EndpointHandler>;
  jsonPost: Record<string, EndpointHandler>;
} {
  const { timeoutMs, vtrackAllowUnknownBidder } = services.config.events;
  const loadAccount: AccountLoader = (id) => services.accounts.load(id);
  return {
    get: { [EVENT_PATH]: (request) => handleEvent(request, { loadAccount, onEvent: services.onEvent, timeoutMs, bidders: services.bidders }) },
    jsonPost: {
      [VTRACK_PATH]: (request) =>
        handleVtrack(request, {
          cache: services.cache.client,
          bidders: services.bidders,
          loadAccount,
          externalUrl: services.config.server.externalUrl,
          timeoutMs,
          allowUnknownBidder: vtrackAllowUnknownBidder,
          now: Date.now,
        }),
    },
  };
}
