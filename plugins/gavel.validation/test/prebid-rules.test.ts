import { expect } from 'chai';
import { expectAccepted, expectRejected, testDeps, validate, withRequest } from './support.js';

describe("gavel.validation: eids, aliases of disabled bidders, a request's currency codes (Prebid Server's rules)", () => {
  it('drops an eid without a source, a uid without an id, and an eid left with no uid, with a warning each', () => {
    const request = withRequest((r) => {
      r.user = { eids: [{ uids: [{ id: 'x' }] }, { source: 'a', uids: [{ id: '' }, { id: 'kept' }] }, { source: 'b', uids: [{}] }, { source: 'c', uids: [{ id: 'c1' }] }] };
    });
    const result = expectAccepted(request);
    expect(result?.warnings?.general).to.deep.equal([
      { code: 10013, message: 'request.user.eids[0] removed due to missing source' },
      { code: 10014, message: 'request.user.eids[1].uids[0] removed due to empty ids' },
      { code: 10014, message: 'request.user.eids[2].uids[0] removed due to empty ids' },
      { code: 10013, message: 'request.user.eids[2] (source: b) removed due to empty uids' },
    ]);
    expect(result?.request.user.eids).to.deep.equal([{ source: 'a', uids: [{ id: 'kept' }] }, { source: 'c', uids: [{ id: 'c1' }] }]);
  });

  it('leaves user without eids when none is left, and valid eids untouched', () => {
    expect(expectAccepted(withRequest((r) => { r.user = { id: 'u', eids: [{ source: 's', uids: [] }] }; }))?.request.user).to.deep.equal({ id: 'u' });
    expect(validate(withRequest((r) => { r.user = { eids: [{ source: 's', uids: [{ id: '1' }] }] }; }))).to.equal(undefined);
  });

  it('refuses an alias of a bidder the host has switched off', () => {
    const deps = testDeps();
    (deps.bidders as Map<string, { adapter: string; capabilities: object; enabled: boolean }>).set('rubicon', { adapter: 'rubicon', capabilities: {}, enabled: false });
    const result = validate(withRequest((r) => { r.ext = { prebid: { aliases: { test1: 'rubicon' } } }; r.imp[0].ext = { test1: {} }; }), 'prebid', deps);
    expect(result?.invalid).to.include('request.ext.prebid.aliases.test1 refers to disabled bidder: rubicon');
  });

  it('leaves a bidder the host has switched off out of the imp with a warning, and refuses an imp left with no bidder', () => {
    const deps = testDeps();
    (deps.bidders as Map<string, { adapter: string; capabilities: object; enabled: boolean }>).set('rubicon', { adapter: 'rubicon', capabilities: {}, enabled: false });
    const disabled = { code: 6, message: 'Bidder "rubicon" has been disabled on this instance of Prebid Server. Please work with the PBS host to enable this bidder again.' };
    const partial = expectAccepted(withRequest((r) => { r.imp[0].ext.svc.bidder.rubicon = {}; }), 'svc', deps);
    expect(partial?.warnings?.general).to.deep.equal([disabled]);
    expect(partial?.request.imp[0].ext).to.deep.equal({ svc: { bidder: { appnexus: { placementId: 42 } } } });
    const direct = expectAccepted(withRequest((r) => { r.imp[0].ext = { appnexus: { placementId: 42 }, rubicon: {} }; }), 'svc', deps);
    expect(direct?.warnings?.general).to.deep.equal([disabled]);
    expect(direct?.request.imp[0].ext).to.deep.equal({ svc: { bidder: { appnexus: { placementId: 42 } } } });
    const none = validate(withRequest((r) => { r.imp[0].ext = { svc: { bidder: { rubicon: {} } } }; }), 'svc', deps);
    expect(none?.invalid).to.deep.equal(['request.imp[0].ext.svc.bidder must contain at least one bidder']);
  });

  it("refuses a request whose own rates name a code that is no currency, and takes real ones", () => {
    expectRejected(withRequest((r) => { r.ext = { svc: { currency: { rates: { USD: { FOO: 10 } } } } }; }), 'currency code FOO is not recognized or malformed');
    expectRejected(withRequest((r) => { r.ext = { svc: { currency: { rates: { USDX: { EUR: 1 } } } } }; }), 'currency code USDX is not recognized or malformed');
    expectRejected(withRequest((r) => { r.ext = { svc: { currency: { rates: { USD: { 'E1R': 1 } } } } }; }), 'currency code E1R is not recognized or malformed');
    expectAccepted(withRequest((r) => { r.ext = { svc: { currency: { rates: { USD: { MXN: 17.1, EUR: 0.92 } } } } }; }));
    // Prebid Server reads codes with golang.org/x/text's ParseISO, which takes any case.
    expectAccepted(withRequest((r) => { r.ext = { svc: { currency: { rates: { usd: { eur: 1, Mxn: 17 } } } } }; }));
  });
});
