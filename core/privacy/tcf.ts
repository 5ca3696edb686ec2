import { TCString, type TCModel } from '@iabtcf/core';
import type { AccountGdprPurpose, AccountSettings } from '../api/index.js';
import type { GavelConfig } from '../config/index.js';
import type { GvlVendor, VendorList, VendorLists } from './vendor-lists.js';

/** One purpose's enforcement, host settings with the account's over them (Prebid Server's `tcf2Config`). */
export interface PurposeRule {
  purpose: number;
  enforcePurpose: boolean;
  enforceVendors: boolean;
  basic: boolean;
  vendorExceptions: ReadonlySet<string>;
}

/** The TCF enforcement an auction runs under: built once per host and account, not per request. */
export interface TcfRules {
  /** Index 1 to 10. */
  purposes: readonly PurposeRule[];
  featureOneEnforced: boolean;
  featureOneExceptions: ReadonlySet<string>;
  purposeOneTreatmentEnabled: boolean;
  purposeOneTreatmentAccessAllowed: boolean;
  basicEnforcementVendors: ReadonlySet<string>;
}

type HostTcf = GavelConfig['privacy']['gdpr']['tcf2'];

export function tcfRules(host: HostTcf, account: AccountSettings['gdpr']): TcfRules {
  const purposes: PurposeRule[] = [];
  for (let purpose = 1; purpose <= 10; purpose++) {
    const hostRule = host[`purpose${purpose}` as `purpose${1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10}`];
    const own = account?.[`purpose${purpose}` as keyof NonNullable<AccountSettings['gdpr']>] as AccountGdprPurpose | undefined;
    purposes[purpose] = {
      purpose,
      enforcePurpose: own?.enforce_purpose ?? hostRule.enforcePurpose,
      enforceVendors: own?.enforce_vendors ?? hostRule.enforceVendors,
      basic: (own?.enforce_algo ?? hostRule.enforceAlgo) === 'basic',
      vendorExceptions: new Set(own?.vendor_exceptions ?? hostRule.vendorExceptions),
    };
  }
  return {
    purposes,
    featureOneEnforced: account?.special_feature1?.enforce ?? host.specialFeature1.enforce,
    featureOneExceptions: new Set(account?.special_feature1?.vendor_exceptions ?? host.specialFeature1.vendorExceptions),
    purposeOneTreatmentEnabled: account?.purpose_one_treatment?.enabled ?? host.purposeOneTreatment.enabled,
    purposeOneTreatmentAccessAllowed: account?.purpose_one_treatment?.access_allowed ?? host.purposeOneTreatment.accessAllowed,
    basicEnforcementVendors: new Set(account?.basic_enforcement_vendors ?? []),
  };
}

/** A decoded TCF v2 consent string, read through what the enforcement asks of it. */
export interface TcfConsent {
  readonly specVersion: number;
  readonly listVersion: number;
  readonly purposeOneTreatment: boolean;
  purposeConsent(purpose: number): boolean;
  purposeLegitimateInterest(purpose: number): boolean;
  vendorConsent(vendor: number): boolean;
  vendorLegitimateInterest(vendor: number): boolean;
  specialFeatureOptIn(feature: number): boolean;
  /** True when the publisher restricts this purpose for this vendor with this restriction type (0 not allowed, 1 consent only, 2 LI only). */
  restricts(purpose: number, type: number, vendor: number): boolean;
}

/**
 * The core segment of a TC string, the only one Prebid Server (go-gdpr) reads: what follows the first `.` (disclosed
 * vendors, publisher TC) is never decoded, so a broken later segment leaves the string valid.
 */
export function tcfCoreSegment(consent: string): string {
  const dot = consent.indexOf('.');
  return dot === -1 ? consent : consent.slice(0, dot);
}

/**
 * Why the core segment is not unpadded base64url as Go decodes it (Go's text), beyond what the TCF decoder checks:
 * a length that leaves one character over holds no whole byte.
 */
export function tcfBase64Problem(core: string): string | undefined {
  return core.length % 4 === 1 ? `illegal base64 data at input byte ${core.length - 1}` : undefined;
}

/** Decodes a TCF v2 string (its core segment); undefined when it is not one. A few hundred distinct strings are kept decoded. */
export function decodeTcfConsent(consent: string): TcfConsent | undefined {
  const cached = decoded.get(consent);
  if (cached !== undefined) return cached ?? undefined;
  let model: TCModel | undefined;
  const core = tcfCoreSegment(consent);
  try {
    model = tcfBase64Problem(core) === undefined ? TCString.decode(core) : undefined;
    if (model?.version !== 2) model = undefined;
  } catch {
    model = undefined;
  }
  const result = model ? consentOf(model) : undefined;
  if (decoded.size >= DECODED_KEPT) decoded.delete(decoded.keys().next().value!);
  decoded.set(consent, result ?? null);
  return result;
}

