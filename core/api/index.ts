/**
 * The Gavel plugin SDK, version 1: the only module adapters and modules import.
 */
export * from './common.js';
export * from './errors.js';
export * from './openrtb.js';
export * from './adapter.js';
export * from './context.js';
export * from './hooks.js';
export * from './services.js';
export * from './analytics.js';
export * from './endpoint.js';
export * from './helpers.js';
export * from './go-compat.js';
export * from './openrtb2-encoding.js';
export * from './go-decoding.js';
export * from './go-raw-json.js';
export * from './price-granularity.js';
export * from './prebid-ext-encoding.js';
export * from './bid-adjustments.js';
export * from './currency-codes.js';
