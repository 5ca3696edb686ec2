import { isJsonObject, WarningCode, type BidderRequest, type BidRequest, type Warning } from '../api/index.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { RequestPrivacy } from './request-privacy.js';
import { ShareScrubber } from './scrub.js';
import { GPP_TCF_EU_V2, GPP_US_PRIVACY } from './signals.js';

type Json = Record<string, unknown>;

/**
 * Per-bidder enforcement, where each bidder's request is built and before any hook or adapter sees it, in Prebid
 * Server's order (`exchange/utils.go`): `fetchBids` and GDPR purpose 2 decide whether the bidder is asked at all;
 * then `transmitUfpd` / GDPR ids (purposes 2-10 with the vendor) / US opt-out decide the ids, `transmitPreciseGeo` /
 * special feature 1 / US opt-out the IP and geo, LMT and COPPA strip ids and mask the IP (COPPA clears the geo),
 * `transmitTids` the transaction ids, `transmitEids` the eids; a bidder that does not read GPP gets the legacy
 * `regs.gdpr`, `user.consent` and `regs.us_privacy` from it.
 */
export class PrivacyEnforcer {
  constructor(
    private readonly bidders: BidderCatalog,
    /** `privacy.gdpr.bidderVendorIds`. */
    private readonly vendorIds: Readonly<Record<string, number>>,
  ) {}

  /** The GVL vendor id of a bidder: the request's alias id, the host's, the bidder's manifest, its adapter's. */
  vendorIdOf(bidder: string, adapter: string, request?: BidRequest, namespace?: string): number | undefined {
    const options = request && namespace && isJsonObject(request.ext) ? request.ext[namespace] : undefined;
    const aliasIds = isJsonObject(options) && isJsonObject(options.aliasgvlids) ? options.aliasgvlids : undefined;
    const aliasId = aliasIds?.[bidder];
    if (typeof aliasId === 'number') return aliasId;
    return this.vendorIds[bidder] ?? this.vendorIds[adapter] ?? this.bidders.get(bidder)?.info.gvlVendorId ?? this.bidders.get(adapter)?.info.gvlVendorId;
  }

  /**
   * Applies the request's privacy to every share: removes the shares of bidders that may not be asked (with a
   * warning 10017) and narrows the others. Shares are edited by shallow copies of the branches that change; a bidder
   * whose rules and branches are those of the bidder before it gets that bidder's scrubbed branches, not copies of
   * its own.
   *
   * The warnings of this step (the request's `exchangeWarnings`, then one per blocked bidder) are Prebid Server's
   * exchange errors: it reports them under `ext.warnings.prebid` only when at least one bidder is asked (its
   * makeExtBidResponse writes them per bidder answer), so `warn` is called only then.
   */
  enforce(request: BidRequest, shares: BidderRequest[], privacy: RequestPrivacy, namespace: string, warn: (warning: Warning) => void): void {
    const blocked = privacy.permitsEverything ? undefined : this.enforceEach(request, shares, privacy, namespace);
    if (shares.length === 0) return;
    for (const warning of privacy.exchangeWarnings) warn(warning);
    if (blocked) for (const warning of blocked) warn(warning);
  }

  /** Enforces the rules on each share; answers the warnings for the bidders it blocked, if any. */
  private enforceEach(request: BidRequest, shares: BidderRequest[], privacy: RequestPrivacy, namespace: string): Warning[] | undefined {
    let blocked: Warning[] | undefined;
    let kept = 0;
    let previous: ScrubbedBranches | undefined;
    for (const share of shares) {
      const scrubs = this.scrubsFor(request, share, privacy, namespace);
      if (scrubs === BLOCKED) {
        (blocked ??= []).push({ code: WarningCode.BidderBlockedByPrivacySettings, message: `bidder "${share.adapter}" blocked by privacy settings` });
        continue;
      }
      shares[kept++] = share;
      if (scrubs === 0) continue;
      const own = share.request as Json;
      if (previous && previous.scrubs === scrubs && SCRUBBED.every((key, i) => own[key] === previous!.before[i])) {
        for (let i = 0; i < SCRUBBED.length; i++) own[SCRUBBED[i]!] = previous.after[i];
        continue;
      }
      const before = SCRUBBED.map((key) => own[key]);
      applyScrubs(share.request, scrubs, privacy);
      // The transaction-id scrub also edits the imps, which differ per bidder: that outcome is not handed on.
      previous = scrubs & TRANSACTION_IDS ? undefined : { scrubs, before, after: SCRUBBED.map((key) => own[key]) };
    }
    shares.length = kept;
    return blocked;
  }

