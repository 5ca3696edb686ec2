import { isJsonObject } from './helpers.js';

/**
 * The media types `ext.<ns>.bidadjustments.mediatype` has, as Prebid Server's `openrtb_ext.MediaType` struct has
 * them: video splits into in-stream and out-stream, `*` stands for any. Any other member is not read at all.
 */
export const BID_ADJUSTMENT_MEDIA_TYPES = ['banner', 'video-instream', 'video-outstream', 'audio', 'native', '*'] as const;

/**
 * Whether a bid adjustments object (`ext.<ns>.bidadjustments`, or an account's `bidadjustments`) is usable as a whole,
 * as Prebid Server's `bidadjustment.Validate` judges it: under each media type it reads, every bidder must map deal
 * ids to lists, and every adjustment in them must be a `multiplier` from 0 to below 100, or a `cpm` or `static` value
 * of at least 0 with a currency. A media type given as `null`, and members it does not read, change nothing.
 */
export function bidAdjustmentsAreValid(adjustments: unknown): boolean {
  if (adjustments === undefined || adjustments === null) return true;
  if (!isJsonObject(adjustments)) return false;
  const byMediaType = adjustments.mediatype;
  if (byMediaType === undefined || byMediaType === null) return true;
  if (!isJsonObject(byMediaType)) return false;
  for (const mediaType of BID_ADJUSTMENT_MEDIA_TYPES) {
    const byBidder = byMediaType[mediaType];
    if (byBidder === undefined || byBidder === null) continue;
    if (!isJsonObject(byBidder)) return false;
    for (const bidder in byBidder) {
      const byDeal = byBidder[bidder];
      if (!isJsonObject(byDeal)) return false;
      for (const deal in byDeal) {
        const list = byDeal[deal];
        if (!Array.isArray(list) || !list.every(isValidAdjustment)) return false;
      }
    }
  }
  return true;
}

/** An adjustment's value as Prebid Server's struct holds it: 0 when left out (Go's zero value, which it writes as nothing). */
export function adjustmentValue(adjustment: { value?: unknown }): unknown {
  return adjustment.value ?? 0;
}

function isValidAdjustment(adjustment: unknown): boolean {
  if (!isJsonObject(adjustment)) return false;
  const value = adjustmentValue(adjustment);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return false;
  switch (adjustment.adjtype) {
    case 'multiplier':
      return value < 100;
    case 'cpm':
    case 'static':
      return typeof adjustment.currency === 'string' && adjustment.currency !== '';
    default:
      return false;
  }
}
