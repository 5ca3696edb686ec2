import { expect } from 'chai';
import { postJson, startGavel, type RunningGavel } from '../../../test/support/gavel.js';
import { startMockBidder, type MockBidder } from '../../../test/support/mock-bidder.js';

type Json = Record<string, any>;

describe('prebid.ortb2blocking: auctions with the module on', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;

  before(async () => {
    bidder = await startMockBidder();
    const endpoint = (query: string) => ({ adapter: 'ortb', endpoint: `${bidder.url}/rtb?${query}` });
    gavel = await startGavel({
      modules: {
        'prebid.ortb2blocking': {
          enabled: true,
          config: { attributes: { badv: { blocked_adomain: ['advertiser.example'], enforce_blocks: true, action_overrides: { enforce_blocks: [{ conditions: { bidders: ['beta'] }, override: false }] } } } },
        },
      },
      bidders: { alpha: endpoint('name=alpha&price=2'), beta: endpoint('name=beta&price=1.5'), gamma: endpoint('name=gamma&price=1&cat=IAB25') },
    });
  });

  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  const lastSent = (name: string): Json => [...bidder.received].reverse().find((entry) => entry.url.includes(`name=${name}&`))!.body;

  it('sends every bidder its blocks and drops the bids that carry them (non-bid 355), except where an override stops enforcement', async () => {
    const answer = await postJson(`${gavel.url}/openrtb2/auction`, {
      id: 'r',
      site: { page: 'https://publisher.example/a' },
      imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {}, beta: {}, gamma: {} } } } }],
      ext: { prebid: { returnallbidstatus: true, trace: 'verbose' } },
    });
    expect(answer.status, answer.text).to.equal(200);
    expect(lastSent('alpha').badv).to.deep.equal(['advertiser.example']);
    expect(lastSent('beta').badv).to.deep.equal(['advertiser.example']);
    // Every mock bid names advertiser.example: alpha's and gamma's are dropped, beta's is not enforced.
    expect(answer.json.seatbid.map((seat: Json) => seat.seat)).to.deep.equal(['beta']);
    const nonBids = answer.json.ext.prebid.seatnonbid.flatMap((seat: Json) => seat.nonbid.map((nonbid: Json) => `${seat.seat}:${nonbid.statuscode}`));
    expect(nonBids.sort()).to.deep.equal(['alpha:355', 'gamma:355']);
    const messages = JSON.stringify(answer.json.ext.prebid.modules.trace);
    expect(messages).to.contain('Bid alpha-bid-0 from bidder alpha has been rejected, failed checks: badv');
  });

  it("uses the account's config (hooks.modules.prebid.ortb2blocking) over the host's: bcat and cattax", async () => {
    const accountBlocks = { attributes: { bcat: { blocked_adv_cat: ['IAB25'], category_taxonomy: 1, enforce_blocks: true } } };
    const own = await startGavel({
      modules: { 'prebid.ortb2blocking': { enabled: true, config: { attributes: { badv: { blocked_adomain: ['advertiser.example'], enforce_blocks: true } } } } },
      accounts: { defaults: { hooks: { modules: { prebid: { ortb2blocking: accountBlocks } } } } },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2` }, gamma: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=gamma&price=1&cat=IAB25` } },
    });
    try {
      const answer = await postJson(`${own.url}/openrtb2/auction`, {
        id: 'r',
        site: { page: 'https://publisher.example/a' },
        imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {}, gamma: {} } } } }],
        ext: { prebid: { returnallbidstatus: true } },
      });
      expect(lastSent('alpha')).to.include({ cattax: 1 });
      expect(lastSent('alpha').bcat).to.deep.equal(['IAB25']);
      expect(lastSent('alpha')).to.not.have.property('badv');
      expect(answer.json.seatbid.map((seat: Json) => seat.seat)).to.deep.equal(['alpha']);
      expect(answer.json.ext.prebid.seatnonbid).to.deep.equal([{ seat: 'gamma', nonbid: [{ impid: 'imp-1', statuscode: 302, ext: { prebid: { bid: answer.json.ext.prebid.seatnonbid[0].nonbid[0].ext.prebid.bid } } }] }]);
      expect(answer.json.ext.prebid.seatnonbid[0].nonbid[0].ext.prebid.bid.cat).to.deep.equal(['IAB25']);
    } finally {
      await own.close();
    }
  });
});
