import { isJsonObject, WarningCode, type AccountChannels, type AccountSettings, type BidRequest, type EndpointName, type PrivacySignals, type Warning } from '../api/index.js';
import type { GavelConfig } from '../config/index.js';
import { ActivityControl, type Activity, type ActivityFacts, type Component } from './activities.js';
import { GPP_TCF_EU_V2, GPP_US_PRIVACY, readGpp, regsValue, userConsent, usPrivacyProblem, userGeo, type GppSignals } from './signals.js';
import { ALLOW_ALL, decodeTcfConsent, TcfPermissions, tcfRules, type AuctionPermissions, type TcfRules } from './tcf.js';
import type { VendorLists } from './vendor-lists.js';
import { SyncConsent, type SyncSignals } from './sync-consent.js';

type Json = Record<string, unknown>;
type HostPrivacy = GavelConfig['privacy'];
type Channel = keyof AccountChannels;

/**
 * A request's privacy signals and what they decide, read once when its auction starts (core/privacy reads them;
 * every bidder's request, user sync and analytics report is then decided from this one object). It is the request
 * context's `privacy`.
 */
export class RequestPrivacy implements PrivacySignals {
  [signal: string]: unknown;
  /** GDPR applies and is enforced for this request (signal, or host default and geo, and the channel's switch). */
  gdprApplies = false;
  /** The TCF v2 string read (GPP's TCF EU section first, else `user.consent`). */
  consent = '';
  /** The US privacy string read (GPP's `uspv1` when `gpp_sid` names it, else `regs.us_privacy`). */
  usPrivacy = '';
  /** A US privacy opt-out of sale (or a US GPP section's opt-out) is enforced for this request. */
  usOptOut = false;
  /** Bidders `ext.<ns>.nosale` exempts from the US opt-out (`*` for all). */
  noSale: ReadonlySet<string> = NONE;
  coppa = false;
  lmt = false;
  gppSid: readonly number[] = [];
  gpp: GppSignals | undefined = undefined;
  /**
   * A bidder that does not read GPP gets legacy fields from it (Prebid Server's downgrade, for every such bidder):
   * the request gives `regs.gpp_sid` (even empty: `regs.gdpr` then follows it) or a GPP string with a TCF EU section
   * (`user.consent`, whatever `gpp_sid` says).
   */
  gppLegacy = false;
  /** `regs.gpp_sid` is given, as a list (Prebid Server sets the legacy `regs.gdpr` only then). */
  gppSidGiven = false;
  tcf: TcfPermissions | undefined = undefined;
  /**
   * Warnings of Prebid Server's exchange step (cleanOpenRTBRequests) rather than of its endpoint: the US privacy
   * string it could not enforce. They are reported with the bidders blocked by privacy, under the namespace's scope.
   */
  exchangeWarnings: readonly Warning[] = NO_WARNINGS;
  activities: ActivityControl = ActivityControl.ALLOW_ALL;
  facts: ActivityFacts = NO_FACTS;
  ipv4Bits = 24;
  ipv6Bits = 56;

  /** The activity controls' verdict for one component. */
  allows(activity: Activity, component: Component): boolean {
    return this.activities.empty || this.activities.allows(activity, component, this.facts);
  }

  /** What GDPR lets this bidder have. */
  gdprPermissions(bidder: string, vendorId: number | undefined): AuctionPermissions {
    return this.tcf ? this.tcf.auction(bidder, vendorId) : ALLOW_ALL;
  }

  /** The US opt-out applies to this bidder. */
  usOptOutFor(bidder: string): boolean {
    return this.usOptOut && !this.noSale.has('*') && !this.noSale.has(bidder);
  }

  /** Nothing to enforce for any bidder: the per-bidder step is skipped. */
  get permitsEverything(): boolean {
    return !this.tcf && !this.usOptOut && !this.coppa && !this.lmt && this.activities.empty && !this.gppLegacy;
  }
}

const NONE: ReadonlySet<string> = new Set();
const NO_WARNINGS: readonly Warning[] = Object.freeze([]);
const NO_FACTS: ActivityFacts = Object.freeze({ gppSids: [], geo: [] });

/** The channel the policies are switched on or off for (Prebid Server's channel types). */
export function channelOf(endpoint: EndpointName | 'cookie_sync' | 'setuid', request: BidRequest | undefined): Channel {
  if (endpoint === 'amp') return 'amp';
  if (endpoint === 'video') return 'video';
  if (request?.app) return 'app';
  if ((request as Json | undefined)?.dooh) return 'dooh';
  return 'web';
}

/** What an account's privacy settings become, built once per account object. */
interface AccountRules {
  tcf: TcfRules;
  activities: ActivityControl;
  eea: ReadonlySet<string>;
  /** TCF permissions by consent string, the oldest dropped first past PERMISSIONS_KEPT. */
  permissions: Map<string, TcfPermissions>;
}

const PERMISSIONS_KEPT = 256;

/** The key of an account without a `gdpr` or `privacy` section. */
const NO_SECTION: object = Object.freeze({});

