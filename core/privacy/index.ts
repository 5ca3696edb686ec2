export { ActivityControl, type Activity, type ActivityFacts, type Component } from './activities.js';
export { PrivacyEnforcer } from './enforce.js';
export { channelOf, PrivacyService, RequestPrivacy } from './request-privacy.js';
export { maskIPv4, maskIPv6, roundCoordinate, ShareScrubber } from './scrub.js';
export { decodeTcfConsent, TcfPermissions, tcfRules, type AuctionPermissions, type TcfConsent, type TcfRules } from './tcf.js';
export { parseVendorList, VendorLists, type VendorList } from './vendor-lists.js';
export { readGpp, usPrivacyProblem, type GppSignals } from './signals.js';
export { clientAddress, fillDeviceFacts, type HttpFacts } from './device-facts.js';
export { REJECTED_BY_PRIVACY, SyncConsent, type SetuidRefusal, type SyncSignals } from './sync-consent.js';
