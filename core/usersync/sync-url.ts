import type { PrivacySignals, SyncType } from './cookie-sync-request.js';
import type { Syncer } from './syncers.js';

/** Matches the Prebid Server style macros in adapters' sync URLs: `{{.GDPR}}`, `{{.RedirectURL}}`, ... */
const MACRO = /\{\{\s*\.(\w+)\s*\}\}/g;

/** The /setuid answer each sync type's caller expects: an `<img>` wants a pixel, an iframe a blank page. */
const SETUID_FORMAT: Record<SyncType, string> = { redirect: 'i', iframe: 'b' };

/** Fills every macro from `values` (already URL-encoded); one the server does not know becomes empty, never literal braces. */
function fillMacros(template: string, values: Record<string, string>): string {
  return template.replace(MACRO, (_match, name: string) => values[name] ?? '');
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
