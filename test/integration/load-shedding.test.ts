import { expect } from 'chai';
import { METRIC_NAMES, type PrometheusMetrics } from '../../core/metrics/index.js';
import { valueOf } from '../metrics/exposition.js';
import { bannerRequest, getJson, postJson, useGavelWithBidders } from '../support/gavel.js';

describe('load shedding', () => {
  describe('past server.shedding.maxAuctionsInFlight', () => {
    const servers = useGavelWithBidders({ slow: 'name=slow&price=1&delayMs=300' }, { server: { shedding: { maxAuctionsInFlight: 2, retryAfterSeconds: 3 } } });

    it('answers the auctions over the limit 503 with Retry-After at once, counts them, and takes auctions again once below it', async () => {
      const answers = await Promise.all(Array.from({ length: 6 }, () => postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ slow: {} }, { tmax: 800 }))));
      const shed = answers.filter((answer) => answer.status === 503);
      const served = answers.filter((answer) => answer.status === 200);
      expect(served).to.have.length(2);
      expect(shed).to.have.length(4);
      for (const answer of shed) {
        expect(answer.headers.get('retry-after')).to.equal('3');
        expect(answer.text).to.equal('Service unavailable: the server is overloaded; retry later\n');
      }
      const text = await (servers.gavel.app.metrics as PrometheusMetrics).render();
      expect(valueOf(text, METRIC_NAMES.shed, { reason: 'auctions-in-flight' })).to.equal(4);
      // Other endpoints are not shed, and auctions are taken again once the load is gone.
      expect((await getJson(`${servers.gavel.url}/status`)).status).to.equal(200);
      expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ slow: {} }, { tmax: 800 }))).status).to.equal(200);
    });
  });

  describe('while the event loop lags past server.shedding.maxEventLoopDelayMs', () => {
    const servers = useGavelWithBidders({ fast: 'name=fast&price=1' }, { server: { shedding: { maxEventLoopDelayMs: 100 } } });

    it('answers auctions 503 until the loop recovers', async function () {
      this.timeout(10_000);
      // Served before the lag, which also leaves the client and the server warm: the request made right after the
      // lag must reach the server within the second the lag is remembered, even on a loaded machine.
      expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ fast: {} }))).status).to.equal(200);
      const blockedUntil = Date.now() + 300;
      while (Date.now() < blockedUntil) {
        // Holds the event loop, as a CPU-bound overload would.
      }
      // The delay timer, overdue, runs before the request's I/O is served: it sees the 300 ms, and keeps it a second.
      const during = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ fast: {} }));
      expect(during.status).to.equal(503);
      expect(during.headers.get('retry-after')).to.equal('1');
      await new Promise((resolve) => setTimeout(resolve, 1600));
      expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ fast: {} }))).status).to.equal(200);
    });
  });
});
