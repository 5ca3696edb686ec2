import { expect } from 'chai';
import type { BidRequest } from '../../api/index.js';
import { detectNamespace, unifyNamespaces } from '../namespace.js';

const request = (ext: Record<string, unknown>, impExt: Record<string, unknown> = {}): BidRequest =>
  ({ id: 'r', imp: [{ id: '1', ext: impExt }], ext }) as unknown as BidRequest;

describe('service namespaces: ext.svc and ext.prebid folded into the one the request speaks', () => {
  it('moves the other spelling under the request namespace, and merges both with svc winning', () => {
    const moved = request({ prebid: { debug: true } });
    unifyNamespaces(moved, 'svc');
    expect(moved.ext).to.deep.equal({ svc: { debug: true } });

    const merged = request({ prebid: { debug: true, targeting: { a: 1 } }, svc: { targeting: { a: 2 } } });
    unifyNamespaces(merged, 'prebid');
    expect(merged.ext).to.deep.equal({ prebid: { debug: true, targeting: { a: 2 } } });
  });

  it('leaves a spelling that is not an object where the request put it, for validation to name', () => {
    const odd = request({ prebid: 1 }, { prebid: 'x', appnexus: {} });
    expect(detectNamespace(odd)).to.equal('svc');
    unifyNamespaces(odd, 'svc');
    expect(odd.ext).to.deep.equal({ prebid: 1 });
    expect(odd.imp[0]!.ext).to.deep.equal({ prebid: 'x', appnexus: {} });

    const beside = request({ prebid: 1, svc: { debug: true } });
    unifyNamespaces(beside, 'svc');
    expect(beside.ext).to.deep.equal({ prebid: 1, svc: { debug: true } });
  });

  it('drops the other spelling when the request namespace holds something that is not an object', () => {
    const bad = request({ svc: 2, prebid: { debug: true } });
    unifyNamespaces(bad, 'svc');
    expect(bad.ext).to.deep.equal({ svc: 2 });
  });
});
