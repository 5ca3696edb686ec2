import { expect } from 'chai';
import type { Bid } from '../../api/index.js';
import { dsaError } from '../dsa.js';

const bid = (ext?: unknown) => ({ id: 'b', impid: 'i', price: 1, ...(ext !== undefined && { ext }) }) as unknown as Bid;
const required = { required: true, pubRender: undefined };

describe('DSA (Prebid Server dsa.Validate and dsa.Writer)', () => {
  it('reads the bid DSA object as Prebid Server decodes bid.ext: none when any typed member does not decode', () => {
    expect(dsaError(bid({ dsa: { behalf: 5 } }), required)).to.equal('DSA object missing when required');
    expect(dsaError(bid({ dsa: { adrender: 1.5 } }), required)).to.equal('DSA object missing when required');
    expect(dsaError(bid({ dsa: { behalf: 'x' }, prebid: { meta: 'm' } }), required)).to.equal('DSA object missing when required');
    expect(dsaError(bid({ dsa: { behalf: 5 } }), undefined)).to.equal(undefined);
    expect(dsaError(bid({ dsa: { behalf: 'x' }, prebid: { type: 'banner' } }), required)).to.equal(undefined);
  });

  it('matches the bid DSA object and its members ignoring case', () => {
    expect(dsaError(bid({ DSA: { Behalf: 'x' } }), required)).to.equal(undefined);
    expect(dsaError(bid({ Dsa: { PAID: 'p'.repeat(101) } }), undefined)).to.equal('DSA paid exceeds limit of 100 chars');
    expect(dsaError(bid({ dsa: { AdRender: 0 } }), { required: false, pubRender: 0 })).to.equal('DSA publisher and buyer both signal will not render');
  });
});
