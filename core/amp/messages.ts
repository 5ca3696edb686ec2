/**
 * The AMP endpoint's error messages, word for word from interface spec 7.3 and 7.4, in one place so clients and
 * tests can rely on them.
 */

/** Spec 7.4: loading the stored request (HTTP 400 `Invalid request: <message>`, code 999). */
export const loadingErrors = {
  missingTagId: () => 'AMP requests require an AMP tag_id.',
  notFound: (tagId: string) => `No AMP config found for tag_id ${tagId}.`,
  noImps: (tagId: string) => `Data for tag_id ${tagId} does not define the required imp array.`,
  tooManyImps: (tagId: string, count: number) => `Data for tag_id ${tagId} includes ${count} imp elements. Only one is allowed.`,
  hasApp: () => 'request.app must not exist in AMP stored requests.',
};

/** Spec 7.3: failures after the auction. The first two are HTTP 500, the others are only logged. */
export const responseErrors = {
  auctionData: 'Critical error.',
  unpackTargets: 'Critical error while unpacking AMP targets.',
  unpackExt: 'AMP response: failed to unpack OpenRTB response.ext, debug info cannot be forwarded.',
  debugMissing: 'Test set on request but debug not present in response.',
  encoding: 'Failure to send the response from the AMP endpoint.',
};

/** Code of the spec 7.3 / 7.4 errors that are not bidder faults (spec 7.1 "unknown"). */
export const AMP_UNKNOWN_ERROR_CODE = 999;
/** Code of the spec 7.3 critical errors ("bad server response"). */
export const AMP_CRITICAL_ERROR_CODE = 3;
/** Warning code for a consent value the endpoint could not use (Prebid Server's invalid-privacy-consent code). */
export const INVALID_CONSENT_WARNING = 10001;
