/**
 * PubMatic bidder: every valid imp of the auction goes in one call to PubMatic's OpenRTB translator.
 */
import { failedToUnmarshal, encodeAsOpenrtb2Request, unknownError, type Bidder, type BidderError, type BidRequest, type Imp } from '../../core/api/index.js';
import { readPubmaticBids } from './bids.js';
import { parseImp } from './imp.js';
import { appDisplayManager, buildRequestExt, isCompleteWrapper, mergeWrapper, readRequestSettings } from './request-ext.js';

const HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json;charset=utf-8',
  Accept: 'application/json',
};

export function createPubmaticBidder(endpoint: string): Bidder {
  return {
    makeRequests(request) {
      const settings = readRequestSettings(request);
      if ('error' in settings) return { requests: [], errors: [settings.error] };

      const displayManager = appDisplayManager(request.app);
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      let wrapper = settings.wrapper;
      let publisherId = '';
      for (const imp of Array.isArray(request.imp) ? request.imp : []) {
        // Imps are read for the wrapper until the request has a complete one, and for the publisher until one names it.
        const parsed = parseImp(imp, { wrapper: !isCompleteWrapper(wrapper), publisherId: publisherId === '' }, displayManager);
        if ('error' in parsed) {
          errors.push(parsed.unmarshal ? failedToUnmarshal(parsed.error) : unknownError(parsed.error));
          continue;
        }
        imps.push(parsed.imp);
        wrapper = mergeWrapper(wrapper, parsed.wrapper);
        if (publisherId === '') publisherId = parsed.publisherId;
      }
      if (imps.length === 0) return { requests: [], errors };

      // The request ext is replaced by PubMatic's; the first publisher id found becomes the site's or app's.
      // Go re-encodes the request: empty top-level fields are left out.
      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps, ext: buildRequestExt(settings, wrapper) });
      // Both taken from the encoded body, so that the site's or app's empty fields are left out as Go leaves them.
      if (body.site) body.site = { ...body.site, publisher: withPublisherId(body.site.publisher, publisherId) };
      else if (body.app) body.app = { ...body.app, publisher: withPublisherId(body.app.publisher, publisherId) };

      const requests = [{ method: 'POST' as const, uri: endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }];
      return { requests, errors };
    },

    makeBids(_request, _sent, response) {
      return readPubmaticBids(response);
    },
  };
}

function withPublisherId(publisher: Record<string, unknown> | undefined, publisherId: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...publisher };
  if (publisherId !== '') copy.id = publisherId;
  else delete copy.id;
  return copy;
}
