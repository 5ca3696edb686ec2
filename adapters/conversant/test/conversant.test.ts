import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { BidRequest, Imp } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import conversant from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** Prebid Server's fixtures expect an empty endpoint; ours follow them (test/host-config.json). */
const host = readTestHost('conversant');
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function firstImp(extra: Record<string, unknown>, request: BidRequest, rates?: (amount: number, from: string, to: string) => number): Imp {
  const bidder = conversant.create!(testBidderConfig('conversant', conversant.info.endpoint!, { extra }), { logger: silentLogger });
  const info = testRequestInfo('conversant', 'auction', rates ? { convertCurrency: rates } : {});
  const { requests, errors } = bidder.makeRequests(request, info);
  expect(errors ?? []).to.deep.equal([]);
  return (requests[0]!.body as BidRequest).imp[0]!;
}

describe('conversant adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(conversant, fixturesDir, host)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(conversant, {
    valid: [
      ['a site id', { site_id: '108060' }],
      ['every param', { site_id: '1', secure: 1, bidfloor: 0.1, tag_id: 't', position: 1, mimes: ['video/mp4'], maxduration: 30, api: [1, 2], protocols: [2, 5] }],
    ],
    invalid: [
      ['no site id', { tag_id: 't' }],
      ['a numeric site id', { site_id: 108060 }],
      ['a fractional secure flag', { site_id: '1', secure: 0.5 }],
      ['a floor as text', { site_id: '1', bidfloor: '0.1' }],
      ['mimes as text', { site_id: '1', mimes: 'video/mp4' }],
      ['an api list with text', { site_id: '1', api: ['vpaid'] }],
      ['a fractional max duration', { site_id: '1', maxduration: 1.5 }],
      ['a non-object', '108060'],
    ],
  });

  const request: BidRequest = {
    id: 'r',
    site: { page: 'https://x.example' },
    imp: [{ id: 'i', banner: { w: 1, h: 1 }, bidfloor: 2, bidfloorcur: 'EUR', ext: { bidder: { site_id: 's' } } }],
  };

  it('states the host version as the display manager version when the host gives one', () => {
    expect(firstImp({ hostVersion: '0.1.0' }, request, () => 3)).to.include({ displaymanager: 'prebid-s2s', displaymanagerver: '0.1.0' });
    expect(firstImp({}, request, () => 3)).to.not.have.property('displaymanagerver');
  });

  it("states the host's Gavel version as the display manager version, unless extra.hostVersion names another", () => {
    const imp = (extra: Record<string, unknown>, version: string): Imp => {
      const made = conversant.create!(testBidderConfig('conversant', '', { extra, host: { externalUrl: 'http://hosturl.com', version } }), { logger: silentLogger });
      return (made.makeRequests(request, testRequestInfo('conversant', 'auction', { convertCurrency: () => 3 })).requests[0]!.body as BidRequest).imp[0]!;
    };
    expect(imp({}, '0.1.0')).to.include({ displaymanagerver: '0.1.0' });
    expect(imp({ hostVersion: '2.0.0' }, '0.1.0')).to.include({ displaymanagerver: '2.0.0' });
  });

  it('converts a floor in another currency to USD', () => {
    const imp = firstImp({}, request, (amount, from, to) => (from === 'EUR' && to === 'USD' ? amount * 1.1 : Number.NaN));
    expect(imp.bidfloorcur).to.equal('USD');
    expect(imp.bidfloor).to.be.closeTo(2.2, 1e-9);
  });
});
