import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listFixtureFiles } from '../harness/fixture-outcome.js';
import { run, runAmpFixture, type AmpFixture } from '../harness/amp-runner.js';

/** The public AMP fixtures, read where CI keeps them (never copied into the repository). */
const SHARED_AMP_FIXTURES = resolve(process.cwd(), '../shared/conformance/amp/valid');

/** AMP fixtures of our own, in the shared format: each holds one Prebid Server behaviour. */
const OWN_AMP_FIXTURES = fileURLToPath(new URL('../fixtures/amp/', import.meta.url));

describe('AMP fixtures of our own, through the AMP runner', () => {
  for (const file of listFixtureFiles(OWN_AMP_FIXTURES)) {
    it(file.slice(OWN_AMP_FIXTURES.length), async () => {
      const outcome = await runAmpFixture(JSON.parse(readFileSync(file, 'utf8')) as AmpFixture, file);
      expect(outcome.diffs).to.deep.equal([]);
    });
  }
});

/** Our own fixture in the shared format: appnexus bids 1.87, which the default granularity buckets to 1.80. */
function ownFixture(): AmpFixture {
  return {
    description: 'one appnexus bid through the AMP endpoint, with a slot and a canonical URL',
    query: 'tag_id=gavel-amp-1&curl=https%3A%2F%2Fnews.example%2Fa&slot=%2F42%2Ftop&w=300&h=250',
    config: { mockBidders: [{ bidderName: 'appnexus', currency: 'USD', price: 1.87 }] },
    mockBidRequest: {
      id: 'gavel-amp-request',
      site: { page: 'https://news.example/' },
      imp: [{ id: 'top', banner: { format: [{ w: 320, h: 50 }] }, ext: { prebid: { bidder: { appnexus: { placementId: 1 } } } } }],
    },
    expectedAmpResponse: {
      targeting: {
        hb_bidder: 'appnexus', hb_bidder_appnexus: 'appnexus',
        hb_pb: '1.80', hb_pb_appnexus: '1.80',
        hb_env: 'amp', hb_env_appnexus: 'amp',
        hb_cache_id: '0', hb_cache_id_appnexus: '0',
        hb_cache_host: 'www.pbcserver.com', hb_cache_host_appnex: 'www.pbcserver.com',
        hb_cache_path: '/pbcache/endpoint', hb_cache_path_appnex: '/pbcache/endpoint',
      },
    },
    // The validated request as Prebid Server's AMP endpoint leaves it (the query's page, slot and size; the site's
    // domains from the page; caching, targeting and the amp channel with their defaults); `tmax` is the runner's
    // (the specification's AMP tmax).
    expectedValidatedBidRequest: {
      id: 'gavel-amp-request',
      at: 1,
      device: { ip: '192.0.2.1' },
      site: { page: 'https://news.example/a', domain: 'news.example', publisher: { domain: 'news.example' }, ext: { amp: 1 } },
      imp: [{ id: 'top', tagid: '/42/top', secure: 1, banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { appnexus: { placementId: 1 } } } } }],
      ext: {
        prebid: {
          cache: { bids: {} },
          channel: { name: 'amp', version: '' },
          targeting: { pricegranularity: { precision: 2, ranges: [{ min: 0, max: 20, increment: 0.1 }] }, includewinners: true, includebidderkeys: true },
        },
      },
    },
    expectedMockBidderRequests: {
      appnexus: {
        id: 'gavel-amp-request',
        at: 1,
        device: { ip: '192.0.2.1' },
        site: { page: 'https://news.example/a', domain: 'news.example', publisher: { domain: 'news.example' }, ext: { amp: 1 } },
        imp: [{ id: 'top', tagid: '/42/top', secure: 1, banner: { format: [{ w: 300, h: 250 }] }, ext: { bidder: { placementId: 1 } } }],
        ext: { prebid: { channel: { name: 'amp', version: '' } } },
      },
    },
    expectedReturnCode: 200,
  };
}

