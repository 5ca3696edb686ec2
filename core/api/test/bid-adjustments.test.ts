import { expect } from 'chai';
import { bidAdjustmentsAreValid } from '../index.js';

const rules = (byBidder: unknown, mediaType = 'banner') => ({ mediatype: { [mediaType]: byBidder } });
const one = (adjustment: unknown) => rules({ appnexus: { '*': [adjustment] } });

describe('bidAdjustmentsAreValid (Prebid Server bidadjustment.Validate)', () => {
  it('takes absent, empty and well-formed adjustments', () => {
    expect(bidAdjustmentsAreValid(undefined)).to.equal(true);
    expect(bidAdjustmentsAreValid(null)).to.equal(true);
    expect(bidAdjustmentsAreValid({})).to.equal(true);
    expect(bidAdjustmentsAreValid({ mediatype: null })).to.equal(true);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'multiplier', value: 0 }))).to.equal(true);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'multiplier', value: 99.99 }))).to.equal(true);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'cpm', value: 0, currency: 'EUR' }))).to.equal(true);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'static', value: 1e6, currency: 'USD' }))).to.equal(true);
    expect(bidAdjustmentsAreValid(rules({ appnexus: { '*': [] } }))).to.equal(true);
    // A value left out is Go's zero value, as Prebid Server writes a 0 back (omitempty).
    expect(bidAdjustmentsAreValid(one({ adjtype: 'multiplier' }))).to.equal(true);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'static', value: null, currency: 'USD' }))).to.equal(true);
  });

  it('refuses a multiplier of 100 or more, a negative value, a cpm or static without currency, an unknown type', () => {
    expect(bidAdjustmentsAreValid(one({ adjtype: 'multiplier', value: 100 }))).to.equal(false);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'multiplier', value: -1 }))).to.equal(false);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'cpm', value: 1 }))).to.equal(false);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'static', value: 1, currency: '' }))).to.equal(false);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'cpm', value: -0.5, currency: 'USD' }))).to.equal(false);
    expect(bidAdjustmentsAreValid(one({ adjtype: 'Multiplier', value: 2 }))).to.equal(false);
    expect(bidAdjustmentsAreValid(one({ value: 2 }))).to.equal(false);
  });

  it('refuses a bidder or a deal without its map or list', () => {
    expect(bidAdjustmentsAreValid(rules({ appnexus: null }))).to.equal(false);
    expect(bidAdjustmentsAreValid(rules({ appnexus: { '*': null } }))).to.equal(false);
  });

  it('reads only the media types Prebid Server has: another member, or one given as null, changes nothing', () => {
    const invalid = { appnexus: { '*': [{ adjtype: 'multiplier', value: 500 }] } };
    expect(bidAdjustmentsAreValid(rules(invalid, 'video'))).to.equal(true);
    expect(bidAdjustmentsAreValid(rules(null, 'banner'))).to.equal(true);
    for (const mediaType of ['banner', 'video-instream', 'video-outstream', 'audio', 'native', '*']) {
      expect(bidAdjustmentsAreValid(rules(invalid, mediaType)), mediaType).to.equal(false);
    }
  });
});