const DECODED_KEPT = 512;
const decoded = new Map<string, TcfConsent | null>();

function consentOf(model: TCModel): TcfConsent {
  const restrictions = model.publisherRestrictions;
  return {
    specVersion: Number(model.policyVersion ?? 2) >= 4 ? 3 : 2,
    listVersion: Number(model.vendorListVersion),
    purposeOneTreatment: model.purposeOneTreatment === true,
    purposeConsent: (purpose) => model.purposeConsents.has(purpose),
    purposeLegitimateInterest: (purpose) => model.purposeLegitimateInterests.has(purpose),
    vendorConsent: (vendor) => model.vendorConsents.has(vendor),
    vendorLegitimateInterest: (vendor) => model.vendorLegitimateInterests.has(vendor),
    specialFeatureOptIn: (feature) => model.specialFeatureOptins.has(feature),
    restricts: (purpose, type, vendor) => {
      if (restrictions.numRestrictions === 0) return false;
      return restrictions.getRestrictions(vendor).some((restriction) => restriction.purposeId === purpose && restriction.restrictionType === type);
    },
  };
}

/** What GDPR lets one bidder have in an auction (Prebid Server's `AuctionPermissions`). */
export interface AuctionPermissions {
  /** Purpose 2: the bidder may be asked for bids at all. */
  allowBidRequest: boolean;
  /** Special feature 1: precise geo and the full IP. */
  passGeo: boolean;
  /** Purposes 2-10 with the vendor: user ids, device ids, eids, demographics. */
  passId: boolean;
}

export const ALLOW_ALL: AuctionPermissions = Object.freeze({ allowBidRequest: true, passGeo: true, passId: true });

interface Overrides {
  allowLITransparency?: boolean;
  blockVendorExceptions?: boolean;
  enforcePurpose?: boolean;
  enforceVendors?: boolean;
}

const NOT_ALLOWED = 0;
const REQUIRE_CONSENT = 1;
const REQUIRE_LEGITIMATE_INTEREST = 2;

/**
 * Whether a vendor has a legal basis for a purpose, as Prebid Server's gdpr package decides it: the full algorithm
 * (the vendor declares the purpose in the GVL, with consent or legitimate interest as the string and publisher
 * restrictions allow) or the basic one (the string alone), per purpose and downgraded to basic for the account's
 * `basic_enforcement_vendors`.
 */
function legalBasis(rules: TcfRules, rule: PurposeRule, name: string, vendorId: number, vendor: GvlVendor | undefined, consent: TcfConsent, overrides: Overrides): boolean {
  const enforcePurpose = overrides.enforcePurpose || rule.enforcePurpose;
  const enforceVendors = overrides.enforceVendors || rule.enforceVendors;
  // A basic enforcement vendor is downgraded to the basic algorithm after purpose 1; once the algorithm is basic, being
  // one counts for every purpose, purpose 1 included (Prebid Server's purposeConfig.basicEnforcementVendor).
  const basicVendor = rules.basicEnforcementVendors.has(name);
  if (rule.basic || (basicVendor && rule.purpose !== 1)) {
    if (!enforcePurpose && !enforceVendors) return true;
    if (rule.vendorExceptions.has(name) && !overrides.blockVendorExceptions) return true;
    if (!enforcePurpose && basicVendor) return true;
    if (enforcePurpose && consent.purposeConsent(rule.purpose) && basicVendor) return true;
    if (enforcePurpose && consent.purposeLegitimateInterest(rule.purpose) && overrides.allowLITransparency) return true;
    if (enforcePurpose && !consent.purposeConsent(rule.purpose)) return false;
    if (!enforceVendors) return true;
    return consent.vendorConsent(vendorId);
  }
  if (consent.restricts(rule.purpose, NOT_ALLOWED, vendorId)) return false;
  if (!enforcePurpose && !enforceVendors) return true;
  if (rule.vendorExceptions.has(name) && !overrides.blockVendorExceptions) return true;
  const byConsent =
    vendor !== undefined && vendor.purposes.has(rule.purpose) && (!enforcePurpose || consent.purposeConsent(rule.purpose)) && (!enforceVendors || consent.vendorConsent(vendorId));
  const byInterest =
    vendor !== undefined &&
    vendor.legIntPurposes.has(rule.purpose) &&
    (!enforcePurpose || consent.purposeLegitimateInterest(rule.purpose)) &&
    (!enforceVendors || consent.vendorLegitimateInterest(vendorId));
  if (consent.restricts(rule.purpose, REQUIRE_CONSENT, vendorId)) return byConsent;
  if (consent.restricts(rule.purpose, REQUIRE_LEGITIMATE_INTEREST, vendorId)) return byInterest;
  return byConsent || byInterest;
}

