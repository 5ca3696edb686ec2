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
   * warning 10017) and narrows the others. Shares are edited by shallow copies of the branches that change.
   */
  enforce(request: BidRequest, shares: BidderRequest[], privacy: RequestPrivacy, namespace: string, warn: (warning: Warning) => void): void {
    if (privacy.permitsEverything) return;
    let kept = 0;
    for (const share of shares) {
      if (this.enforceOne(request, share, privacy, namespace)) shares[kept++] = share;
      else warn({ code: WarningCode.BidderBlockedByPrivacySettings, message: `bidder "${share.adapter}" blocked by privacy settings` });
    }
    shares.length = kept;
  }

  private enforceOne(request: BidRequest, share: BidderRequest, privacy: RequestPrivacy, namespace: string): boolean {
    const bidder = share.bidder;
    const component = { type: 'bidder' as const, name: bidder };
    if (!privacy.allows('fetchBids', component)) return false;
    const gdpr = privacy.gdprPermissions(bidder, privacy.tcf ? this.vendorIdOf(bidder, share.adapter, request, namespace) : undefined);
    if (!gdpr.allowBidRequest) return false;

    const scrub = new ShareScrubber(share.request, privacy.ipv4Bits, privacy.ipv6Bits);
    const usOptOut = privacy.usOptOutFor(bidder);
    if (!privacy.allows('transmitUfpd', component)) scrub.userFpd();
    else {
      if (!gdpr.passId) scrub.gdprIds();
      if (usOptOut) scrub.idsIpsDemographics(false);
    }
    if (!privacy.allows('transmitPreciseGeo', component)) scrub.geoAndIp();
    else {
      if (!gdpr.passGeo) scrub.geoAndIp();
      if (usOptOut) scrub.idsIpsDemographics(false);
    }
    if (privacy.lmt || privacy.coppa) scrub.idsIpsDemographics(privacy.coppa);
    if (!privacy.allows('transmitTids', component)) scrub.transactionIds();
    if (!privacy.allows('transmitEids', component)) scrub.eids();
    if (privacy.gppSid.length > 0 && this.bidders.get(share.adapter)?.info.openrtb?.gppSupported !== true) legacyFromGpp(share.request, privacy, scrub);
    return true;
  }
}

/** Prebid Server's GPP downgrade for bidders that read only the legacy fields. */
function legacyFromGpp(request: BidRequest, privacy: RequestPrivacy, scrub: ShareScrubber): void {
  const regs = request.regs as Json | undefined;
  if (regs && regs.gdpr === undefined) scrub.setRegs('gdpr', privacy.gppSid.includes(GPP_TCF_EU_V2) ? 1 : 0);
  const user = request.user as Json | undefined;
  if (privacy.gpp?.tcfConsent !== undefined && (!user || typeof user.consent !== 'string' || user.consent === '')) scrub.setUserConsent(privacy.gpp.tcfConsent);
  if (regs && (typeof regs.us_privacy !== 'string' || regs.us_privacy === '') && privacy.gppSid.includes(GPP_US_PRIVACY) && privacy.gpp?.usPrivacy !== undefined) {
    scrub.setRegs('us_privacy', privacy.gpp.usPrivacy);
  }
}
