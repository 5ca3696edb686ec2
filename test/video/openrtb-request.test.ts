import { expect } from 'chai';
import { expandVideoRequest } from '../../core/video/openrtb-request.js';
import { checkVideoRequest, type VideoRequest } from '../../core/video/video-request.js';

type Json = Record<string, any>;

function expand(extra: Json = {}): Json {
  const checked = checkVideoRequest({
    podconfig: { durationrangesec: [15, 30], pods: [{ podid: 1, adpoddurationsec: 30, configid: 'preroll' }] },
    site: { page: 'https://video.example/', publisher: { id: 'pub' } },
    video: { mimes: ['video/mp4'], protocols: [3] },
    ...extra,
  });
  if (checked.kind !== 'valid') throw new Error(checked.messages.join('; '));
  const storedImps = new Map([['preroll', { ext: { prebid: { bidder: { appnexus: { placementId: 1, dealTier: { prefix: 'tier', minDealTier: 5 } } } } } }]]);
  return expandVideoRequest(checked.request as VideoRequest, checked.usablePods, { namespace: 'prebid', storedImps, priceGranularity: undefined, maxImps: 100 }).request as Json;
}

describe('video request expansion: the auction options (Prebid Server createBidExtension)', () => {
  it("asks for deal tiers with the request's supportdeals, and only then", () => {
    expect(expand({ supportdeals: true }).ext.prebid.supportdeals).to.equal(true);
    expect(expand().ext.prebid).to.not.have.property('supportdeals');
    expect(expand({ supportdeals: false }).ext.prebid).to.not.have.property('supportdeals');
  });

  it("keeps the stored imp's deal tiers where the auction reads them", () => {
    const [imp] = expand({ supportdeals: true }).imp;
    expect(imp.ext.prebid.bidder.appnexus.dealTier).to.deep.equal({ prefix: 'tier', minDealTier: 5 });
  });

  it('refuses a supportdeals that is not a boolean, naming it', () => {
    const checked = checkVideoRequest({
      podconfig: { durationrangesec: [15], pods: [{ podid: 1, adpoddurationsec: 15, configid: 'c' }] },
      site: { page: 'https://video.example/', publisher: { id: 'pub' } },
      video: { mimes: ['video/mp4'], protocols: [3] },
      supportdeals: 'yes',
    });
    expect(checked).to.deep.equal({ kind: 'invalid', messages: ['request field SupportDeals must be a boolean'] });
  });
});
