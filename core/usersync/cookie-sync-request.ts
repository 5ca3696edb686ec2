import { GPP_TCF_EU_V2_SECTION, parseGppSid } from './user-state.js';
import { isJsonObject } from '../api/index.js';
import { GPP_US_PRIVACY, readGpp, usPrivacyProblem } from '../privacy/signals.js';

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
  /** The bidders the page asks about; absent or empty means every enabled bidder that syncs. */
  bidders?: string[];
  /** Also offer bidders the page did not name (after the named ones); absent leaves it to the account. */
  coopSync?: boolean;
  /** At most this many syncs; 0 or less is no cap; absent leaves it to the account. */
  limit?: number;
  /** List the bidders left out and why. */
  debug: boolean;
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

/**
 * `gpp_sid` as Prebid Server parses it (Go's `strconv.ParseInt(part, 10, 8)` on each comma-separated part), or its
 * error text.
 */
function gppSidProblem(gppSid: string): string | undefined {
  if (parseGppSid(gppSid)) return undefined;
  const bad = gppSid.split(',').find((part) => !/^[+-]?\d+$/.test(part)) ?? gppSid.split(',').find((part) => Math.abs(Number(part)) > 127)!;
  return `strconv.ParseInt: parsing ${JSON.stringify(bad)}: ${/^[+-]?\d+$/.test(bad) ? 'value out of range' : 'invalid syntax'}`;
}

/**
 * The privacy signals as Prebid Server reads them, or the first problem in its order and words: `gpp_sid` must parse;
 * a `gpp_sid` naming sections decides the GDPR signal (1 when it names TCF EU v2) and `gdpr` is then not read, else
 * `gdpr` must be 0 or 1; a GPP string must parse, and its TCF EU v2 section is the consent (over `gdpr_consent`);
 * where GDPR applies, or the request says nothing and the host assumes it does (`privacy.gdpr.defaultValue`), a
 * consent is required; the US privacy string is GPP's `uspv1` section when `gpp_sid` names it 6, and `us_privacy`
 * must then match it.
 */
function readPrivacy(body: Json, hostDefault: string, problems: string[]): PrivacySignals {
  const privacy: PrivacySignals = {
    gdpr: '',
    gdprConsent: optionalString(body, 'gdpr_consent', problems),
    usPrivacy: optionalString(body, 'us_privacy', problems),
    gpp: optionalString(body, 'gpp', problems),
    gppSid: readGppSid(body.gpp_sid, problems),
  };
  const problem = privacyProblem(body, privacy, hostDefault);
  if (problem) problems.push(problem);
  return privacy;
}

/** Fills the signals the request's GPP fields decide; the first problem found, if any. */
function privacyProblem(body: Json, privacy: PrivacySignals, hostDefault: string): string | undefined {
  const sidProblem = gppSidProblem(privacy.gppSid);
  if (sidProblem) return sidProblem;
  const sections = parseGppSid(privacy.gppSid)!;
  if (sections.length > 0) privacy.gdpr = sections.includes(GPP_TCF_EU_V2_SECTION) ? '1' : '0';
  else if (body.gdpr === 0 || body.gdpr === 1) privacy.gdpr = String(body.gdpr);
  else if (body.gdpr !== undefined && body.gdpr !== null) return 'GDPR signal should be integer 0 or 1';
  const gpp = privacy.gpp === '' ? undefined : readGpp({ gpp: privacy.gpp, gpp_sid: sections });
  if (gpp?.invalid !== undefined) return gpp.invalid;
  if (gpp?.tcfConsent !== undefined) privacy.gdprConsent = gpp.tcfConsent;
  if (privacy.gdprConsent === '') {
    if (privacy.gdpr === '1') return 'gdpr_consent is required if gdpr=1';
    if (privacy.gdpr === '' && hostDefault === '1') return 'gdpr_consent is required. gdpr is not specified and is assumed to be 1 by the server. set gdpr=0 to exempt this request';
  }
  const gppUsPrivacy = sections.includes(GPP_US_PRIVACY) ? (gpp?.usPrivacy ?? '') : '';
  if (gppUsPrivacy !== '' && privacy.usPrivacy !== '' && privacy.usPrivacy !== gppUsPrivacy) return 'request.us_privacy consent does not match uspv1';
  // A `us_privacy` that does not parse reaches no sync URL, as Prebid Server blanks it.
  const requestUsPrivacy = privacy.usPrivacy;
  if (gppUsPrivacy !== '') privacy.usPrivacy = gppUsPrivacy;
  if (requestUsPrivacy !== '' && usPrivacyProblem(requestUsPrivacy) !== undefined) privacy.usPrivacy = '';
  return undefined;
}