/** What GDPR applicability reads, beside the request. */
export interface GdprInputs {
  /** 1 or 0 as signalled, -1 when the request does not say. */
  signal: -1 | 0 | 1;
  /** The country of the user, upper case, when the request gives one. */
  country: string | undefined;
}

/**
 * The privacy service: host settings read once at boot, the account's rules built once per account, and each
 * request's signals read once into a RequestPrivacy.
 */
export class PrivacyService {
  private readonly hostEea: ReadonlySet<string>;
  /** `privacy.gdpr.nonStandardPublishers`: publishers whose auctions GDPR's TCF permissions do not narrow. */
  private readonly nonStandardPublishers: ReadonlySet<string>;
  private readonly byAccount = new WeakMap<object, WeakMap<object, AccountRules>>();

  constructor(
    readonly settings: HostPrivacy,
    readonly vendorLists: VendorLists,
  ) {
    this.hostEea = new Set(settings.gdpr.eeaCountries.map((country) => country.toUpperCase()));
    this.nonStandardPublishers = new Set(settings.gdpr.nonStandardPublishers ?? []);
  }

  /**
   * The rules of an account's `gdpr` and `privacy` sections, built once per pair of section objects: accounts that
   * share them (every unknown id gets the host defaults' own) share the rules.
   */
  private accountRules(account: AccountSettings): AccountRules {
    const gdpr = account.gdpr ?? NO_SECTION;
    const privacy = account.privacy ?? NO_SECTION;
    let byPrivacy = this.byAccount.get(gdpr);
    if (!byPrivacy) {
      byPrivacy = new WeakMap();
      this.byAccount.set(gdpr, byPrivacy);
    }
    let rules = byPrivacy.get(privacy);
    if (!rules) {
      const eea = account.gdpr?.eea_countries ? new Set(account.gdpr.eea_countries.map((country) => country.toUpperCase())) : this.hostEea;
      rules = { tcf: tcfRules(this.settings.gdpr.tcf2, account.gdpr), activities: ActivityControl.from(this.settings.allowActivities, account.privacy), eea, permissions: new Map() };
      byPrivacy.set(privacy, rules);
    }
    return rules;
  }

  /** Whether GDPR is enforced: signalled (or by default and geo, as Prebid Server guesses) and switched on for the channel. */
  gdprApplies(inputs: GdprInputs, account: AccountSettings, channel: Channel): boolean {
    if (!this.gdprEnabled(account, channel)) return false;
    if (inputs.signal !== -1) return inputs.signal === 1;
    const eea = this.accountRules(account).eea;
    if (inputs.country !== undefined) {
      if (eea.has(inputs.country)) return true;
      if (inputs.country.length === 3) return false;
    }
    return this.settings.gdpr.defaultValue === '1';
  }

  private gdprEnabled(account: AccountSettings, channel: Channel): boolean {
    return account.gdpr?.channel_enabled?.[channel] ?? account.gdpr?.enabled ?? this.settings.gdpr.enabled;
  }

  private ccpaEnabled(account: AccountSettings, channel: Channel): boolean {
    return account.ccpa?.channel_enabled?.[channel] ?? account.ccpa?.enabled ?? this.settings.ccpa.enforce;
  }

  /**
   * TCF permissions for a consent string where GDPR applies (also for user syncs). Kept per account and string (a
   * bounded number), so a string seen again costs a lookup, and each bidder's permissions are computed once.
   */
  permissionsFor(consent: string, account: AccountSettings): TcfPermissions {
    const rules = this.accountRules(account);
    let permissions = rules.permissions.get(consent);
    if (!permissions) {
      permissions = new TcfPermissions(rules.tcf, consent === '' ? undefined : decodeTcfConsent(consent), this.vendorLists);
      if (rules.permissions.size >= PERMISSIONS_KEPT) rules.permissions.delete(rules.permissions.keys().next().value!);
      rules.permissions.set(consent, permissions);
    }
    return permissions;
  }

  /** What the signals of one user-sync request allow (`/cookie_sync`, `/setuid`). */
  syncConsent(signals: SyncSignals, account: AccountSettings): SyncConsent {
    return new SyncConsent(this, signals, account);
  }

  activitiesFor(account: AccountSettings): ActivityControl {
    return this.accountRules(account).activities;
  }

