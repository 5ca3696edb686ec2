import { expect } from 'chai';
import { Tokens } from '../../core/app/tokens.js';
import type { UndiciBidderTransport } from '../../core/bidders/transport.js';
import { eventually } from '../support/eventually.js';
import { bannerRequest, postJson, useGavelWithBidders } from '../support/gavel.js';

/**
 * Two bidders on one host:port, one dripping its body a byte at a time: its calls die with their auctions, so the
 * pool it shares with the healthy bidder never fills and the healthy bidder keeps bidding. (The run was
 * 32 connections for 20 s; this one is shorter with the same concurrency.)
 */
describe('a dripping bidder next to a healthy one on the same host', function () {
  this.timeout(30_000);
  const servers = useGavelWithBidders(
    { healthy: 'name=healthy&price=1&keep=0', dripping: 'dripMs=100&keep=0' },
    { httpClient: { connectionsPerHost: 32, maxPendingPerHost: 32 } },
  );
  const auction = () => postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ healthy: {}, dripping: {} }, { tmax: 300 }));

  it('under 32 concurrent auctions the healthy bidder bids in every one, the dripping one times out with code 1, and no call is left open', async () => {
    const rssBefore = process.memoryUsage().rss;
    const stopAt = Date.now() + 4000;
    const outcomes = { auctions: 0, healthyBids: 0, dripTimeouts: 0, other: [] as string[] };
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (Date.now() < stopAt) {
          const { status, json, text } = await auction();
          outcomes.auctions++;
          if (status !== 200) {
            outcomes.other.push(`${status} ${text.slice(0, 80)}`);
            continue;
          }
          if (json.seatbid?.some((seat: { seat: string }) => seat.seat === 'healthy')) outcomes.healthyBids++;
          else outcomes.other.push(JSON.stringify(json.ext?.errors?.healthy ?? 'no healthy bid'));
          if (json.ext?.errors?.dripping?.[0]?.code === 1) outcomes.dripTimeouts++;
        }
      }),
    );
    expect(outcomes.other, 'answers without a healthy bid').to.deep.equal([]);
    expect(outcomes.healthyBids).to.equal(outcomes.auctions);
    expect(outcomes.dripTimeouts).to.equal(outcomes.auctions);
    expect(outcomes.auctions).to.be.greaterThan(32);

    // Afterwards: nothing is held for the dripping bidder, and the healthy one still bids alone or alongside it.
    const transport = servers.gavel.app.container.get<UndiciBidderTransport>(Tokens.BidderTransport);
    await eventually('calls open to the bidders\' host', () => transport.openCalls(servers.bidder.url), (open) => open === 0, 2000);
    for (let i = 0; i < 5; i++) {
      const { json } = await auction();
      expect(json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['healthy']);
    }
    // Memory does not grow with the dripping calls (the issue saw 136 to 425 MB).
    expect(process.memoryUsage().rss - rssBefore).to.be.below(100 * 1024 * 1024);
  });
});
