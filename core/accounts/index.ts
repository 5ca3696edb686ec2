import { ErrorCode, isJsonObject, type BidRequest } from '../api/index.js';
import type { AccountRefusal } from './account-service.js';

export { AccountService, UNKNOWN_ACCOUNT_ID, type AccountLoader, type AccountOutcome, type AccountRefusal, type AccountServiceSettings } from './account-service.js';
export { accountIdOf, decodedAccountIdOf, type AccountIdResult } from './account-id.js';
export { applyAccountDefaults } from './request-defaults.js';
export { accountSchema } from './account-schema.js';

/** A request from an app the host blocks (`auction.blockedApps`), refused with the 503 Prebid Server answers. */
export function blockedAppRefusal(request: BidRequest, blockedApps: ReadonlySet<string>): AccountRefusal | undefined {
  if (blockedApps.size === 0 || !isJsonObject(request.app)) return undefined;
  const id = request.app.id;
  if (typeof id !== 'string' || !blockedApps.has(id)) return undefined;
  return { status: 503, code: ErrorCode.AppBlocked, message: `Prebid-server does not process requests from App ID: ${id}` };
}
