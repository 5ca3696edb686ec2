import { expect } from 'chai';
import { impsOfSentRequest, withFields } from '../helpers.js';
import type { RequestData } from '../adapter.js';

describe('SDK helpers: withFields', () => {
  it('returns a shallow copy with the fields set over it, leaving the source alone', () => {
    const banner = { w: 300 };
    const source = { id: 'imp-1', banner, bidfloor: 1 };
    const copy = withFields(source, { bidfloor: 2, bidfloorcur: 'EUR' } as Partial<typeof source>);
    expect(copy).to.deep.equal({ id: 'imp-1', banner, bidfloor: 2, bidfloorcur: 'EUR' });
    expect(copy).to.not.equal(source);
    expect(copy.banner).to.equal(banner);
    expect(source).to.deep.equal({ id: 'imp-1', banner, bidfloor: 1 });
  });
});

describe('SDK helpers: impsOfSentRequest', () => {
  it('gives the imps of the body the adapter sent, and nothing when the body holds no imp list', () => {
    const sent = { method: 'POST', uri: 'http://x', body: { id: 'r', imp: [{ id: 'kept' }, 'not an imp'] } } as unknown as RequestData;
    expect(impsOfSentRequest(sent)).to.deep.equal([{ id: 'kept' }]);
    expect(impsOfSentRequest({ method: 'GET', uri: 'http://x' } as RequestData)).to.equal(undefined);
  });
});
