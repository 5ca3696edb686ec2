import { expect } from 'chai';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, useGavelWithBidders, type RunningGavel } from '../support/gavel.js';
import { startRateServer, type RateServer } from './rate-server.js';

type Json = Record<string, any>;

function bidOf(response: Json, seat: string): Json {
  const group = (response.seatbid ?? []).find((entry: Json) => entry.seat === seat);
  expect(group, `seat ${seat} in ${JSON.stringify(response)}`).to.not.equal(undefined);
  return group.bid[0];
}

describe('currency conversion in the auction, end to end', () => {
  const servers = useGavelWithBidders(
    { euro: 'name=euro&price=2.2&cur=EUR', dollar: 'name=dollar&price=2.5', yen: 'name=yen&price=300&cur=JPY' },
    { currency: { rates: { USD: { EUR: 0.8 } } } },
  );

  it('converts a EUR bid to USD, keeps the original price, and buckets the converted price', async () => {
    const { status, json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ euro: {}, dollar: {} }, { ext: { prebid: { targeting: {} } } }));
    expect(status).to.equal(200);
    expect(json.cur).to.equal('USD');
    const euro = bidOf(json, 'euro');
    // 2.2 EUR at 1 / 0.8 USD per EUR
    expect(euro.price).to.be.closeTo(2.75, 1e-9);
    expect(euro.ext).to.include({ origbidcpm: 2.2, origbidcur: 'EUR' });
    expect(euro.ext.prebid.targeting).to.include({ hb_pb: '2.70', hb_bidder: 'euro' });
    const dollar = bidOf(json, 'dollar');
    expect(dollar.price).to.equal(2.5);
    expect(dollar.ext).to.include({ origbidcpm: 2.5, origbidcur: 'USD' });
    expect(dollar.ext.prebid.targeting).to.include({ hb_pb_dollar: '2.50' });
    expect(dollar.ext.prebid.targeting).to.not.have.property('hb_pb');
  });

  it('converts into the request currency: cur=EUR turns a USD bid into EUR', async () => {
    const { json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ dollar: {}, euro: {} }, { cur: ['EUR'], ext: { prebid: { targeting: {} } } }));
    expect(json.cur).to.equal('EUR');
    const dollar = bidOf(json, 'dollar');
    expect(dollar.price).to.be.closeTo(2, 1e-9);
    expect(dollar.ext).to.include({ origbidcpm: 2.5, origbidcur: 'USD' });
    const euro = bidOf(json, 'euro');
    expect(euro.price).to.equal(2.2);
    expect(euro.ext.prebid.targeting).to.include({ hb_pb: '2.20', hb_bidder: 'euro' });
  });

  it('drops a bid no rate can price with error 999, and keeps the others', async () => {
    const { status, json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ yen: {}, dollar: {} }));
    expect(status).to.equal(200);
    expect(json.seatbid.map((seat: Json) => seat.seat)).to.deep.equal(['dollar']);
    expect(json.ext.errors.yen).to.deep.equal([{ code: 999, message: "Currency conversion rate not found: 'JPY' => 'USD'" }]);
  });

  it('uses rates the request carries, and only those with usepbsrates false', async () => {
    const withRates = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ yen: {}, euro: {} }, { ext: { prebid: { currency: { rates: { USD: { JPY: 150 } } } } } }));
    expect(bidOf(withRates.json, 'yen').price).to.be.closeTo(2, 1e-9);
    expect(bidOf(withRates.json, 'yen').ext).to.include({ origbidcpm: 300, origbidcur: 'JPY' });
    expect(bidOf(withRates.json, 'euro').price).to.be.closeTo(2.75, 1e-9);

    const onlyOwn = await postJson(
      `${servers.gavel.url}/openrtb2/auction`,
      bannerRequest({ yen: {}, euro: {} }, { ext: { prebid: { currency: { rates: { USD: { JPY: 150 } }, usepbsrates: false } } } }),
    );
    expect(bidOf(onlyOwn.json, 'yen').price).to.be.closeTo(2, 1e-9);
    expect(onlyOwn.json.seatbid.map((seat: Json) => seat.seat)).to.deep.equal(['yen']);
    expect(onlyOwn.json.ext.errors.euro[0]).to.include({ code: 999 });
  });
});

describe('currency conversion in the auction with rates fetched at boot', () => {
  let bidder: MockBidder;
  let rates: RateServer;
  let gavel: RunningGavel;

  before(async () => {
    bidder = await startMockBidder();
    rates = await startRateServer({ dataAsOf: '2024-05-01', conversions: { EUR: { USD: 1.1 } } });
    gavel = await startGavel({
      currency: { url: rates.url },
      bidders: { euro: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=euro&price=2&cur=EUR` } },
    });
  });
  after(async () => {
    await gavel?.close();
    await rates?.close();
    await bidder?.close();
  });

  it('prices a EUR bid with the fetched rate', async () => {
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ euro: {} }));
    expect(rates.fetches).to.equal(1);
    const euro = bidOf(json, 'euro');
    expect(euro.price).to.be.closeTo(2.2, 1e-9);
    expect(euro.ext).to.include({ origbidcpm: 2, origbidcur: 'EUR' });
  });
});
