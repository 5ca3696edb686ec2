import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, type BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readTestHost, runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import sharethrough from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
/** Prebid Server's fixtures use the endpoint http://whatever.url; ours follow them (test/host-config.json). */
const host = readTestHost('sharethrough');
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const bidder = (extra: Record<string, unknown> = {}, version?: string) =>
  sharethrough.create!(testBidderConfig('sharethrough', sharethrough.info.endpoint!, { extra, host: { externalUrl: 'http://hosturl.com', version } }), { logger: silentLogger });

const request: BidRequest = {
  id: 'r',
  imp: [{ id: 'i', banner: { w: 300, h: 250 }, bidfloor: 2, bidfloorcur: 'EUR', ext: { bidder: { pkey: 'p' } } }],
};

describe('sharethrough adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(sharethrough, fixturesDir, host)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(sharethrough, {
    valid: [
      ['a placement key', { pkey: 'abc123' }],
      ['blocked advertisers and categories', { pkey: 'abc123', badv: ['a.example'], bcat: ['IAB1'] }],
      ['empty block lists', { pkey: 'abc123', badv: [], bcat: [] }],
    ],
    invalid: [
      ['no placement key', { badv: ['a.example'] }],
      ['a numeric placement key', { pkey: 123 }],
      ['badv as text', { pkey: 'p', badv: 'a.example' }],
      ['bcat with a number', { pkey: 'p', bcat: [1] }],
      ['a non-object', 'abc123'],
    ],
  });

  it('converts the floor to USD and states the host version in source.ext', () => {
    const info = testRequestInfo('sharethrough', 'auction', { convertCurrency: (amount) => amount * 1.5 });
    const { requests } = bidder({ hostVersion: '0.1.0' }).makeRequests(request, info);
    const body = requests[0]!.body as BidRequest;
    expect(body.imp[0]).to.include({ bidfloor: 3, bidfloorcur: 'USD', tagid: 'p' });
    expect(body.source).to.deep.equal({ ext: { str: '10.0', version: '0.1.0' } });
  });

  it("states the host's Gavel version in source.ext unless extra.hostVersion names another", () => {
    const info = testRequestInfo('sharethrough', 'auction', { convertCurrency: (amount) => amount });
    const version = (made: ReturnType<typeof bidder>) => ((made.makeRequests(request, info).requests[0]!.body as BidRequest).source?.ext as { version: string }).version;
    expect(version(bidder({}, '0.1.0'))).to.equal('0.1.0');
    expect(version(bidder({ hostVersion: '' }, '0.1.0'))).to.equal('');
  });

  it('reports a floor it cannot convert, and a non-200 status other than 400, as generic errors', () => {
    const { errors } = bidder().makeRequests(request, testRequestInfo('sharethrough'));
    expect(errors).to.deep.equal([{ code: BidderErrorCode.Unknown, message: "Currency conversion rate not found: 'EUR' => 'USD'" }]);
    const sent = { method: 'POST' as const, uri: 'http://whatever.url', impIds: ['i'] };
    expect(bidder().makeBids(request, sent, { status: 503, body: '', headers: {} }).errors![0]!.code).to.equal(BidderErrorCode.Unknown);
  });

  it('skips an imp whose ext or params cannot be decoded with the decoder error, code 14', () => {
    const bad = {
      id: 'r',
      imp: [
        { id: 'a', banner: { w: 1, h: 1 }, ext: 'x' },
        { id: 'b', banner: { w: 1, h: 1 }, ext: { bidder: 'x' } },
        { id: 'c', banner: { w: 1, h: 1 }, ext: { bidder: { pkey: 7 } } },
      ],
    } as unknown as BidRequest;
    const { requests, errors } = bidder().makeRequests(bad, testRequestInfo('sharethrough'));
    expect(requests).to.have.length(0);
    expect(errors!.map((error) => error.code)).to.deep.equal([
      BidderErrorCode.FailedToUnmarshal,
      BidderErrorCode.FailedToUnmarshal,
      BidderErrorCode.FailedToUnmarshal,
    ]);
  });
});