/**
 * GDPR permissions for one request where GDPR applies: the consent string decoded once, the vendor list it names,
 * and per bidder what it may have (computed on demand, once per bidder).
 */
export class TcfPermissions {
  private loaded: VendorList | undefined;

  constructor(
    private readonly rules: TcfRules,
    /** Undefined when the request has no valid TCF v2 string. */
    private readonly consent: TcfConsent | undefined,
    private readonly lists: VendorLists,
  ) {}

  /** The vendor list the string names, looked up again until it is loaded (a fetched one arrives later). */
  private get list(): VendorList | undefined {
    if (!this.loaded && this.consent) this.loaded = this.lists.find(this.consent.specVersion, this.consent.listVersion);
    return this.loaded;
  }

  /** Without a string, or a list to read it with: purpose 2 and special feature 1 as the rules enforce them, no ids. */
  private defaults(): AuctionPermissions {
    return { allowBidRequest: !this.rules.purposes[2]!.enforcePurpose, passGeo: !this.rules.featureOneEnforced, passId: false };
  }

  private readonly byBidder = new Map<string, AuctionPermissions>();

  /** What GDPR lets one bidder have: computed once per bidder and vendor id for this string and these rules. */
  auction(bidder: string, vendorId: number | undefined): AuctionPermissions {
    const key = vendorId === undefined ? bidder : `${bidder}:${vendorId}`;
    let permissions = this.byBidder.get(key);
    if (!permissions) {
      permissions = this.compute(bidder, vendorId);
      // Without its vendor list the answer is provisional: not kept.
      if (this.loaded && this.byBidder.size < MAX_BIDDERS_KEPT) this.byBidder.set(key, permissions);
    }
    return permissions;
  }

  private compute(bidder: string, vendorId: number | undefined): AuctionPermissions {
    const consent = this.consent;
    if (!consent || !this.list) return this.defaults();
    const id = vendorId ?? 0;
    const vendor = this.list.vendor(id);
    const rules = this.rules;
    const purpose2 = rules.purposes[2]!;
    const allowBidRequest = legalBasis(rules, purpose2, bidder, id, vendor, consent, { allowLITransparency: isBasic(rules, purpose2, bidder) });
    let passGeo = true;
    if (rules.featureOneEnforced && !rules.featureOneExceptions.has(bidder)) {
      passGeo = consent.specialFeatureOptIn(1) && ((vendor !== undefined && vendor.specialFeatures.has(1)) || rules.basicEnforcementVendors.has(bidder));
    }
    let passId = false;
    for (let purpose = 2; purpose <= 10 && !passId; purpose++) {
      const rule = rules.purposes[purpose]!;
      passId = legalBasis(rules, rule, bidder, id, vendor, consent, { enforcePurpose: true, enforceVendors: true, allowLITransparency: purpose === 2 && isBasic(rules, rule, bidder) });
    }
    return { allowBidRequest, passGeo, passId };
  }

  /** Whether a bidder is a vendor exception for a purpose: the account's list when it has one, else the host's. */
  vendorException(purpose: number, name: string): boolean {
    return this.rules.purposes[purpose]!.vendorExceptions.has(name);
  }

  /** Purpose 1 for a vendor: a user sync, or the host's own cookie (`/setuid`). */
  syncAllowed(name: string, vendorId: number | undefined, vendorException: boolean): boolean {
    const consent = this.consent;
    if (!consent || vendorId === undefined || !this.list) return false;
    const rule = this.rules.purposes[1]!;
    if (!rule.enforcePurpose) return true;
    if (this.rules.purposeOneTreatmentEnabled && consent.purposeOneTreatment) return this.rules.purposeOneTreatmentAccessAllowed;
    return legalBasis(this.rules, rule, name, vendorId, this.list.vendor(vendorId), consent, { blockVendorExceptions: !vendorException });
  }

  /** Purpose 7 (measurement) for an analytics vendor. */
  purposeAllowed(purpose: number, name: string, vendorId: number | undefined): boolean {
    const consent = this.consent;
    if (!consent || !this.list) return !this.rules.purposes[purpose]!.enforcePurpose;
    const id = vendorId ?? 0;
    return legalBasis(this.rules, this.rules.purposes[purpose]!, name, id, this.list.vendor(id), consent, {});
  }
}

const MAX_BIDDERS_KEPT = 256;

function isBasic(rules: TcfRules, rule: PurposeRule, bidder: string): boolean {
  return rule.basic || (rule.purpose !== 1 && rules.basicEnforcementVendors.has(bidder));
}
