import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { compileEndpoint, type BidRequest, type Bidder, type BidderConfig } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';
import { plainNumber } from '../taboola.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = readTestHost('taboola');
const HOSTILE = ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb', '../../x', 'a?b=c'];
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

function bidder(more: Partial<BidderConfig> = {}): Bidder {
  const endpoint = more.endpoint ?? manifest.info.endpoint!;
  return manifest.create!(testBidderConfig('taboola', endpoint, more), { logger: silentLogger });
}

function bannerRequest(publisherId: string): BidRequest {
  return { id: 'r', imp: [{ id: 'i', banner: { w: 300, h: 250 }, ext: { bidder: { publisherId, tagId: 't' } } }], site: { page: 'https://p.example/' } };
}

describe('taboola adapter', () => {
  describe('fixtures (the host of Prebid Server\'s fixtures: GVL id 12)', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['publisherId and tagId', { publisherId: 'p', tagId: 't' }],
      ['publisherId and the old tagid', { publisherId: 'p', tagid: 't' }],
      ['every optional param', {
        publisherId: 'p', tagId: 't', publisherDomain: 'p.example', bidfloor: 0.5, bcat: ['IAB1'], badv: ['a.example'], pageType: 'article', position: 1,
      }],
      ['empty strings', { publisherId: '', tagId: '' }],
      ['an unknown key', { publisherId: 'p', tagId: 't', note: 1 }],
    ],
    invalid: [
      ['both tag id spellings', { publisherId: 'p', tagId: 't', tagid: 't' }],
      ['no tag id', { publisherId: 'p' }],
      ['no publisher', { tagId: 't' }],
      ['a numeric publisherId', { publisherId: 1, tagId: 't' }],
      ['a string floor', { publisherId: 'p', tagId: 't', bidfloor: '0.5' }],
      ['a fractional position', { publisherId: 'p', tagId: 't', position: 1.5 }],
      ['bcat with a number', { publisherId: 'p', tagId: 't', bcat: [1] }],
      ['badv as a string', { publisherId: 'p', tagId: 't', badv: 'a.example' }],
      ['a numeric pageType', { publisherId: 'p', tagId: 't', pageType: 3 }],
      ['a non-object', 'p'],
    ],
  });

  describe('endpoint', () => {
    it('fills the media type, the host GVL id and the publisher into the shipped endpoint', () => {
      const { requests } = bidder({ host: { externalUrl: 'http://h.example', gvlId: 7 } }).makeRequests(bannerRequest('pub-9'), testRequestInfo('taboola'));
      expect(requests.map((r) => r.uri)).to.deep.equal(['https://display.bidder.taboola.com/OpenRTB/PS/auction?exchange=7&publisher=pub-9']);
    });

    it('leaves the exchange empty when the host has no GVL id', () => {
      const { requests } = bidder().makeRequests(bannerRequest('pub-9'), testRequestInfo('taboola'));
      expect(requests.map((r) => r.uri)).to.deep.equal(['https://display.bidder.taboola.com/OpenRTB/PS/auction?exchange=&publisher=pub-9']);
    });

    it('keeps hostile publisher ids on the configured host', () => {
      const endpoint = compileEndpoint(manifest.info.endpoint!);
      for (const value of HOSTILE) {
        const { requests, errors } = bidder().makeRequests(bannerRequest(value), testRequestInfo('taboola'));
        expect(errors ?? [], value).to.deep.equal([]);
        for (const request of requests) expect(endpoint.allows(request.uri), `${value}: ${request.uri}`).to.equal(true);
      }
    });

    it('refuses hostile publisher ids where a host puts them into the host name', () => {
      const template = 'https://{{.PublisherID}}.taboola.example/auction';
      for (const value of HOSTILE) {
        const { requests, errors } = bidder({ endpoint: template }).makeRequests(bannerRequest(value), testRequestInfo('taboola'));
        expect(requests, value).to.deep.equal([]);
        expect(errors?.map((e) => e.code), value).to.deep.equal([999]);
        expect(errors?.[0]?.message).to.match(/^unable to build request /);
      }
    });
  });

  describe('robustness', () => {
    it('answers odd bodies without throwing', () => {
      const sent = { method: 'POST' as const, uri: 'https://display.bidder.taboola.com/x', impIds: ['i'] };
      for (const body of ['null', '[]', '{"seatbid": {}}', '{"seatbid": [{"bid": [null, "x", {"impid": 5}]}]}']) {
        const result = bidder().makeBids(bannerRequest('p'), sent, { status: 200, body, headers: {} });
        expect(result.bids, body).to.deep.equal([]);
      }
    });

    it('reports params it cannot read and sends nothing', () => {
      const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: {}, ext: { bidder: { publisherId: 5, tagId: 't' } } }, { id: 'j', banner: {}, ext: {} }] };
      const { requests, errors } = bidder().makeRequests(request, testRequestInfo('taboola'));
      expect(requests).to.deep.equal([]);
      expect(errors?.map((e) => e.code)).to.deep.equal([14, 14]);
    });

    it('reports a request ext it cannot add the page type to as a generic error', () => {
      const request = { id: 'r', ext: 'x', imp: [{ id: 'i', banner: {}, ext: { bidder: { publisherId: 'p', pageType: 'home' } } }] } as unknown as BidRequest;
      const { requests, errors } = bidder().makeRequests(request, testRequestInfo('taboola'));
      expect(requests).to.deep.equal([]);
      expect(errors?.map((e) => e.code)).to.deep.equal([999]);
      expect(errors?.[0]?.message).to.match(/^could not unmarshal request ext: /);
    });
  });

  describe('plainNumber', () => {
    it('writes prices in plain decimal notation, shortest form', () => {
      expect(plainNumber(2.1)).to.equal('2.1');
      expect(plainNumber(3)).to.equal('3');
      expect(plainNumber(0.0000005)).to.equal('0.0000005');
      expect(plainNumber(1.25e-8)).to.equal('0.0000000125');
      expect(plainNumber(1e21)).to.equal('1000000000000000000000');
      expect(plainNumber(-1.5e-7)).to.equal('-0.00000015');
    });
  });
});
