/**
 * What an adapter's own tests need to call its bidder directly, with the values the fixture runner uses: the
 * request facts and the host config the core would hand it.
 */
import type { BidderConfig, EndpointName, RequestInfo } from '../../core/api/index.js';
import { strictConversion } from '../../core/currency/index.js';

/** Request facts for a direct `makeRequests` call; currency conversion knows no rates (same currency only). */
export function testRequestInfo(bidder: string, endpoint: EndpointName = 'auction', more: Partial<RequestInfo> = {}): RequestInfo {
  return { bidder, endpoint, convertCurrency: strictConversion(() => undefined), ...more };
}

/** A bidder config as the catalog builds it, for `manifest.create(...)` in a test. */
export function testBidderConfig(name: string, endpoint: string, more: Partial<BidderConfig> = {}): BidderConfig {
  return { name, endpoint, extra: {}, ortbVersion: '2.5', host: { externalUrl: 'http://hosturl.com' }, ...more };
}
