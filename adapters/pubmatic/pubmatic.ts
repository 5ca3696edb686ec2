/**
 * PubMatic bidder: every valid imp of the auction goes in one call to PubMatic's OpenRTB translator.
 */
import { badInput, isJsonObject, type Bidder, type BidderError, type BidRequest, type Imp, type User } from '../../core/api/index.js';
import { readPubmaticBids } from './bids.js';
import { parseImp, type Wrapper } from './imp.js';
import { appDisplayManager, buildRequestExt, mergeWrapper, readRequestSettings } from './request-ext.js';

const HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'application/json;charset=utf-8',
  Accept: 'application/json',
};

export function createPubmaticBidder(endpoint: string): Bidder {
  return {
    makeRequests(request, info) {
      const settings = readRequestSettings(request, info.bidder);
      if ('error' in settings) return { requests: [], errors: [settings.error] };

      const displayManager = appDisplayManager(request.app);
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      let wrapper: Wrapper | undefined = settings.wrapper;
      let publisherId = '';
      for (const imp of Array.isArray(request.imp) ? request.imp : []) {
        const parsed = isJsonObject(imp) ? parseImp(imp, displayManager) : { error: badInput('request.imp holds something that is not an imp object') };
        if ('error' in parsed) {
          errors.push(parsed.error);
          continue;
        }
        imps.push(parsed.imp);
        wrapper = mergeWrapper(wrapper, parsed.wrapper);
        // The first imp that names a publisher speaks for the whole request.
        if (publisherId === '') publisherId = parsed.publisherId;
      }
      if (imps.length === 0) return { requests: [], errors };

      const body: BidRequest = { ...request, imp: imps, ext: buildRequestExt(settings, wrapper, info.bidder) };
      if (request.site) body.site = { ...request.site, publisher: withPublisherId(request.site.publisher, publisherId) };
      else if (request.app) body.app = { ...request.app, publisher: withPublisherId(request.app.publisher, publisherId) };
      if (request.user) body.user = withEidsAtTop(request.user);

      const requests = [{ method: 'POST' as const, uri: endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }];
      return { requests, errors };
    },

    makeBids(_request, _sent, response) {
      return readPubmaticBids(response);
    },
  };
}

function withPublisherId(publisher: unknown, publisherId: string): Record<string, unknown> {
  const copy: Record<string, unknown> = isJsonObject(publisher) ? { ...publisher } : {};
  if (publisherId !== '') copy.id = publisherId;
  else delete copy.id;
  return copy;
}

/** PubMatic reads extended ids from `user.eids` (OpenRTB 2.6), not from the 2.5 home `user.ext.eids`. */
function withEidsAtTop(user: User): User {
  if (!isJsonObject(user.ext) || !Array.isArray(user.ext.eids)) return user;
  const { eids, ...ext } = user.ext;
  const moved: User = { ...user, eids: eids as unknown[] };
  if (Object.keys(ext).length > 0) moved.ext = ext;
  else delete moved.ext;
  return moved;
}
