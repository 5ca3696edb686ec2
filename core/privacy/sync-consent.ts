import { TCString } from '@iabtcf/core';
import type { AccountSettings } from '../api/index.js';
import type { PrivacyService } from './request-privacy.js';
import { usPrivacyProblem } from './signals.js';
import { decodeTcfConsent, tcfBase64Problem, tcfCoreSegment, type TcfPermissions } from './tcf.js';

/** The privacy signals of a user-sync request (`/cookie_sync` body, `/setuid` query), as given. */
export interface SyncSignals {
  /** "0", "1" or "" (not said). */
  gdpr: string;
  consent: string;
  usPrivacy?: string;
  /** `gpp_sid`: a comma-separated list, as the sync URLs carry it. */
  gppSid?: string;
}

/** Why `/setuid` refuses: Prebid Server's statuses and texts. */
export interface SetuidRefusal {
  status: 400 | 451;
  body: string;
}

/** Prebid Server's debug text for a bidder whose sync privacy refused (`/cookie_sync` with `debug: true`). */
export const REJECTED_BY_PRIVACY = 'Rejected by privacy';

/**
 * What the privacy signals of one user-sync request allow (Prebid Server's `endpoints/setuid.go`,
 * `endpoints/cookie_sync.go`, `usersync/chooser.go`): the `syncUser` activity per bidder, GDPR purpose 1 per vendor,
 * and a US privacy opt-out of sale. Built once per sync request.
 */
export class SyncConsent {
  readonly gdprApplies: boolean;
  private readonly tcf: TcfPermissions | undefined;
  private readonly usOptOut: boolean;
  private readonly gppSids: number[];

  constructor(
    private readonly service: PrivacyService,
    private readonly signals: SyncSignals,
    private readonly account: AccountSettings,
  ) {
    const gdpr = service.settings.gdpr;
    // Only the host's switch: Prebid Server's sync endpoints build their permissions from its host `gdpr.enabled`
    // and never read the account's `gdpr.enabled` or `channel_enabled`.
    this.gdprApplies = (signals.gdpr === '1' || (signals.gdpr === '' && gdpr.defaultValue === '1')) && gdpr.enabled;
    this.tcf = this.gdprApplies ? service.permissionsFor(signals.consent, account) : undefined;
    const usp = signals.usPrivacy ?? '';
    this.usOptOut = (account.ccpa?.enabled ?? service.settings.ccpa.enforce) && usPrivacyProblem(usp) === undefined && usp[2] === 'Y';
    this.gppSids = (signals.gppSid ?? '').split(',').filter((sid) => sid !== '').map(Number).filter(Number.isInteger);
  }

  private activityAllows(bidder: string): boolean {
    return this.service.activitiesFor(this.account).allows('syncUser', { type: 'bidder', name: bidder }, { gppSids: this.gppSids, geo: [] });
  }

  /**
   * Whether the host may keep its own cookie: where GDPR applies and the host names its vendor id
   * (`privacy.gdpr.hostVendorId`), purpose 1 for that vendor (Prebid Server's HostCookiesAllowed; without a host vendor
   * id the host cookie is allowed). Without it `/cookie_sync` offers no sync at all.
   */
  get hostCookieAllowed(): boolean {
    const hostVendorId = this.service.settings.gdpr.hostVendorId;
    if (!this.tcf || !hostVendorId) return true;
    return this.tcf.syncAllowed('', hostVendorId, false);
  }

  /**
   * Whether `/cookie_sync` may offer this bidder a sync: the `syncUser` activity, a US privacy opt-out of sale (a
   * decision of ours: Prebid Server's chooser no longer asks it), then GDPR purpose 1. Purpose 1's vendor exceptions
   * are the account's when it lists them, else the host's (Prebid Server's BidderSyncAllowed reads the merged config).
   */
  bidderMaySync(bidder: string, vendorId: number | undefined): boolean {
    if (!this.activityAllows(bidder)) return false;
    if (this.usOptOut) return false;
    if (!this.tcf) return true;
    return this.tcf.syncAllowed(bidder, vendorId, this.tcf.vendorException(1, bidder));
  }

  /**
   * Why `/setuid` may not write this bidder's id, or undefined when it may: the `syncUser` activity (451, empty);
   * under GDPR a string that is not TCF v2 or names a vendor list the host lacks (400), or no purpose 1 for the
   * host's vendor (`privacy.gdpr.hostVendorId`), else for the bidder's (451).
   */
  setuidRefusal(bidder: string, vendorId: number | undefined): SetuidRefusal | undefined {
    if (!this.activityAllows(bidder)) return { status: 451, body: '' };
    if (!this.tcf) return undefined;
    const consent = this.signals.consent;
    if (decodeTcfConsent(consent) === undefined) return { status: 400, body: `gdpr_consent was invalid. malformed consent string ${consent}: ${decodeFailure(consent)}` };
    const hostVendorId = this.service.settings.gdpr.hostVendorId;
    const decoded = decodeTcfConsent(consent)!;
    if (!this.service.vendorLists.find(decoded.specVersion, decoded.listVersion)) {
      return { status: 400, body: 'No global vendor list was available to interpret this consent string. If this is a new, valid version, it should become available soon.' };
    }
    const allowed = hostVendorId ? this.tcf.syncAllowed('', hostVendorId, false) : this.tcf.syncAllowed(bidder, vendorId, false);
    return allowed ? undefined : { status: 451, body: 'The gdpr_consent string prevents cookies from being saved' };
  }
}

function decodeFailure(consent: string): string {
  const core = tcfCoreSegment(consent);
  const problem = tcfBase64Problem(core);
  if (problem) return problem;
  try {
    TCString.decode(core);
    return 'unsupported encoding version';
  } catch (err) {
    return (err as Error).message;
  }
}
