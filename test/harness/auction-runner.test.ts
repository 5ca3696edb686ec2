import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listFixtureFiles } from './fixture-outcome.js';
import { readFixture, runAuctionFixture, type AuctionFixture } from './auction-runner.js';

const ownFixtures = fileURLToPath(new URL('../fixtures/auction/', import.meta.url));
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as AuctionFixture;

describe('endpoint fixtures of our own, through the auction runner', () => {
  for (const file of listFixtureFiles(ownFixtures)) {
    it(file.slice(ownFixtures.length), async () => {
      const outcome = await runAuctionFixture(load(file), file);
      expect(outcome.diffs).to.deep.equal([]);
    });
  }
});

describe('the auction runner catches a wrong expectation', () => {
  const base = () => load(`${ownFixtures}two-bidders-winner.json`);

  it('a fixture edited to expect a wrong price fails', async () => {
    const fixture = base();
    fixture.expectedBidResponse!.seatbid![0]!.bid[0]!.price = 1.25;
    const outcome = await runAuctionFixture(fixture, 'wrong-price');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs.join('\n')).to.contain('price: expected 1.25, got 1.2');
  });

  it('a fixture edited to expect a wrong validated request, or a wrong bidder request, fails', async () => {
    const fixture = load(`${ownFixtures}implicit-fields.json`);
    (fixture.expectedValidatedBidRequest as any).at = 2;
    (fixture.expectedMockBidderRequests as any).appnexus.site.domain = 'news.example.co.uk';
    const outcome = await runAuctionFixture(fixture, 'wrong-requests');
    expect(outcome.diffs).to.deep.equal([
      'validated request.at: expected 2, got 1',
      'bidder appnexus request.site.domain: expected "news.example.co.uk", got "sports.news.example.co.uk"',
    ]);
  });

  it('a fixture edited to expect a wrong status fails', async () => {
    const fixture = base();
    fixture.expectedReturnCode = 400;
    const outcome = await runAuctionFixture(fixture, 'wrong-status');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs[0]).to.match(/^status: expected 400, got 200/);
  });

  it('a fixture edited to expect a wrong targeting bucket fails', async () => {
    const fixture = base();
    (fixture.expectedBidResponse!.seatbid![1]!.bid[0]!.ext as any).prebid.targeting.hb_pb = '1.75';
    const outcome = await runAuctionFixture(fixture, 'wrong-bucket');
    expect(outcome.ok).to.equal(false);
  });
});

describe('the auction runner reads a fixture whose body is malformed on purpose', () => {
  it('takes the text of mockBidRequest as the raw body and the rest as the expectations', () => {
    const fixture = readFixture('{"description": "x", "mockBidRequest": {"imp": [{},], "s": "}{"},\n "expectedReturnCode": 400}');
    expect(fixture.rawBody).to.equal('{"imp": [{},], "s": "}{"}');
    expect(fixture.mockBidRequest).to.equal(null);
    expect(fixture.expectedReturnCode).to.equal(400);
  });
});
