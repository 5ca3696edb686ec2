import { gdprProblems } from './user-state.js';
import { isJsonObject } from '../api/index.js';

export type SyncType = 'iframe' | 'redirect';

/** Which bidders may sync by one sync type (Prebid.js `filterSettings`; its `image` is our `redirect`). */
export interface BidderFilter {
  bidders: '*' | string[];
  filter: 'include' | 'exclude';
}

/** The privacy signals a sync URL carries to the bidder and back to /setuid, as the request gave them. */
export interface PrivacySignals {
  /** "0", "1" or "" (unknown). */
  gdpr: string;
  gdprConsent: string;
  usPrivacy: string;
  gpp: string;
  gppSid: string;
}

/** A validated `POST /cookie_sync` body. */
export interface CookieSyncRequest {
  /** The bidders the page asks about; absent means every enabled bidder that syncs. */
  bidders?: string[];
  /** Also offer bidders the page did not name (after the named ones). */
  coopSync: boolean;
  /** At most this many syncs; 0 is no cap. */
  limit: number;
  privacy: PrivacySignals;
  filters: Partial<Record<SyncType, BidderFilter>>;
}

type Json = Record<string, unknown>;


function optionalString(body: Json, field: string, problems: string[]): string {
  const value = body[field];
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  problems.push(`"${field}" must be a string`);
  return '';
}

function readBidders(value: unknown, problems: string[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value) && value.every((name) => typeof name === 'string')) return value;
  problems.push('"bidders" must be an array of bidder names');
  return undefined;
}

function readGdpr(value: unknown, problems: string[]): string {
  if (value === undefined || value === null) return '';
  if (value === 0 || value === 1) return String(value);
  problems.push(`"gdpr" must be 0 or 1, got ${JSON.stringify(value)}`);
  return '';
}

function readLimit(value: unknown, problems: string[]): number {
  if (value === undefined || value === null) return 0;
  if (Number.isInteger(value) && (value as number) >= 0) return value as number;
  problems.push(`"limit" must be a whole number of syncs (0 for no cap), got ${JSON.stringify(value)}`);
  return 0;
}

/** Prebid.js sends `gpp_sid` as a comma-joined string; OpenRTB's shape is an array of section ids. */
function readGppSid(value: unknown, problems: string[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((id) => Number.isInteger(id))) return value.join(',');
  problems.push('"gpp_sid" must be a comma-separated string or an array of integers');
  return '';
}

function readFilter(name: string, value: unknown, problems: string[]): BidderFilter | undefined {
  if (value === undefined || value === null) return undefined;
  const where = `"filterSettings.${name}"`;
  if (!isJsonObject(value)) {
    problems.push(`${where} must be an object`);
    return undefined;
  }
  const filter = value.filter ?? 'include';
  const bidders = value.bidders ?? '*';
  if (filter !== 'include' && filter !== 'exclude') problems.push(`${where}.filter must be "include" or "exclude"`);
  else if (bidders !== '*' && !(Array.isArray(bidders) && bidders.every((bidder) => typeof bidder === 'string'))) problems.push(`${where}.bidders must be "*" or an array of bidder names`);
  else return { filter, bidders: bidders as BidderFilter['bidders'] };
  return undefined;
}

function readFilters(value: unknown, problems: string[]): CookieSyncRequest['filters'] {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) {
    problems.push('"filterSettings" must be an object');
    return {};
  }
  const filters: CookieSyncRequest['filters'] = {};
  const iframe = readFilter('iframe', value.iframe, problems);
  const image = readFilter('image', value.image, problems);
  if (iframe) filters.iframe = iframe;
  if (image) filters.redirect = image;
  return filters;
}

/** Validates a `/cookie_sync` body; every problem found is reported, not just the first. */
export function readCookieSyncRequest(body: Json): { request: CookieSyncRequest } | { problems: string[] } {
  const problems: string[] = [];
  const privacy: PrivacySignals = {
    gdpr: readGdpr(body.gdpr, problems),
    gdprConsent: optionalString(body, 'gdpr_consent', problems),
    usPrivacy: optionalString(body, 'us_privacy', problems),
    gpp: optionalString(body, 'gpp', problems),
    gppSid: readGppSid(body.gpp_sid, problems),
  };
  problems.push(...gdprProblems(privacy.gdpr, privacy.gdprConsent, { gdpr: '"gdpr"', consent: '"gdpr_consent"' }));
  const coopSync = body.coopSync ?? false;
  if (typeof coopSync !== 'boolean') problems.push('"coopSync" must be true or false');
  const request: CookieSyncRequest = {
    bidders: readBidders(body.bidders, problems),
    coopSync: coopSync === true,
    limit: readLimit(body.limit, problems),
    privacy,
    filters: readFilters(body.filterSettings, problems),
  };
  return problems.length > 0 ? { problems } : { request };
}

/** Whether a filter lets this bidder sync by its type; no filter lets everyone. */
export function filterAllows(filter: BidderFilter | undefined, bidder: string): boolean {
  if (!filter) return true;
  const listed = filter.bidders === '*' || filter.bidders.includes(bidder);
  return filter.filter === 'include' ? listed : !listed;
}
