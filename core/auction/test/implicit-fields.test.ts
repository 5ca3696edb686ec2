import { expect } from 'chai';
import type { BidRequest } from '../../api/index.js';
import { implicitFields } from '../implicit-fields.js';

const fill = (request: Record<string, unknown>): BidRequest => {
  const copy = structuredClone(request) as unknown as BidRequest;
  implicitFields({ trustProxyHeaders: false, generateTids: false }).fill(copy, { headers: {} });
  return copy;
};
const base = { id: 'r', app: { id: 'a' }, imp: [{ id: 'i', banner: {} }] };
const MEDIUM = { precision: 2, ranges: [{ min: 0, max: 20, increment: 0.1 }] };

describe('endpoint fill-ins: the targeting defaults (Prebid Server SetDefaults)', () => {
  it('writes the default granularity and both include flags into a request that asks for targeting', () => {
    expect(fill({ ...base, ext: { prebid: { targeting: {} } } }).ext).to.deep.equal({
      prebid: { targeting: { pricegranularity: MEDIUM, includewinners: true, includebidderkeys: true } },
    });
  });

  it('writes a legacy name out as its ranges, under either namespace, and keeps flags already set', () => {
    const { ext } = fill({ ...base, ext: { svc: { targeting: { pricegranularity: 'auto', includewinners: false } } } });
    expect(ext).to.deep.equal({
      svc: {
        targeting: {
          pricegranularity: { precision: 2, ranges: [{ min: 0, max: 5, increment: 0.05 }, { min: 5, max: 10, increment: 0.1 }, { min: 10, max: 20, increment: 0.5 }] },
          includewinners: false,
          includebidderkeys: true,
        },
      },
    });
  });

  it("gives a custom granularity its precision and each range its min, the previous range's max (a min given is overwritten)", () => {
    const { ext } = fill({ ...base, ext: { prebid: { targeting: { pricegranularity: { ranges: [{ min: 1, max: 5, increment: 0.5 }, { min: 6, max: 10, increment: 1 }] }, mediatypepricegranularity: { video: 'high', banner: null } } } } });
    expect((ext as any).prebid.targeting.pricegranularity).to.deep.equal({ precision: 2, ranges: [{ min: 0, max: 5, increment: 0.5 }, { min: 5, max: 10, increment: 1 }] });
    expect((ext as any).prebid.targeting.mediatypepricegranularity).to.deep.equal({ video: { precision: 2, ranges: [{ min: 0, max: 20, increment: 0.01 }] }, banner: null });
  });

  it('makes a granularity object without ranges (none, or an empty list) the default one, its precision included', () => {
    const { ext } = fill({ ...base, ext: { prebid: { targeting: { pricegranularity: { precision: 3 }, mediatypepricegranularity: { native: { ranges: [] } } } } } });
    expect((ext as any).prebid.targeting.pricegranularity).to.deep.equal(MEDIUM);
    expect((ext as any).prebid.targeting.mediatypepricegranularity).to.deep.equal({ native: MEDIUM });
  });

  it('leaves what validation will refuse as it is, and a request without targeting alone', () => {
    expect((fill({ ...base, ext: { prebid: { targeting: { pricegranularity: 'coarse' } } } }).ext as any).prebid.targeting.pricegranularity).to.equal('coarse');
    expect((fill({ ...base, ext: { prebid: { targeting: { pricegranularity: { ranges: 'many' } } } } }).ext as any).prebid.targeting.pricegranularity).to.deep.equal({ ranges: 'many' });
    expect(fill({ ...base, ext: { prebid: { debug: true } } }).ext).to.deep.equal({ prebid: { debug: true } });
  });
});
