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
  return `${base}/setuid?bidder=${encodeURIComponent(syncer.key)}&gdpr=${encodeURIComponent(privacy.gdpr)}` +
    `&gdpr_consent=${encodeURIComponent(privacy.gdprConsent)}&f=${SETUID_FORMAT[type]}&uid=${userMacro}`;
}

/** The bidder's sync URL for one sync type, with the request's privacy signals and our redirect filled in. */
export function syncUrl(externalUrl: string, syncer: Syncer, type: SyncType, privacy: PrivacySignals): string | undefined {
  const template = syncer.info[type]?.url;
  if (!template) return undefined;
  return fillMacros(template, {
    GDPR: encodeURIComponent(privacy.gdpr),
    GDPRConsent: encodeURIComponent(privacy.gdprConsent),
    USPrivacy: encodeURIComponent(privacy.usPrivacy),
    GPP: encodeURIComponent(privacy.gpp),
    GPPSID: encodeURIComponent(privacy.gppSid),
    RedirectURL: encodeURIComponent(setuidRedirectUrl(externalUrl, syncer, type, privacy)),
  });
}
