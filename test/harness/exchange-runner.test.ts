import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { listFixtureFiles } from './fixture-outcome.js';
import { fixtureSettings, runExchangeFixture, type ExchangeFixture } from './exchange-runner.js';

const ownFixtures = fileURLToPath(new URL('../fixtures/exchange/', import.meta.url));
const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ExchangeFixture;

describe('exchange fixtures of our own, through the exchange runner', () => {
  for (const file of listFixtureFiles(ownFixtures)) {
    it(file.slice(ownFixtures.length), async () => {
      const outcome = await runExchangeFixture(load(file), file);
      expect(outcome.diffs).to.deep.equal([]);
    });
  }
});

describe('the exchange runner catches a wrong expectation', () => {
  const base = () => load(`${ownFixtures}each-bidder-its-own-params.json`);

  it('a bidder request edited to expect a field the bidder does not receive fails, naming the path', async () => {
    const fixture = base();
    fixture.outgoingRequests.rubicon!.expectRequest!.ortbRequest.user = { buyeruid: 'apn-uid' };
    const outcome = await runExchangeFixture(fixture, 'extra-field');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.include('request[rubicon].user: missing (expected {"buyeruid":"apn-uid"})');
  });

  it('a bidder request that leaves out a field the bidder receives fails: absent means absent', async () => {
    const fixture = base();
    delete fixture.outgoingRequests.appnexus!.expectRequest!.ortbRequest.user;
    const outcome = await runExchangeFixture(fixture, 'missing-field');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.include('request[appnexus].user: unexpected {"buyeruid":"apn-uid"}');
  });

  it('a response edited to expect a wrong price, or a wrong error, fails', async () => {
    const fixture = base();
    fixture.response!.bids!.seatbid[0].bid[0].price = 2;
    fixture.response!.bids!.ext.errors.rubicon = ['something else'];
    const outcome = await runExchangeFixture(fixture, 'wrong-answer');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.include('response.seatbid[appnexus].bid[apn-1].price: expected 2, got 1.5');
    expect(outcome.diffs.join('\n')).to.contain('response.ext.errors.rubicon[0].message: expected "something else"');
  });

  it('compares as Go holds both sides, yet a stated field the bidder does not get still fails', async () => {
    const fixture = load(`${ownFixtures}go-struct-decoding.json`);
    const imp = fixture.outgoingRequests.appnexus!.expectRequest!.ortbRequest.imp[0];
    imp.tagid = 'not-sent';
    const outcome = await runExchangeFixture(fixture, 'go-structs-edited');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.include('request[appnexus].imp[0].tagid: missing (expected "not-sent")');
  });

  it('bid adjustment factors edited to expect another value, or stated for a request without factors, fail', async () => {
    const fixture = load(`${ownFixtures}bid-adjustments-not-applied-by-harness.json`);
    fixture.outgoingRequests.appnexus!.expectRequest!.bidAdjustments = { appnexus: 0.6 };
    const outcome = await runExchangeFixture(fixture, 'wrong-factors');
    expect(outcome.diffs).to.include('bidAdjustments[appnexus].appnexus: expected 0.6, got 0.5');
    const without = base();
    without.outgoingRequests.appnexus!.expectRequest!.bidAdjustments = { appnexus: 1 };
    expect((await runExchangeFixture(without, 'no-factors')).ok).to.equal(false);
  });

  it('a bidder the fixture expects but the auction never called fails', async () => {
    const fixture = base();
    fixture.outgoingRequests.pubmatic = { expectRequest: { ortbRequest: { id: 'req-own-params' } } };
    const outcome = await runExchangeFixture(fixture, 'uncalled');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs.join('\n')).to.contain('bidder pubmatic: expected a request, none was sent');
  });

  it("debug output edited to expect a call the mock does not give, or another bidder's, fails; so does a test request's missing debug", async () => {
    const fixture = load(`${ownFixtures}debug-mock-httpcalls-resolved-server.json`);
    fixture.response!.ext!.debug.httpcalls.house[1].status = 504;
    fixture.response!.ext!.debug.httpcalls.appnexus = [{ uri: 'https://appnexus.example' }];
    const outcome = await runExchangeFixture(fixture, 'debug-edited');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.include('response.ext.debug.httpcalls.house[1].status: expected 504, got 0');
    expect(outcome.diffs.join('\n')).to.contain('response.ext.debug.httpcalls.appnexus: missing');
    const unasked = load(`${ownFixtures}debug-mock-httpcalls-resolved-server.json`);
    delete unasked.server;
    expect((await runExchangeFixture(unasked, 'debug-without-server')).diffs.join('\n')).to.contain('response.ext.debug.resolvedrequest.ext.prebid.server: missing');
  });

  it('a switch the runner does not know is reported with the fixture', () => {
    const settings = fixtureSettings({ ...base(), some_new_switch: true }, { adapters: new Set(['appnexus', 'rubicon']), modules: new Set() });
    expect(settings.notes).to.include('switch "some_new_switch" is not mapped by the runner');
  });
});
