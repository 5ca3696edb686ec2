import type { BidRequest, BidsPayload, HookContext, HookResult } from '../../../core/api/index.js';

type AdjustResult = HookResult<BidsPayload> | undefined;

/**
 * The adjust-bids hook: multiplies the price of each of a bidder's bids by that bidder's factor in
 * `request.ext.<ns>.bidadjustmentfactors`, which lets a publisher net down a bidder that bids gross.
 * `originalPrice` keeps the price as bid. Synchronous.
 */
export function adjustBids(payload: Readonly<BidsPayload>, context: HookContext): AdjustResult {
  if (payload.bids.length === 0) return undefined;
  const factor = adjustmentFactor(payload.request, context.namespace, payload.bidder);
  if (factor === undefined || factor === 1) return undefined;
  return {
    action: 'update',
    changes: [
      (bids) => {
        for (const auctionBid of bids.bids) auctionBid.bid.price *= factor;
      },
    ],
  };
}

/**
 * The factor for `bidder` (a bidder or alias name, matched without regard to case), or undefined when there is
 * none. Factors that are not positive numbers are ignored: refusing them with a 400 is the validator's job.
 */
export function adjustmentFactor(request: BidRequest, namespace: string, bidder: string): number | undefined {
  const serviceExt = request.ext?.[namespace];
  const factors = isObject(serviceExt) ? serviceExt.bidadjustmentfactors : undefined;
  if (!isObject(factors)) return undefined;
  const key = Object.hasOwn(factors, bidder) ? bidder : findKeyIgnoringCase(factors, bidder);
  const factor = key === undefined ? undefined : factors[key];
  return typeof factor === 'number' && Number.isFinite(factor) && factor > 0 ? factor : undefined;
}

function findKeyIgnoringCase(map: Record<string, unknown>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.keys(map).find((key) => key.toLowerCase() === wanted);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
