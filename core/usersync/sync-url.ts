import type { PrivacySignals, SyncType } from './cookie-sync-request.js';
import type { Syncer } from './syncers.js';

/**
 * Matches the macros of sync URLs: Prebid Server's (`{{.GDPR}}`, `{{.RedirectURL}}`, ...) and, for hosts bringing
 * Prebid Server Java's bidder settings, its spelling (`{{gdpr}}`, `{{redirect_url}}`, ...).
 */
const MACRO = /\{\{\s*(?:\.(\w+)|(\w+))\s*\}\}/g;

/** Prebid Server Java's macro names, by the Go names this file fills. */
const JAVA_MACROS: Record<string, string> = {
  redirect_url: 'RedirectURL',
  gdpr: 'GDPR',
  gdpr_consent: 'GDPRConsent',
  us_privacy: 'USPrivacy',
  gpp: 'GPP',
  gpp_sid: 'GPPSID',
};

/** The /setuid answer each sync type's caller expects: an `<img>` wants a pixel, an iframe a blank page. */
const SETUID_FORMAT: Record<SyncType, string> = { redirect: 'i', iframe: 'b' };

/** Go's `url.QueryEscape`: every byte but letters, digits and `-_.~` percent-encoded, a space as `+`. */
function queryEscape(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD')).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`).replace(/%20/g, '+');
}

/** A lone UTF-16 surrogate: `encodeURIComponent` throws on one, and a name or macro may hold one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Prebid Server's macros (`{{.Name}}`), which its escaping of the redirect template leaves as they are. */
const GO_MACRO = /\{\{\s*\..*?\s*\}\}/g;

/** Prebid Server's `escapeTemplate`: query-escapes the text between the macros, leaving the macros for later. */
function escapeTemplate(template: string): string {
  let escaped = '';
  let from = 0;
  for (const match of template.matchAll(GO_MACRO)) {
    escaped += queryEscape(template.slice(from, match.index)) + match[0];
    from = match.index + match[0].length;
  }
  return escaped + queryEscape(template.slice(from));
}

/**
 * Fills the macros `values` has; the others stay as they are with `keepOthers`, else become empty (never literal
 * braces). A filled value is not read again for macros.
 */
function fillMacros(template: string, values: Record<string, string>, keepOthers = false): string {
  return template.replace(MACRO, (match, goName: string | undefined, javaName: string | undefined) => values[goName ?? JAVA_MACROS[javaName!] ?? ''] ?? (keepOthers ? match : ''));
}

/**
 * Where the bidder sends the browser back with its id, as Prebid Server's default `user_sync.redirect_url`:
 * `<externalUrl>/setuid?bidder=<key>&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}
 * &f=i|b&uid=<the bidder's user macro>`, query-escaped around its privacy macros (which stay to be filled).
 */
export function setuidRedirectTemplate(externalUrl: string, syncer: Syncer, type: SyncType): string {
  const base = externalUrl.replace(/\/+$/, '');
  const userMacro = syncer.info[type]?.userMacro ?? '';
  return escapeTemplate(`${base}/setuid?bidder=${syncer.key}&gdpr={{.GDPR}}&gdpr_consent={{.GDPRConsent}}&gpp={{.GPP}}&gpp_sid={{.GPPSID}}` +
    `&f=${SETUID_FORMAT[type]}&uid=${userMacro}`);
}

/**
 * The bidder's sync URL for one sync type, as Prebid Server builds it: the escaped redirect template in place of
 * `{{.RedirectURL}}`, then every privacy macro (in the bidder's URL and in the redirect alike) filled with the
 * request's value as given, not escaped.
 */
export function syncUrl(externalUrl: string, syncer: Syncer, type: SyncType, privacy: PrivacySignals): string | undefined {
  const template = syncer.info[type]?.url;
  if (!template) return undefined;
  const withRedirect = fillMacros(template, { RedirectURL: setuidRedirectTemplate(externalUrl, syncer, type) }, true);
  return fillMacros(withRedirect, {
    GDPR: privacy.gdpr,
    GDPRConsent: privacy.gdprConsent,
    USPrivacy: privacy.usPrivacy,
    GPP: privacy.gpp,
    GPPSID: privacy.gppSid,
  });
}
