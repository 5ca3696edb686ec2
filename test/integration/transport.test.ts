import { expect } from 'chai';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

describe('bidder transport limits', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;

  before(async () => {
    bidder = await startMockBidder();
    const bigCreative = encodeURIComponent(`<div>${'x'.repeat(3000)}</div>`);
    gavel = await startGavel({
      httpClient: { maxResponseBytes: 2048 },
      bidders: {
        small: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=small&price=1` },
        huge: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=huge&price=5&adm=${bigCreative}` },
      },
    });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  it('drops an answer over httpClient.maxResponseBytes as a bad server response, keeping the others', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ small: {}, huge: {} }));
    expect(status).to.equal(200);
    expect(json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['small']);
    expect(json.ext.errors.huge[0].code).to.equal(3);
    expect(json.ext.errors.huge[0].message).to.contain('larger than 2048 bytes');
  });
});
