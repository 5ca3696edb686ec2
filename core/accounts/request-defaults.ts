import { encodeRequestOptionsAsPrebidServer, isJsonObject, type AccountSettings, type BidRequest, type Namespace } from '../api/index.js';

type Json = Record<string, unknown>;

/**
 * An account's request defaults, written into the request once its account is known, so that every service and
 * module (the built-in ones or their replacements) reads one place, the request:
 * - `price_granularity`: the granularity of a request that asks for targeting without one;
 * - `targeting`: targeting options under the request's own (`includewinners`...), when it asks for targeting;
 * - `bidadjustmentfactors`: factors per bidder under the request's;
 * - `default_integration`: `integration` of a request that names none (or ""), as Prebid Server's
 *   setIntegrationType writes it; `ext.<ns>` is then written back as its struct writes it (see
 *   encodeRequestOptionsAsPrebidServer), members it does not know gone.
 * The request wins wherever it says something. A request to an account with none of these is not touched. The
 * account's `bidadjustments` rules are not written in: Prebid Server merges them under the request's in its
 * exchange, and judges the merged rules there (the bid-adjustment service reads them from `context.account`).
 */
export function applyAccountDefaults(request: BidRequest, namespace: Namespace, account: AccountSettings): void {
  const { price_granularity: granularity, targeting, bidadjustmentfactors: factors } = account;
  const integration = account.default_integration || undefined;
  if (granularity === undefined && targeting === undefined && factors === undefined && integration === undefined) return;
  if (request.ext !== undefined && !isJsonObject(request.ext)) return;
  const ext = (request.ext ??= {}) as Json;
  if (ext[namespace] !== undefined && !isJsonObject(ext[namespace])) return;
  const options = (ext[namespace] ??= {}) as Json;

  if (isJsonObject(options.targeting)) {
    if (targeting) options.targeting = { ...targeting, ...options.targeting };
    const asked = options.targeting as Json;
    if (granularity !== undefined && asked.pricegranularity === undefined) asked.pricegranularity = granularity;
  }
  if (factors) options.bidadjustmentfactors = isJsonObject(options.bidadjustmentfactors) ? { ...factors, ...options.bidadjustmentfactors } : options.bidadjustmentfactors ?? { ...factors };
  if (integration !== undefined && (options.integration == null || options.integration === '')) {
    options.integration = integration;
    ext[namespace] = encodeRequestOptionsAsPrebidServer(options);
  }
  if (Object.keys(ext[namespace] as Json).length === 0) delete ext[namespace];
  if (Object.keys(ext).length === 0) delete request.ext;
}
