import { expect } from 'chai';
import { getJson, postJson, useGavelWithBidders } from '../support/gavel.js';

/** Bodies a careless or hostile client might send. None may cost a 500, a hang or a crash. */
const hostileAuctionBodies: unknown[] = [
  {},
  { id: 1, imp: 'x' },
  { id: 'r', imp: [1, 2] },
  { id: 'r', imp: [null] },
  { id: 'r', imp: [{}] },
  { id: 'r', imp: [{ id: 'i', banner: 'big' }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { format: 'x' } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { format: [null] } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: [] }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: null } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { prebid: { bidder: [] } } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { prebid: 'x' } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', native: { request: '{"assets":' } , ext: { alpha: {} } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: null },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: [] },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { targeting: 'yes' } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { targeting: { pricegranularity: { ranges: 'x' } } } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { aliases: { a: 5 } } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { cache: 'x' } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, user: { ext: { prebid: { buyeruids: 'x' } } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, tmax: 'soon' },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, tmax: 1e12 },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { prebid: { storedrequest: { id: '../../etc/passwd' } } } }], site: { page: 'p' } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, cur: 'USD' },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { bidadjustmentfactors: [] } } },
  { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { alpha: {} } }], site: { page: 'p' }, ext: { prebid: { trace: { level: 1 } } } },
];

describe('hostile input never costs a 500', () => {
  const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1' });

  hostileAuctionBodies.forEach((body, index) => {
    it(`auction body #${index}: ${JSON.stringify(body).slice(0, 90)}`, async () => {
      const { status, text } = await postJson(`${servers.gavel.url}/openrtb2/auction`, body);
      expect(status, text).to.be.oneOf([200, 400]);
      if (status === 400) expect(text).to.match(/^Invalid request: /);
    });
  });

  for (const body of [[], 'x', { podconfig: 'x' }, { podconfig: { pods: [{}] } }, { podconfig: { durationrangesec: [15], pods: [{ podid: 1, adpoddurationsec: 1e9, configid: 'x' }] }, site: { page: 'p', publisher: { id: 'p' } }, video: { mimes: ['video/mp4'], protocols: [2] } }]) {
    it(`video body ${JSON.stringify(body).slice(0, 90)}`, async () => {
      const { status, text } = await postJson(`${servers.gavel.url}/openrtb2/video`, body);
      expect(status, text).to.be.within(400, 499);
    });
  }

  for (const query of ['', 'tag_id=', 'tag_id=../../x', 'tag_id=x&ms=1x1,abc', 'tag_id=x&w=-5&timeout=abc&targeting={bad', 'tag_id=x&debug=maybe']) {
    it(`amp query "${query}"`, async () => {
      const { status } = await getJson(`${servers.gavel.url}/openrtb2/amp?${query}`);
      expect(status).to.be.within(400, 499);
    });
  }

  for (const query of ['', 'bidder=', 'bidder=nope&uid=1', 'bidder=adnxs&uid=' + 'x'.repeat(5000)]) {
    it(`setuid query "${query.slice(0, 40)}"`, async () => {
      const { status } = await getJson(`${servers.gavel.url}/setuid?${query}`);
      expect(status).to.be.within(400, 499);
    });
  }
});