function readLimit(value: unknown, problems: string[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (Number.isInteger(value)) return value as number;
  problems.push(`"limit" must be a whole number of syncs (0 or less for no cap), got ${JSON.stringify(value)}`);
  return undefined;
}

function readBoolean(body: Json, field: string, problems: string[]): boolean | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  problems.push(`"${field}" must be true or false`);
  return undefined;
}

/** Prebid.js sends `gpp_sid` as a comma-joined string; OpenRTB's shape is an array of section ids. */
function readGppSid(value: unknown, problems: string[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((id) => Number.isInteger(id))) return value.join(',');
  problems.push('"gpp_sid" must be a comma-separated string or an array of integers');
  return '';
}

/**
 * One of `filterSettings`, in Prebid Server's words when unusable (`filter` must say include or exclude, `bidders` be
 * "*" or a list of names; neither has a default).
 */
function readFilter(name: string, value: unknown, problems: string[]): BidderFilter | undefined {
  if (value === undefined || value === null) return undefined;
  const where = `error parsing filtersettings.${name}`;
  if (!isJsonObject(value)) {
    problems.push(`${where}: "filterSettings.${name}" must be an object`);
    return undefined;
  }
  const { filter, bidders } = value;
  if (filter !== 'include' && filter !== 'exclude') problems.push(`${where}: invalid filter value '${typeof filter === 'string' ? filter : ''}'. must be either 'include' or 'exclude'`);
  else if (typeof bidders === 'string' && bidders !== '*') problems.push(`${where}: invalid bidders value \`${bidders}\`. must either be '*' or a string array`);
  else if (bidders !== '*' && !(Array.isArray(bidders) && bidders.every((bidder) => typeof bidder === 'string'))) {
    problems.push(`${where}: invalid bidders type. must either be a string '*' or a string array of bidders`);
  } else return { filter, bidders: bidders as BidderFilter['bidders'] };
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

/**
 * Validates a `/cookie_sync` body; every problem found is reported, not just the first. `hostGdprDefault` is the
 * host's `privacy.gdpr.defaultValue`: "1" makes a request that says nothing about GDPR one where it applies.
 */
export function readCookieSyncRequest(body: Json, hostGdprDefault = '0'): { request: CookieSyncRequest } | { problems: string[] } {
  const problems: string[] = [];
  const privacy = readPrivacy(body, hostGdprDefault, problems);
  const request: CookieSyncRequest = {
    bidders: readBidders(body.bidders, problems),
    coopSync: readBoolean(body, 'coopSync', problems),
    limit: readLimit(body.limit, problems),
    debug: readBoolean(body, 'debug', problems) ?? false,
    privacy,
    filters: readFilters(body.filterSettings, problems),
  };
  return problems.length > 0 ? { problems } : { request };
}

/** Whether a filter lets this bidder (lower-cased) sync by its type; no filter lets everyone. Names match in any case. */
export function filterAllows(filter: BidderFilter | undefined, bidder: string): boolean {
  if (!filter) return true;
  const listed = filter.bidders === '*' || filter.bidders.some((name) => name.toLowerCase() === bidder);
  return filter.filter === 'include' ? listed : !listed;
}
