import type { AnalyticsGate } from '../analytics/index.js';
import { RequestPrivacy } from './request-privacy.js';

/**
 * The analytics gate of a host that enforces privacy: a module sees an auction, AMP or video transaction only when
 * the `reportAnalytics` activity allows it (component type `analytics`, the module's name) and, where GDPR applies,
 * when TCF purpose 7 (measurement) has a legal basis for the host's own vendor id (`privacy.gdpr.hostVendorId`):
 * the analytics modules report to the host's own systems. A module named in `tcf2.purpose7.vendorExceptions` is
 * exempt from purpose 7. Records without the request's privacy (cookie sync, setuid, events) pass: their endpoints
 * already applied the consent rules that concern them.
 */
export function privacyAnalyticsGate(hostVendorId: number | undefined): AnalyticsGate {
  return (record, module) => {
    const privacy = 'privacy' in record ? record.privacy : undefined;
    if (!(privacy instanceof RequestPrivacy)) return record;
    if (!privacy.allows('reportAnalytics', { type: 'analytics', name: module })) return undefined;
    if (privacy.gdprApplies && privacy.tcf && !privacy.tcf.purposeAllowed(7, module, hostVendorId)) return undefined;
    return record;
  };
}
