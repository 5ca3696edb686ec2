import { expect } from 'chai';
import { withFields } from '../helpers.js';

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
