import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { compileEndpoint, type BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import openweb from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const ENDPOINT = openweb.info.endpoint!;

function callsFor(org: string, endpoint = ENDPOINT) {
  const bidder = openweb.create!(testBidderConfig('openweb', endpoint), { logger: console });
  const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { placementId: 'p', org } } }] };
  return bidder.makeRequests(request, testRequestInfo('openweb'));
}

describe('openweb adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(openweb, fixturesDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(openweb, {
    valid: [
      ['a placement with an org', { placementId: 'pl', org: 'sp_abc' }],
      ['a placement with an aid', { placementId: 'pl', aid: 1234 }],
      ['a negative aid', { placementId: 'pl', aid: -1 }],
    ],
    invalid: [
      ['no placement', { org: 'sp_abc' }],
      ['an empty placement', { placementId: '', org: 'sp_abc' }],
      ['neither org nor aid', { placementId: 'pl' }],
      ['both org and aid', { placementId: 'pl', org: 'sp_abc', aid: 1 }],
      ['an empty org', { placementId: 'pl', org: '' }],
      ['a fractional aid', { placementId: 'pl', aid: 1.5 }],
      ['an aid as text', { placementId: 'pl', aid: '1234' }],
      ['a number', 5],
    ],
  });

  describe('endpoint', () => {
    it('keeps the call on the configured host whatever the org says', () => {
      const template = compileEndpoint(ENDPOINT);
      for (const hostile of ['evil.example', '127.0.0.1:9', 'a@b', 'a#b', 'a/b', '%2F', 'a\nb', 'x&publisher_id=y']) {
        const { requests, errors } = callsFor(hostile);
        expect(errors ?? []).to.deep.equal([]);
        expect(requests).to.have.length(1);
        expect(template.allows(requests[0]!.uri), requests[0]!.uri).to.equal(true);
        expect(new URL(requests[0]!.uri).searchParams.get('publisher_id')).to.equal(hostile.trim());
      }
    });

    it('fills the publisher id into a host-configured endpoint', () => {
      const { requests } = callsFor('42', 'https://eu.openwebmp.com/pbs?publisher_id={{PublisherId}}&region=eu');
      expect(requests[0]!.uri).to.equal('https://eu.openwebmp.com/pbs?publisher_id=42&region=eu');
    });

    it('reports an endpoint that cannot take the value instead of calling elsewhere', () => {
      const { requests, errors } = callsFor('evil.example', 'https://{{PublisherId}}.openwebmp.com/pbs');
      expect(requests).to.deep.equal([]);
      expect(errors![0]!.code).to.equal(2);
    });
  });

  describe('error codes', () => {
    const bidder = () => openweb.create!(testBidderConfig('openweb', ENDPOINT), { logger: console });
    const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { placementId: 5, org: 'o' } } }] };
    const sent = { method: 'POST' as const, uri: 'https://pbs.openwebmp.com/pbs?publisher_id=o', impIds: ['i'] };

    it('reports unreadable params as generic errors (Go wraps them) and unreadable answers as the decoder\'s error', () => {
      expect(bidder().makeRequests(request, testRequestInfo('openweb')).errors?.map((e) => e.code)).to.deep.equal([999]);
      expect(bidder().makeBids(request, sent, { status: 200, body: '{"cur":1}', headers: {} }).errors?.map((e) => e.code)).to.deep.equal([14]);
    });

    it('reports an unknown mtype as a bad server response and 400 as bad input', () => {
      const body = JSON.stringify({ seatbid: [{ bid: [{ id: 'b', impid: 'i', price: 1, mtype: 4 }] }] });
      expect(bidder().makeBids(request, sent, { status: 200, body, headers: {} }).errors?.map((e) => e.code)).to.deep.equal([3]);
      expect(bidder().makeBids(request, sent, { status: 400, body: '', headers: {} }).errors?.map((e) => e.code)).to.deep.equal([2]);
    });
  });
});
