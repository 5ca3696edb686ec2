import { isJsonObject, type BidRequest } from '../api/index.js';

type Json = Record<string, unknown>;

/**
 * `ext.<ns>.data.eidpermissions: [{source, bidders}]`: an eid whose source has a rule goes only to the bidders the
 * rule names (`*` for all, names compared ignoring case; none when it names no list); an eid whose source has no rule goes to every bidder. Read
 * once per auction; undefined when the request has no rules.
 */
export function planEidPermissions(options: Json | undefined): ReadonlyMap<string, readonly string[]> | undefined {
  const data = isJsonObject(options?.data) ? options!.data : undefined;
  const permissions = data?.eidpermissions;
  if (!Array.isArray(permissions) || permissions.length === 0) return undefined;
  const rules = new Map<string, string[]>();
  for (const permission of permissions) {
    if (!isJsonObject(permission) || typeof permission.source !== 'string') continue;
    // A rule without a bidder list is Go's nil list: its source goes to no bidder.
    const bidders = Array.isArray(permission.bidders) ? permission.bidders : [];
    rules.set(permission.source, bidders.filter((bidder): bidder is string => typeof bidder === 'string').map((bidder) => bidder.toLowerCase()));
  }
  return rules.size > 0 ? rules : undefined;
}

/** The request's `user` with only the eids this bidder may see (the same object when it may see them all). */
export function userWithPermittedEids(rules: ReadonlyMap<string, readonly string[]>, bidder: string, user: BidRequest['user']): BidRequest['user'] {
  if (!user || !Array.isArray(user.eids) || user.eids.length === 0) return user;
  const lower = bidder.toLowerCase();
  const permitted = user.eids.filter((eid) => {
    const rule = isJsonObject(eid) && typeof eid.source === 'string' ? rules.get(eid.source) : undefined;
    return rule === undefined || rule.includes('*') || rule.includes(lower);
  });
  if (permitted.length === user.eids.length) return user;
  const copy = { ...user };
  if (permitted.length > 0) copy.eids = permitted;
  else delete copy.eids;
  return copy;
}