describe('AMP fixture runner', () => {
  it('passes every shared AMP fixture, comparing targeting exactly', async function () {
    this.timeout(30_000);
    // The shared fixtures sit beside the repository in CI (which also runs them through the CLI); a lone clone
    // reports this pending rather than failing npm test.
    if (!existsSync(SHARED_AMP_FIXTURES)) this.skip();
    const outcomes = await run([SHARED_AMP_FIXTURES]);
    expect(outcomes.length).to.be.greaterThan(0);
    expect(outcomes.filter((outcome) => !outcome.ok), JSON.stringify(outcomes, null, 1)).to.deep.equal([]);
  });

  it('passes a fixture of our own', async () => {
    const outcome = await runAmpFixture(ownFixture(), 'own');
    expect(outcome.diffs).to.deep.equal([]);
    expect(outcome.ok).to.equal(true);
  });

  it('fails the same fixture when it expects the wrong price bucket, naming the keys', async () => {
    const fixture = ownFixture();
    fixture.expectedAmpResponse!.targeting!.hb_pb = '1.90';
    fixture.expectedAmpResponse!.targeting!.hb_pb_appnexus = '1.90';
    const outcome = await runAmpFixture(fixture, 'wrong bucket');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.deep.equal([
      'targeting.hb_pb: expected "1.90", got "1.80"',
      'targeting.hb_pb_appnexus: expected "1.90", got "1.80"',
    ]);
  });

  it('fails a fixture whose targeting misses a key the answer has', async () => {
    const fixture = ownFixture();
    delete fixture.expectedAmpResponse!.targeting!.hb_env;
    const outcome = await runAmpFixture(fixture, 'missing key');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs).to.deep.equal(['targeting.hb_env: unexpected "amp"']);
  });

  it('fails a fixture when the bidder did not get the sizes it expects', async () => {
    const fixture = ownFixture();
    fixture.query = fixture.query.replace('&w=300&h=250', '');
    const outcome = await runAmpFixture(fixture, 'sizes');
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs.join('\n')).to.contain('bidder appnexus request.imp[0].banner.format[0].w: expected 300, got 320');
  });

  it('fails a fixture that expects another validated request or another bidder request, naming the members', async () => {
    const fixture = ownFixture();
    (fixture.expectedValidatedBidRequest as any).ext.prebid.targeting.includewinners = false;
    (fixture.expectedMockBidderRequests as any).appnexus.imp[0].tagid = '/42/bottom';
    const outcome = await runAmpFixture(fixture, 'requests');
    expect(outcome.diffs).to.deep.equal([
      'validated request.ext.prebid.targeting.includewinners: expected false, got true',
      'bidder appnexus request.imp[0].tagid: expected "/42/bottom", got "/42/top"',
    ]);
  });

  it("expects the specification's AMP tmax in the requests where a fixture names none", async () => {
    const fixture = ownFixture();
    fixture.query += '&timeout=700';
    expect((await runAmpFixture(fixture, 'timeout')).diffs).to.deep.equal([]);
    (fixture.expectedValidatedBidRequest as any).tmax = 1000;
    expect((await runAmpFixture(fixture, 'timeout, wrong tmax')).diffs).to.deep.equal(['validated request.tmax: expected 1000, got 700']);
  });

  it("expects the specification's AMP tmax where a fixture expects Prebid Server's (the query's timeout as it is, else the stored tmax)", async () => {
    const fixture = ownFixture();
    fixture.query += '&timeout=2500';
    (fixture.expectedValidatedBidRequest as any).tmax = 2500;
    (fixture.expectedMockBidderRequests as any).appnexus.tmax = 2500;
    expect((await runAmpFixture(fixture, 'timeout above the AMP default')).diffs).to.deep.equal([]);
    const stored = ownFixture();
    (stored.mockBidRequest as any).tmax = 4000;
    (stored.expectedValidatedBidRequest as any).tmax = 4000;
    expect((await runAmpFixture(stored, 'stored tmax above the AMP default')).diffs).to.deep.equal([]);
    // Prebid Server stops reading the query at a consent warning and keeps the stored tmax; Gavel reads the timeout.
    const warned = ownFixture();
    warned.query += '&timeout=500&consent_string=BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA&consent_type=1';
    (warned.mockBidRequest as any).tmax = 300;
    (warned.expectedValidatedBidRequest as any).tmax = 300;
    expect((await runAmpFixture(warned, 'stored tmax kept at a consent warning')).diffs).to.deep.equal([]);
  });

  it("runs with the host's GDPR switch on, as Prebid Server's AMP tests do: a TCF v2 string in the query reaches the bidder", async () => {
    const consent = 'CPdECS0PdECS0ACABBENAzCv_____3___wAAAQNd_X9cAAAAAAAA';
    const fixture = ownFixture();
    fixture.query += `&consent_string=${consent}&consent_type=2&gdpr_applies=true`;
    Object.assign(fixture.expectedValidatedBidRequest as any, { regs: { gdpr: 1 }, user: { consent } });
    Object.assign((fixture.expectedMockBidderRequests as any).appnexus, { regs: { ext: { gdpr: 1 } }, user: { ext: { consent } } });
    // The accounts' GDPR switch stays off (Prebid Server's permissions mock lets every bidder through): the targeting
    // is the same as without consent.
    expect((await runAmpFixture(fixture, 'consent through the query')).diffs).to.deep.equal([]);
  });

  it("serves the fixture's mockAmpStoredResponse as the stored responses its request names", async () => {
    const fixture = ownFixture();
    const imp = (fixture.mockBidRequest as any).imp[0];
    imp.ext.prebid.storedbidresponse = [{ bidder: 'appnexus', id: 'stored-bid-response' }];
    // The mock bidder reads it as Prebid Server's test adapter reads its server's answer: the stored price wins.
    fixture.mockAmpStoredResponse = { 'stored-bid-response': { id: 'x', seatbid: [{ bid: [{ id: 'stored-bid', impid: 'other', price: 3.33, crid: 'c' }] }] } };
    delete fixture.expectedValidatedBidRequest;
    delete fixture.expectedMockBidderRequests;
    const outcome = await runAmpFixture(fixture, 'stored auction response');
    expect(outcome.diffs).to.deep.equal(['targeting.hb_pb: expected "1.80", got "3.30"', 'targeting.hb_pb_appnexus: expected "1.80", got "3.30"']);
  });

  it('checks the status and error text of a fixture that expects a 400', async () => {
    const fixture: AmpFixture = { ...ownFixture(), query: 'w=300&h=250', expectedReturnCode: 400, expectedErrorMessage: 'AMP requests require an AMP tag_id.' };
    delete fixture.expectedAmpResponse;
    delete fixture.expectedMockBidderRequests;
    delete fixture.expectedValidatedBidRequest;
    expect((await runAmpFixture(fixture, 'no tag_id')).diffs).to.deep.equal([]);
    const wrong = await runAmpFixture({ ...fixture, expectedErrorMessage: 'something else' }, 'no tag_id, wrong text');
    expect(wrong.ok).to.equal(false);
  });
});
