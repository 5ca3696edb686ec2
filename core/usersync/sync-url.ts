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

/** A lone UTF-16 surrogate: `encodeURIComponent` throws on one, and a request's privacy string may hold one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** URL-encodes a value from the request, a lone surrogate as U+FFFD (as a UTF-8 decoder reads it) rather than a throw. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return encodeURIComponent(value.replace(LONE_SURROGATE, '\uFFFD'));
  }
}

/** Fills every macro from `values` (already URL-encoded); one the server does not know becomes empty, never literal braces. */
function fillMacros(template: string, values: Record<string, string>): string {
  return template.replace(MACRO, (_match, goName: string | undefined, javaName: string | undefined) => values[goName ?? JAVA_MACROS[javaName!] ?? ''] ?? '');
}

/**
 * Where the bidder sends the browser back with its id: `<externalUrl>/setuid?bidder=<key>&gdpr=..&gdpr_consent=..
 * &f=i|b&uid=<the bidder's user macro>`. The user macro stays raw: the bidder finds it in the decoded URL and puts
 * its id in its place (or appends the id itself when the macro is empty).
 */
export function setuidRedirectUrl(externalUrl: string, syncer: Syncer, type: SyncType, privacy: PrivacySignals): string {
  const base = externalUrl.replace(/\/+$/, '');
  const userMacro = syncer.info[type]?.userMacro ?? '';
  return `${base}/setuid?bidder=${encode(syncer.key)}&gdpr=${encode(privacy.gdpr)}` +
    `&gdpr_consent=${encode(privacy.gdprConsent)}&f=${SETUID_FORMAT[type]}&uid=${userMacro}`;
}

/** The bidder's sync URL for one sync type, with the request's privacy signals and our redirect filled in. */
export function syncUrl(externalUrl: string, syncer: Syncer, type: SyncType, privacy: PrivacySignals): string | undefined {
  const template = syncer.info[type]?.url;
  if (!template) return undefined;
  return fillMacros(template, {
    GDPR: encode(privacy.gdpr),
    GDPRConsent: encode(privacy.gdprConsent),
    USPrivacy: encode(privacy.usPrivacy),
    GPP: encode(privacy.gpp),
    GPPSID: encode(privacy.gppSid),
    RedirectURL: encode(setuidRedirectUrl(externalUrl, syncer, type, privacy)),
  });
}
