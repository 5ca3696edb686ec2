/**
 * What Prebid.js needs of a video auction with `cache.vastxml`: every video bid of the answer, the losing ones
 * included, has its VAST cached and says where (`ext.prebid.cache.vastXml.url`, or the winner's `hb_uuid` with
 * `hb_cache_host`/`hb_cache_path`), and that URL answers the bidder's VAST.
 */
import { expect } from 'chai';
import { getJson, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

const VAST = (name: string) => `<VAST version="3.0"><Ad id="${name}"><InLine><AdSystem>${name}</AdSystem></InLine></Ad></VAST>`;

describe('video bids cached for Prebid.js (cache.vastxml)', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;
  before(async () => {
    bidder = await startMockBidder();
    const video = (name: string, prices: string) => ({ adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=${name}&prices=${prices}&mtype=2&adm=${encodeURIComponent(VAST(name))}` });
    gavel = await startGavel({
      server: { externalUrl: 'http://gavel.test' },
      auction: { generateBidId: true },
      bidders: { alpha: video('alpha', '3,1'), beta: video('beta', '2') },
    });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  it('every video bid, losers included, carries a cached VAST URL that answers its own VAST, and its host bid id', async () => {
    const request = {
      id: 'video-1',
      site: { page: 'https://publisher.example/' },
      imp: [{ id: 'slot-v', video: { mimes: ['video/mp4'], w: 640, h: 480, protocols: [2, 3] }, ext: { prebid: { bidder: { alpha: {}, beta: {} } } } }],
      tmax: 500,
      // What Prebid.js sends: bidder keys off.
      ext: { prebid: { targeting: { includewinners: true, includebidderkeys: false }, cache: { vastxml: { returnCreative: true } } } },
    };
    const answer = await postJson(`${gavel.url}/openrtb2/auction`, request);
    expect(answer.status, answer.text).to.equal(200);
    const bids = (answer.json.seatbid as Array<{ seat: string; bid: Array<Record<string, any>> }>).flatMap((seat) => seat.bid.map((bid) => ({ seat: seat.seat, bid })));
    expect(bids).to.have.length(3);
    for (const { bid } of bids) {
      const prebid = bid.ext.prebid;
      expect(prebid.bidid, 'ext.prebid.bidid').to.be.a('string').and.not.equal('');
      const targeting = prebid.targeting ?? {};
      // As Prebid.js reads it: cache.vastXml first, else the targeting's hb_uuid on the cache host and path.
      const vastUrl: string | undefined = prebid.cache?.vastXml?.url ?? (targeting.hb_uuid && `http://${targeting.hb_cache_host}${targeting.hb_cache_path}?uuid=${targeting.hb_uuid}`);
      expect(vastUrl, `bid ${bid.id} has no VAST URL`).to.be.a('string');
      const fetched = await getJson(vastUrl!.replace('http://gavel.test', gavel.url));
      expect(fetched.status).to.equal(200);
      expect(fetched.text).to.equal(bid.adm);
    }
    const loser = bids.find(({ bid }) => bid.price === 1)!.bid;
    expect(loser.ext.prebid.cache.vastXml.url).to.match(/^http:\/\/gavel\.test\/cache\?uuid=/);
  });
});
