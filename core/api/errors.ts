/**
 * Stable error codes. Tests assert the code, never the prose, so messages can improve without breaking anyone.
 */
export const ErrorCode = {
  ConfigInvalid: 'GAVEL_E_CONFIG_INVALID',
  ConfigUnreadable: 'GAVEL_E_CONFIG_UNREADABLE',
  PluginInvalid: 'GAVEL_E_PLUGIN_INVALID',
  PluginNotFound: 'GAVEL_E_PLUGIN_NOT_FOUND',
  PluginDuplicate: 'GAVEL_E_PLUGIN_DUPLICATE',
  PluginSdkMismatch: 'GAVEL_E_PLUGIN_SDK_MISMATCH',
  HookUnknown: 'GAVEL_E_HOOK_UNKNOWN',
  /** Two enabled modules provide the same hook point. */
  HookPointConflict: 'GAVEL_E_HOOK_POINT_CONFLICT',
  /** A hook point has no implementation (its built-in switched off, nothing replacing it). */
  HookPointMissing: 'GAVEL_E_HOOK_POINT_MISSING',
  BidderUnknownAdapter: 'GAVEL_E_BIDDER_UNKNOWN_ADAPTER',
  BidderConfigInvalid: 'GAVEL_E_BIDDER_CONFIG_INVALID',
  EndpointUnsafe: 'GAVEL_E_ENDPOINT_UNSAFE',
  RequestTooLarge: 'GAVEL_E_REQUEST_TOO_LARGE',
  RequestMalformed: 'GAVEL_E_REQUEST_MALFORMED',
  /** The request's JSON nests deeper than `server.maxJsonDepth`. */
  RequestTooDeep: 'GAVEL_E_REQUEST_TOO_DEEP',
  /** The server is shedding load (too many auctions in flight, event loop too slow): a 503 with Retry-After. */
  Overloaded: 'GAVEL_E_OVERLOADED',
  /** A client sent more bid cache puts than its rate allows: a 429. */
  RateLimited: 'GAVEL_E_RATE_LIMITED',
  RouteNotFound: 'GAVEL_E_ROUTE_NOT_FOUND',
  MethodNotAllowed: 'GAVEL_E_METHOD_NOT_ALLOWED',
  StoredFetchFailed: 'GAVEL_E_STORED_FETCH_FAILED',
  /** The host requires an account and the request names none (or one it cannot verify). */
  AccountRequired: 'GAVEL_E_ACCOUNT_REQUIRED',
  /** The request's account is disabled on this host. */
  AccountDisabled: 'GAVEL_E_ACCOUNT_DISABLED',
  /** The request's account data fails the account schema. */
  AccountMalformed: 'GAVEL_E_ACCOUNT_MALFORMED',
  /** The request comes from an app the host blocks (`auction.blockedApps`). */
  AppBlocked: 'GAVEL_E_APP_BLOCKED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class GavelError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'GavelError';
  }
}

/**
 * Error codes in `response.ext.errors` and `ext.warnings`: 0-3 and 999 as the interface specification (7.1) numbers
 * them, every other one as Prebid Server's `errortypes/code.go` does (its 3, "blocked app", and 4, "bad server
 * response", clash with the specification's numbering and are not used). docs/errors.md lists them all.
 */
export const BidderErrorCode = {
  NoError: 0,
  Timeout: 1,
  BadInput: 2,
  BadServerResponse: 3,
  FailedToRequestBids: 5,
  /** A bidder the request names is switched off on this host: a warning, the auction goes on without it. */
  BidderTemporarilyDisabled: 6,
  AccountDisabled: 7,
  AccountRequired: 8,
  NoConversionRate: 9,
  MalformedAccount: 10,
  ModuleRejection: 11,
  TmaxTimeout: 12,
  FailedToMarshal: 13,
  FailedToUnmarshal: 14,
  InvalidImpFirstPartyData: 15,
  BidderTemporarilyThrottled: 16,
  Unknown: 999,
} as const;
export type BidderErrorCode = (typeof BidderErrorCode)[keyof typeof BidderErrorCode];

/**
 * Why a bid, or a bidder's chance to bid, is not in the answer: the seat-non-bid status codes Prebid Server reports
 * in `response.ext.prebid.seatnonbid[].nonbid[].statuscode` (IAB's community extension).
 */
export const NonBidReason = {
  ErrorGeneral: 100,
  ErrorTimeout: 101,
  ErrorBidderUnreachable: 103,
  ResponseRejectedGeneral: 300,
  ResponseRejectedBelowFloor: 301,
  ResponseRejectedCategoryExclusions: 302,
  ResponseRejectedCategoryMappingInvalid: 303,
  ResponseRejectedBelowDealFloor: 304,
  ResponseRejectedInvalidCreative: 350,
  ResponseRejectedCreativeSizeNotAllowed: 351,
  ResponseRejectedCreativeNotSecure: 352,
  ResponseRejectedAdvertiserExclusions: 355,
} as const;
export type NonBidReason = (typeof NonBidReason)[keyof typeof NonBidReason];

/** Codes of the warnings in `response.ext.warnings.<scope>[]`, numbered as Prebid Server's `errortypes` numbers them. */
export const WarningCode = {
  InvalidPrivacyConsent: 10001,
  AccountLevelDebugDisabled: 10002,
  BidderLevelDebugDisabled: 10003,
  DisabledCurrencyConversion: 10004,
  AlternateBidderCode: 10005,
  MultiBid: 10006,
  AdServerTargeting: 10007,
  BidAdjustment: 10008,
  FloorBidRejection: 10009,
  InvalidBidResponseDSA: 10010,
  SecCookieDeprecationLen: 10011,
  SecBrowsingTopics: 10012,
  InvalidUserEIDs: 10013,
  InvalidUserUIDs: 10014,
  TooLongTargetingPrefix: 10015,
  TooShortTargetingPrefix: 10016,
  BidderBlockedByPrivacySettings: 10017,
  /**
   * Prebid Server's `errortypes.Warning` that sets no code of its own (the unknown imp.ext key, the dropped second
   * currency, an adapter's plain warning): its exchange writes the zero value, 0.
   */
  Uncoded: 0,
  Unknown: 10999,
} as const;
export type WarningCode = (typeof WarningCode)[keyof typeof WarningCode];

/** An error reported against one bidder in `response.ext.errors.<bidder>[]`. */
export interface BidderError {
  code: number;
  message: string;
}

export const badInput = (message: string): BidderError => ({ code: BidderErrorCode.BadInput, message });
export const badServerResponse = (message: string): BidderError => ({ code: BidderErrorCode.BadServerResponse, message });
export const timeoutError = (message: string): BidderError => ({ code: BidderErrorCode.Timeout, message });
export const unknownError = (message: string): BidderError => ({ code: BidderErrorCode.Unknown, message });
/** What a Go adapter returns when it passes `jsonutil.Unmarshal`'s error on as it is (`errortypes.FailedToUnmarshal`). */
export const failedToUnmarshal = (message: string): BidderError => ({ code: BidderErrorCode.FailedToUnmarshal, message });
