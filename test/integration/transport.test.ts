import { expect } from 'chai';
import { bannerRequest, postJson, useGavelWithBidders } from '../support/gavel.js';

describe('bidder transport limits', () => {
  const bigCreative = encodeURIComponent(`<div>${'x'.repeat(3000)}</div>`);
  const servers = useGavelWithBidders({ small: 'name=small&price=1', huge: `name=huge&price=5&adm=${bigCreative}` }, { httpClient: { maxResponseBytes: 2048 } });

  it('drops an answer over httpClient.maxResponseBytes as a bad server response, keeping the others', async () => {
    const { status, json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ small: {}, huge: {} }));
    expect(status).to.equal(200);
    expect(json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['small']);
    expect(json.ext.errors.huge[0].code).to.equal(3);
    expect(json.ext.errors.huge[0].message).to.contain('larger than 2048 bytes');
  });
});
