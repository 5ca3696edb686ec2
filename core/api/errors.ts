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
  HookStageUnknown: 'GAVEL_E_HOOK_STAGE_UNKNOWN',
  HookUnknown: 'GAVEL_E_HOOK_UNKNOWN',
  BidderUnknownAdapter: 'GAVEL_E_BIDDER_UNKNOWN_ADAPTER',
  BidderConfigInvalid: 'GAVEL_E_BIDDER_CONFIG_INVALID',
  EndpointUnsafe: 'GAVEL_E_ENDPOINT_UNSAFE',
  RequestInvalid: 'GAVEL_E_REQUEST_INVALID',
  RequestTooLarge: 'GAVEL_E_REQUEST_TOO_LARGE',
  RequestMalformed: 'GAVEL_E_REQUEST_MALFORMED',
  StoredNotFound: 'GAVEL_E_STORED_NOT_FOUND',
  StoredFetchFailed: 'GAVEL_E_STORED_FETCH_FAILED',
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

/** Per-bidder error codes of the interface specification, section 7.1. */
export const BidderErrorCode = {
  NoError: 0,
  Timeout: 1,
  BadInput: 2,
  BadServerResponse: 3,
  FailedToRequestBids: 4,
  Unknown: 999,
} as const;
export type BidderErrorCode = (typeof BidderErrorCode)[keyof typeof BidderErrorCode];

/** An error reported against one bidder in `response.ext.errors.<bidder>[]`. */
export interface BidderError {
  code: number;
  message: string;
}

export const badInput = (message: string): BidderError => ({ code: BidderErrorCode.BadInput, message });
export const badServerResponse = (message: string): BidderError => ({ code: BidderErrorCode.BadServerResponse, message });
export const timeoutError = (message: string): BidderError => ({ code: BidderErrorCode.Timeout, message });
export const unknownError = (message: string): BidderError => ({ code: BidderErrorCode.Unknown, message });