  /**
   * Reads a request's signals once: GDPR (with GPP's conflict rules), TCF consent, US privacy and `nosale`, GPP,
   * COPPA, LMT, and the activity controls of its account. Warnings (code 10001) go to `warn`.
   */
  read(request: BidRequest, endpoint: EndpointName, account: AccountSettings, namespace: string, warn: (warning: Warning) => void, publisherId = ''): RequestPrivacy {
    const privacy = new RequestPrivacy();
    const settings = this.settings;
    const channel = channelOf(endpoint, request);
    const regs = isJsonObject(request.regs) ? (request.regs as Json) : undefined;
    const gpp = settings.gpp.enforce && regs ? readGpp(regs) : undefined;
    if (gpp?.invalid) warn({ code: WarningCode.InvalidPrivacyConsent, message: `GPP consent string is invalid and will be ignored. (${gpp.invalid})` });
    privacy.gpp = gpp;
    privacy.gppSid = gpp?.sids ?? [];
    privacy.gppSidGiven = gpp !== undefined && Array.isArray(regs!.gpp_sid);
    privacy.gppLegacy = privacy.gppSidGiven || gpp?.tcfConsent !== undefined;

    // GDPR: `gpp_sid` wins over `regs.gdpr` when both are given.
    const regsGdpr = regsValue(request, 'gdpr');
    let signal: -1 | 0 | 1 = regsGdpr === 1 ? 1 : regsGdpr === 0 ? 0 : -1;
    const gppSignal = privacy.gppSid.includes(GPP_TCF_EU_V2) ? 1 : 0;
    // Prebid Server judges the conflict whenever gpp_sid is given (an empty list says 0), but lets only a list with
    // members decide GDPR.
    if (privacy.gppSidGiven && signal !== -1 && signal !== gppSignal) warn({ code: WarningCode.InvalidPrivacyConsent, message: 'regs.gdpr signal conflicts with GPP (regs.gpp_sid) and will be ignored' });
    if (privacy.gppSid.length > 0) signal = gppSignal;
    const geo = userGeo(request);
    privacy.gdprApplies = this.gdprApplies({ signal, country: geo.country }, account, channel);
    const given = userConsent(request);
    if (gpp?.tcfConsent !== undefined && given !== '' && given !== gpp.tcfConsent) {
      warn({ code: WarningCode.InvalidPrivacyConsent, message: 'user.consent GDPR string conflicts with GPP (regs.gpp) GDPR string, using regs.gpp' });
    }
    privacy.consent = gpp?.tcfConsent ?? given;
    // A string that is no TCF v2 one gets the permissions of no string, without a warning (Prebid Server warns of
    // nothing: its permissions fall back to their defaults).
    // A non-standard publisher's auctions get every permission, as Prebid Server's AuctionActivitiesAllowed answers
    // AllowAll for the publisher ids of gdpr.non_standard_publishers.
    if (privacy.gdprApplies && !this.nonStandardPublishers.has(publisherId)) privacy.tcf = this.permissionsFor(privacy.consent, account);

    // US privacy: GPP's uspv1 when gpp_sid names it, else regs.us_privacy. As in Prebid Server (ccpa.ReadFromRequestWrapper
    // and Parse), a regs.us_privacy that contradicts uspv1, or a string that is not valid, is warned about where the
    // request is validated and again where the bidders' requests are built, and no US privacy string is enforced.
    const requestUsp = typeof regsValue(request, 'us_privacy') === 'string' ? (regsValue(request, 'us_privacy') as string) : '';
    let usp = requestUsp;
    let unusable = false;
    if (gpp?.usPrivacy !== undefined && gpp.usPrivacy !== '' && privacy.gppSid.includes(GPP_US_PRIVACY)) {
      usp = gpp.usPrivacy;
      if (requestUsp !== '' && requestUsp !== usp) {
        const mismatch = { code: WarningCode.InvalidPrivacyConsent, message: 'regs.us_privacy consent does not match uspv1 in GPP, using regs.gpp' };
        warn(mismatch);
        privacy.exchangeWarnings = [mismatch];
        unusable = true;
      }
    }
    privacy.usPrivacy = usp;
    const problem = unusable ? undefined : usPrivacyProblem(usp);
    if (problem) {
      warn({ code: WarningCode.InvalidPrivacyConsent, message: `CCPA consent is invalid and will be ignored. (request.regs.ext.us_privacy ${problem})` });
      privacy.exchangeWarnings = [{ code: WarningCode.InvalidPrivacyConsent, message: `request.regs.ext.us_privacy ${problem}` }];
      unusable = true;
    }
    if (this.ccpaEnabled(account, channel)) {
      privacy.usOptOut = (!unusable && usp[2] === 'Y') || gpp?.usOptOut === true;
      const options = isJsonObject(request.ext) ? request.ext[namespace] : undefined;
      const noSale = isJsonObject(options) && Array.isArray(options.nosale) ? options.nosale.filter((name): name is string => typeof name === 'string') : [];
      if (noSale.length > 0) privacy.noSale = new Set(noSale);
    }

    privacy.coppa = settings.coppa.enforce && regsValue(request, 'coppa') === 1;
    privacy.lmt = settings.lmt.enforce && isJsonObject(request.device) && (request.device as Json).lmt === 1;

    const rules = this.accountRules(account);
    privacy.activities = rules.activities;
    if (!rules.activities.empty) {
      const places: string[] = [];
      if (geo.country) {
        places.push(geo.country);
        if (geo.region) places.push(`${geo.country}.${geo.region}`);
      }
      privacy.facts = { gppSids: privacy.gppSid, geo: places };
    }
    privacy.ipv4Bits = account.privacy?.ipv4?.anon_keep_bits ?? settings.ipv4.anonKeepBits;
    privacy.ipv6Bits = account.privacy?.ipv6?.anon_keep_bits ?? settings.ipv6.anonKeepBits;
    return privacy;
  }
}
