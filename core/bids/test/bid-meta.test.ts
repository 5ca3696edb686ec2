import { expect } from 'chai';
import { asPrebidMeta } from '../bid-meta.js';

describe('asPrebidMeta: a bid meta as Prebid Server carries it', () => {
  it("keeps the meta struct's members under their names, and drops unknown ones, zero values and wrong types", () => {
    expect(asPrebidMeta({
      advertiserDomains: ['a.example'],
      networkid: 7,
      brandName: '',
      agencyId: 0,
      mediaType: 'banner',
      dchain: { ver: '1.0' },
      notAMetaField: 1,
      advertiserId: '12',
      secondaryCatIds: [],
    })).to.deep.equal({ advertiserDomains: ['a.example'], networkId: 7, mediaType: 'banner', dchain: { ver: '1.0' } });
  });

  it('takes the exact spelling over another one of the same member', () => {
    expect(asPrebidMeta({ NetworkName: 'other', networkName: 'net' })).to.deep.equal({ networkName: 'net' });
    expect(asPrebidMeta({ NETWORKNAME: 'only' })).to.deep.equal({ networkName: 'only' });
  });
});