  /** What the rules take from one bidder's share, as bits (0: nothing), or BLOCKED when the bidder may not be asked. */
  private scrubsFor(request: BidRequest, share: BidderRequest, privacy: RequestPrivacy, namespace: string): number {
    const bidder = share.bidder;
    const component = { type: 'bidder' as const, name: bidder };
    if (!privacy.allows('fetchBids', component)) return BLOCKED;
    // GDPR's per-bidder settings (vendor exceptions, basic enforcement vendors) name the host bidder, as Prebid Server
    // hands its permissions the core bidder; only the vendor id may come from the request's alias.
    const gdpr = privacy.gdprPermissions(share.adapter, privacy.tcf ? this.vendorIdOf(bidder, share.adapter, request, namespace) : undefined);
    if (!gdpr.allowBidRequest) return BLOCKED;

    let scrubs = 0;
    const usOptOut = privacy.usOptOutFor(bidder);
    if (!privacy.allows('transmitUfpd', component)) scrubs |= USER_FPD;
    else {
      if (!gdpr.passId) scrubs |= GDPR_IDS;
      if (usOptOut) scrubs |= US_OPT_OUT_IDS;
    }
    if (!privacy.allows('transmitPreciseGeo', component)) scrubs |= GEO_AND_IP;
    else {
      if (!gdpr.passGeo) scrubs |= GEO_AND_IP;
      if (usOptOut) scrubs |= US_OPT_OUT_GEO;
    }
    if (privacy.lmt || privacy.coppa) scrubs |= LMT_OR_COPPA;
    if (!privacy.allows('transmitTids', component)) scrubs |= TRANSACTION_IDS;
    if (!privacy.allows('transmitEids', component)) scrubs |= EIDS;
    if (privacy.gppLegacy && this.bidders.get(share.adapter)?.info.openrtb?.gppSupported !== true) scrubs |= LEGACY_FROM_GPP;
    return scrubs;
  }
}

const BLOCKED = -1;
const USER_FPD = 1;
const GDPR_IDS = 2;
const US_OPT_OUT_IDS = 4;
const GEO_AND_IP = 8;
const US_OPT_OUT_GEO = 16;
const LMT_OR_COPPA = 32;
const TRANSACTION_IDS = 64;
const EIDS = 128;
const LEGACY_FROM_GPP = 256;

/** The branches the scrubs may replace in a share (the transaction-id scrub also replaces `imp`). */
const SCRUBBED = ['user', 'device', 'source', 'regs'] as const;

interface ScrubbedBranches {
  scrubs: number;
  before: unknown[];
  after: unknown[];
}

/** The scrubs in Prebid Server's order (`exchange/utils.go`). */
function applyScrubs(request: BidRequest, scrubs: number, privacy: RequestPrivacy): void {
  const scrub = new ShareScrubber(request, privacy.ipv4Bits, privacy.ipv6Bits);
  if (scrubs & USER_FPD) scrub.userFpd();
  if (scrubs & GDPR_IDS) scrub.gdprIds();
  if (scrubs & US_OPT_OUT_IDS) scrub.idsIpsDemographics(false);
  if (scrubs & GEO_AND_IP) scrub.geoAndIp();
  if (scrubs & US_OPT_OUT_GEO) scrub.idsIpsDemographics(false);
  if (scrubs & LMT_OR_COPPA) scrub.idsIpsDemographics(privacy.coppa);
  if (scrubs & TRANSACTION_IDS) scrub.transactionIds();
  if (scrubs & EIDS) scrub.eids();
  if (scrubs & LEGACY_FROM_GPP) legacyFromGpp(request, privacy, scrub);
}

/**
 * Prebid Server's GPP downgrade for bidders that read only the legacy fields (exchange/utils.go setLegacyGDPRFromGPP,
 * setLegacyUSPFromGPP): `regs.gdpr` from `gpp_sid` when the list is given, `user.consent` from the TCF EU section
 * whatever the list says, `regs.us_privacy` from `uspv1` when the list names it.
 */
function legacyFromGpp(request: BidRequest, privacy: RequestPrivacy, scrub: ShareScrubber): void {
  const regs = request.regs as Json | undefined;
  if (regs && regs.gdpr === undefined && privacy.gppSidGiven) scrub.setRegs('gdpr', privacy.gppSid.includes(GPP_TCF_EU_V2) ? 1 : 0);
  const user = request.user as Json | undefined;
  if (privacy.gpp?.tcfConsent !== undefined && (!user || typeof user.consent !== 'string' || user.consent === '')) scrub.setUserConsent(privacy.gpp.tcfConsent);
  if (regs && (typeof regs.us_privacy !== 'string' || regs.us_privacy === '') && privacy.gppSid.includes(GPP_US_PRIVACY) && privacy.gpp?.usPrivacy !== undefined) {
    scrub.setRegs('us_privacy', privacy.gpp.usPrivacy);
  }
}
