import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import appnexus from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));

describe('appnexus adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(appnexus, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(appnexus, {
    valid: [
      ['placement_id as a number', { placement_id: 123 }],
      ['placement_id as a string', { placement_id: '123' }],
      ['the old placementId', { placementId: 123 }],
      ['inv_code with member', { inv_code: 'abc', member: '958' }],
      ['invCode with a numeric member', { invCode: 'abc', member: 958 }],
      ['keywords as a string', { placement_id: 1, keywords: 'a=b,c' }],
      ['keywords as key/value entries', { placement_id: 1, keywords: [{ key: 'a', value: ['b'] }, { key: 'c' }] }],
      ['keywords as an object', { placement_id: 1, keywords: { a: ['b', 'c'], d: [] } }],
      ['every optional param', {
        placement_id: 1, traffic_source_code: 'ts', reserve: 0.5, position: 'below', use_pmt_rule: true, use_payment_rule: false,
        generate_ad_pod_id: true, private_sizes: [{ w: 300, h: 250 }], ext_inv_code: 'x', external_imp_id: 'y',
      }],
      ['placement plus inventory code spelled the other way (one identity each side)', { placement_id: 1, inv_code: 'a', invCode: 'b', member: 2 }],
    ],
    invalid: [
      ['no identity at all', { keywords: 'a=b' }],
      ['inv_code without member', { inv_code: 'abc' }],
      ['both placement spellings', { placement_id: 1, placementId: 1 }],
      ['placement and inventory code together', { placement_id: 1, inv_code: 'abc', member: 958 }],
      ['placementId with invCode and member', { placementId: 1, invCode: 'abc', member: 958 }],
      ['a fractional placement id', { placement_id: 1.5 }],
      ['a boolean placement id', { placement_id: true }],
      ['an empty keyword string', { placement_id: 1, keywords: '' }],
      ['an empty keyword list', { placement_id: 1, keywords: [] }],
      ['a keyword entry without key', { placement_id: 1, keywords: [{ value: ['b'] }] }],
      ['a keyword entry with an empty value list', { placement_id: 1, keywords: [{ key: 'a', value: [] }] }],
      ['a keyword object with a non-list value', { placement_id: 1, keywords: { a: 'b' } }],
      ['an unknown position', { placement_id: 1, position: 'middle' }],
      ['a string reserve', { placement_id: 1, reserve: '0.5' }],
      ['a private size without h', { placement_id: 1, private_sizes: [{ w: 300 }] }],
      ['a non-object', 'placement 1'],
    ],
  });

  describe('behaviour outside the auction endpoint', () => {
    const bidder = appnexus.create!({ name: 'appnexus', endpoint: appnexus.info.endpoint!, extra: { platform_id: '7' }, ortbVersion: '2.5' }, {
      logger: { debug() {}, info() {}, warn() {}, error() {} },
    });
    const podImp = (id: string, generate: boolean) => ({ id, video: { mimes: ['video/mp4'] }, ext: { bidder: { placement_id: 1, generate_ad_pod_id: generate } } });

    it('marks AMP requests and uses the host platform id', () => {
      const { requests } = bidder.makeRequests({ id: 'r', imp: [podImp('a', false)] }, { bidder: 'appnexus', endpoint: 'amp' });
      expect((requests[0]!.body as { ext: unknown }).ext).to.deep.equal({ appnexus: { hb_source: 7, is_amp: 1 } });
    });

    it('sends each video pod in its own request, with a pod id only where asked', () => {
      const request = { id: 'r', imp: [podImp('1_0', true), podImp('2_0', false), podImp('1_1', false)] };
      const { requests, errors } = bidder.makeRequests(request, { bidder: 'appnexus', endpoint: 'video' });
      expect(errors).to.deep.equal([]);
      expect(requests.map((r) => r.impIds)).to.deep.equal([['1_0', '1_1'], ['2_0']]);
      const exts = requests.map((r) => (r.body as { ext: { appnexus: Record<string, unknown> } }).ext.appnexus);
      expect(exts[0]!.hb_source).to.equal(8);
      expect(exts[0]!.adpod_id).to.be.a('string').and.match(/^\d+$/);
      expect(exts[1]).to.deep.equal({ hb_source: 8 });
    });
  });
});
