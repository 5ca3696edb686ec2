import { expect } from 'chai';
import { Tokens } from '../../core/app/tokens.js';
import type { UndiciBidderTransport } from '../../core/bidders/transport.js';
import { eventually } from '../support/eventually.js';
import { bannerRequest, postJson, useGavelWithBidders } from '../support/gavel.js';

/**
 * Two bidders on one host:port, one dripping its body a byte at a time: its calls die with their auctions, so the
 * pool it shares with the healthy bidder never fills and the healthy bidder keeps bidding. (The run was
 * 32 connections for 20 s at tmax 300; this one is shorter and smaller, with as many auctions as connections, so
 * that dripping calls left open would take the whole pool: `npm run chaos` runs the figures.)
 */
describe('a dripping bidder next to a healthy one on the same host', function () {
  this.timeout(30_000);
  const servers = useGavelWithBidders(
    { healthy: 'name=healthy&price=1&keep=0', dripping: 'dripMs=100&keep=0' },
    { httpClient: { connectionsPerHost: 16, maxPendingPerHost: 16 } },
  );
  const auction = () => postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ healthy: {}, dripping: {} }, { tmax: 400 }));

  it('under 16 concurrent auctions (a pool of 16) the healthy bidder keeps bidding, the dripping one times out with code 1, no call is left open, and afterwards the healthy one bids in every auction', async () => {
    const rssBefore = process.memoryUsage().rss;
    const stopAt = Date.now() + 4000;
    const outcomes = { auctions: 0, healthyBids: 0, dripTimeouts: 0, failures: [] as string[] };
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < stopAt) {
          const { status, json, text } = await auction();
          outcomes.auctions++;
          expect(status, text).to.equal(200);
          if (json.seatbid?.some((seat: { seat: string }) => seat.seat === 'healthy')) outcomes.healthyBids++;
          else outcomes.failures.push(JSON.stringify(json.ext?.errors?.healthy ?? 'no healthy bid'));
          if (json.ext?.errors?.dripping?.[0]?.code === 1) outcomes.dripTimeouts++;
        }
      }),
    );
    // The pool the two share never fills: no healthy call is refused for its host, and it bids in (nearly) every
    // auction. On a loaded test machine an auction may lose the healthy bidder to CPU, not to the dripping one;
    // before calls died with their auction, it lost all of them.
    expect(outcomes.failures.filter((failure) => failure.includes('already open or waiting')), 'healthy calls refused for a full host').to.deep.equal([]);
    expect(outcomes.healthyBids, outcomes.failures.slice(0, 3).join('\n')).to.be.at.least(Math.ceil(outcomes.auctions * 0.8));
    expect(outcomes.dripTimeouts).to.equal(outcomes.auctions);
    expect(outcomes.auctions).to.be.greaterThan(16);

    // Afterwards: nothing is held for the dripping bidder, and the healthy one still bids alone or alongside it.
    const transport = servers.gavel.app.container.get<UndiciBidderTransport>(Tokens.BidderTransport);
    await eventually('calls open to the bidders\' host', () => transport.openCalls(servers.bidder.url), (open) => open === 0, 2000);
    for (let i = 0; i < 10; i++) {
      // A longer tmax here: what is checked is the pool, not how a loaded test machine keeps time.
      const { json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ healthy: {}, dripping: {} }, { tmax: 1000 }));
      expect(json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['healthy']);
    }
    // Memory does not grow with the dripping calls (the issue saw 136 to 425 MB).
    expect(process.memoryUsage().rss - rssBefore).to.be.below(100 * 1024 * 1024);
  });
});
