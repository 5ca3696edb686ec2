import { isJsonObject, SAFE_NAME } from '../api/index.js';

/**
 * Alternate bidder codes (`ext.<ns>.alternatebiddercodes`, else the account's `alternatebiddercodes`): which other
 * seats a bidder may bid under (an agency bidding through an SSP), as Prebid Server checks them.
 */
export interface AlternateBidderCodes {
  enabled: boolean;
  bidders?: Record<string, { enabled?: boolean; allowedbiddercodes?: unknown }>;
}

export function readAlternateBidderCodes(fromRequest: unknown, fromAccount: unknown): AlternateBidderCodes | undefined {
  const source = isJsonObject(fromRequest) ? fromRequest : isJsonObject(fromAccount) ? fromAccount : undefined;
  if (!source) return undefined;
  return { enabled: source.enabled === true, bidders: isJsonObject(source.bidders) ? (source.bidders as AlternateBidderCodes['bidders']) : undefined };
}

/** Why `bidder` may not bid under `seat`, or undefined when it may (its own name, in any case, always is). */
export function alternateSeatError(codes: AlternateBidderCodes | undefined, bidder: string, seat: string): string | undefined {
  if (seat === '' || seat.toLowerCase() === bidder.toLowerCase()) return undefined;
  // A seat becomes an object key and a targeting key suffix downstream: it must be a plain name, never `__proto__`.
  if (!SAFE_NAME.test(seat)) return `invalid biddercode "${seat.slice(0, 64)}" sent by adapter "${bidder}": a seat name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit`;
  const disabled = `alternateBidderCodes disabled for "${bidder}", rejecting bids for "${seat}"`;
  const notDefined = `alternateBidderCodes not defined for adapter "${bidder}", rejecting bids for "${seat}"`;
  if (!codes?.enabled) return disabled;
  if (!codes.bidders) return notDefined;
  const own = codes.bidders[bidder] ?? Object.entries(codes.bidders).find(([name]) => name.toLowerCase() === bidder.toLowerCase())?.[1];
  if (!isJsonObject(own)) return notDefined;
  if (own.enabled !== true) return disabled;
  const allowed = own.allowedbiddercodes;
  if (!Array.isArray(allowed) || (allowed.length === 1 && allowed[0] === '*')) return undefined;
  return allowed.includes(seat) ? undefined : `invalid biddercode "${seat}" sent by adapter "${bidder}"`;
}
