import { expect } from 'chai';
import { GoDecodeError, reencodeExtRequestPrebid } from '../index.js';

describe('reencodeExtRequestPrebid', () => {
  it('writes ext.prebid as ExtRequestPrebid writes it: nested structs whole, empty members and unknown ones gone', () => {
    const prebid = { Channel: { name: 'web' }, server: { gvlid: 50 }, debug: false, aliases: {}, targeting: { prefix: '', includewinners: true }, other: 1 };
    expect(reencodeExtRequestPrebid(prebid, ['ix.ExtRequest.Prebid'])).to.deep.equal({
      channel: { name: 'web', version: '' },
      server: { externalurl: '', gvlid: 50, datacenter: '' },
      targeting: { includewinners: true },
    });
  });

  it('takes null as the empty struct', () => {
    expect(reencodeExtRequestPrebid(null, ['ix.ExtRequest.Prebid'])).to.deep.equal({});
  });

  it("names the first member of the wrong JSON type, in the order written, in json-iterator's words", () => {
    const failure = (value: unknown): string | undefined => {
      try {
        reencodeExtRequestPrebid(value, ['ix.ExtRequest.Prebid']);
        return undefined;
      } catch (err) {
        expect(err).to.be.instanceOf(GoDecodeError);
        return (err as Error).message;
      }
    };
    expect(failure({ integration: 5, debug: 'yes' })).to.equal('cannot unmarshal openrtb_ext.ExtRequestPrebid.Integration: expects " or n, but found 5');
    expect(failure({ debug: 'yes', integration: 5 })).to.equal('cannot unmarshal openrtb_ext.ExtRequestPrebid.Debug: expect t or f, but found "');
    expect(failure({ nosale: 'all' })).to.equal('cannot unmarshal openrtb_ext.ExtRequestPrebid.NoSale: decode slice: expect [ or n, but found "');
    expect(failure('x')).to.equal('cannot unmarshal ix.ExtRequest.Prebid: expect { or n, but found "');
  });
});
