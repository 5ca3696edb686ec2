import { expect } from 'chai';
import type { AccountSettings, Bid, BidRequest } from '../../api/index.js';
import { applyDefaultDsa, dsaError, dsaRequirements } from '../dsa.js';

const request = (regs?: unknown) => ({ id: 'r', imp: [], ...(regs !== undefined && { regs }) }) as unknown as BidRequest;
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

  it('treats a request DSA of null as an empty one: nothing required, no account default written over it', () => {
    const account = { id: 'a', privacy: { dsa: { default: '{"dsarequired": 2}' } } } as unknown as AccountSettings;
    const nulled = request({ ext: { dsa: null } });
    applyDefaultDsa(nulled, account, false);
    expect(nulled.regs).to.deep.equal({ ext: { dsa: null } });
    expect(dsaRequirements(nulled)).to.deep.equal({ required: false, pubRender: undefined });
    const absent = request({ ext: {} });
    applyDefaultDsa(absent, account, false);
    expect(absent.regs).to.deep.equal({ ext: { dsa: { dsarequired: 2 } } });
  });

  it('reads the request DSA members ignoring case', () => {
    expect(dsaRequirements(request({ ext: { dsa: { DSARequired: 3, PubRender: 2 } } }))).to.deep.equal({ required: true, pubRender: 2 });
  });
});
