import type { AnalyticsGate } from '../analytics/index.js';
import type { AnalyticsRecord, BidRequest } from '../api/index.js';
import type { Component } from './activities.js';
import { RequestPrivacy } from './request-privacy.js';
import { ShareScrubber } from './scrub.js';

/**
 * The analytics gate of a host that enforces privacy: a module sees an auction, AMP or video transaction only when
 * the `reportAnalytics` activity allows it (component type `analytics`, the module's name) and, where GDPR applies,
 * when TCF purpose 7 (measurement) has a legal basis for the host's own vendor id (`privacy.gdpr.hostVendorId`):
 * the analytics modules report to the host's own systems. A module named in `tcf2.purpose7.vendorExceptions` is
 * exempt from purpose 7. A module the `transmitUfpd` or `transmitPreciseGeo` activity denies sees the request
 * scrubbed as a bidder would (Prebid Server's analytics evaluateActivities: ScrubUserFPD, ScrubGeoAndDeviceIP).
 * Records without the request's privacy (cookie sync, setuid, events) pass: their endpoints already applied the
 * consent rules that concern them.
 */
export function privacyAnalyticsGate(hostVendorId: number | undefined): AnalyticsGate {
  return (record, module) => {
    const privacy = 'privacy' in record ? record.privacy : undefined;
    if (!(privacy instanceof RequestPrivacy)) return record;
    const component: Component = { type: 'analytics', name: module };
    if (!privacy.allows('reportAnalytics', component)) return undefined;
    if (privacy.gdprApplies && privacy.tcf && !privacy.tcf.purposeAllowed(7, module, hostVendorId)) return undefined;
    return withRequestScrubbed(record, privacy, component);
  };
}

/** The record with the request a module may see: scrubbed on copies of the branches that change, the record's untouched. */
function withRequestScrubbed(record: AnalyticsRecord, privacy: RequestPrivacy, component: Component): AnalyticsRecord {
  if (!('request' in record) || !record.request || !('privacy' in record)) return record;
  const blockUserFpd = !privacy.allows('transmitUfpd', component);
  const blockPreciseGeo = !privacy.allows('transmitPreciseGeo', component);
  if (!blockUserFpd && !blockPreciseGeo) return record;
  const request: BidRequest = { ...record.request };
  const scrub = new ShareScrubber(request, privacy.ipv4Bits, privacy.ipv6Bits);
  if (blockUserFpd) scrub.userFpd();
  if (blockPreciseGeo) scrub.geoAndIp();
  return { ...record, request };
}
