import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CircuitBreaker, callFailed, CIRCUIT_OPEN_ERROR_CODE, BREAKER_DEFAULTS } from '../index.js';
import type { PrometheusMetrics } from '../../../core/metrics/index.js';
import { eventually } from '../../../test/support/eventually.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../../../test/support/gavel.js';

describe('resilience.circuit-breaker', () => {
  describe('the breaker', () => {
    const settings = { ...BREAKER_DEFAULTS, openingThreshold: 3, openingIntervalMs: 1000, closingIntervalMs: 500, halfOpenProbes: 1 };
    const changes: string[] = [];
    const breaker = () => {
      changes.length = 0;
      return new CircuitBreaker(settings, (state) => changes.push(state));
    };

    it('opens after N failures within the window, not when they are spread wider', () => {
      const spread = breaker();
      spread.record(true, 0);
      spread.record(true, 600);
      spread.record(true, 1200); // the first fell out of the window
      expect(spread.state).to.equal('closed');
      spread.record(true, 1300);
      expect(spread.state).to.equal('open');
      expect(changes).to.deep.equal(['open']);
    });

    it('skips while open, lets one probe through after the cool-down, closes on its success', () => {
      const b = breaker();
      for (const at of [0, 1, 2]) b.record(true, at);
      expect(b.admit(100)).to.equal('skip');
      expect(b.admit(501)).to.equal('skip');
      expect(b.admit(502)).to.equal('probe');
      expect(b.state).to.equal('half-open');
      expect(b.admit(503)).to.equal('skip'); // one probe at a time
      b.record(false, 510);
      expect(b.state).to.equal('closed');
      expect(b.admit(511)).to.equal('call');
      expect(changes).to.deep.equal(['open', 'half-open', 'closed']);
      // The count starts again: two failures do not reopen it.
      b.record(true, 520);
      b.record(true, 530);
      expect(b.state).to.equal('closed');
    });

    it('reopens for another cool-down when the probe fails', () => {
      const b = breaker();
      for (const at of [0, 1, 2]) b.record(true, at);
      expect(b.admit(600)).to.equal('probe');
      b.record(true, 650);
      expect(b.state).to.equal('open');
      expect(b.admit(1100)).to.equal('skip');
      expect(b.admit(1150)).to.equal('probe');
    });

    it('frees a probe slot whose outcome never came', () => {
      const b = breaker();
      for (const at of [0, 1, 2]) b.record(true, at);
      expect(b.admit(600)).to.equal('probe');
      expect(b.admit(700)).to.equal('skip');
      expect(b.admit(1101)).to.equal('probe');
    });

    it('counts timeouts, network errors and 5xx as failures; a 4xx or a 204 is an answer', () => {
      expect(callFailed([{ failure: 'timeout' }])).to.equal(true);
      expect(callFailed([{ failure: 'network' }])).to.equal(true);
      expect(callFailed([{ status: 503 }])).to.equal(true);
      expect(callFailed([{ status: 400 }])).to.equal(false);
      expect(callFailed([{ status: 204 }])).to.equal(false);
      expect(callFailed([{ status: 500 }, { status: 200 }])).to.equal(false);
      expect(callFailed([{ failure: 'too-large' }])).to.equal(false);
      expect(callFailed([])).to.equal(undefined);
    });
  });

  describe('in auctions: a bidder that fails, then recovers', function () {
    this.timeout(20_000);
    let flaky: Server;
    let calls = 0;
    let mode: 'hang' | 'bid' = 'hang';
    let gavel: RunningGavel;

    before(async () => {
      flaky = createServer((req, res) => {
        calls++;
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          if (mode === 'hang') return; // never answers: the call times out
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          const bid = { id: 'f-1', impid: body.imp[0].id, price: 0.9, adm: '<div/>', crid: 'c-1', w: 300, h: 250 };
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: body.id, cur: 'USD', seatbid: [{ seat: 'flaky', bid: [bid] }] }));
        });
      });
      await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
      const endpoint = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}/rtb`;
      gavel = await startGavel({
        admin: { enabled: true },
        bidders: { flaky: { adapter: 'ortb', endpoint }, steady: { adapter: 'ortb', endpoint } },
        modules: {
          'resilience.circuit-breaker': {
            enabled: true,
            config: { openingThreshold: 5, closingIntervalMs: 60_000, bidders: { flaky: { openingThreshold: 2, closingIntervalMs: 300 }, steady: { enabled: false } } },
          },
        },
      });
    });
    after(async () => {
      await gavel?.close();
      flaky.closeAllConnections();
      flaky.close();
    });

    const auction = (bidders: Record<string, unknown> = { flaky: {} }) => postJson(`${gavel.url}/openrtb2/auction`, bannerRequest(bidders, { tmax: 150 }));
    const metricsText = () => (gavel.app.metrics as PrometheusMetrics).render();
    const errorsOf = (json: any, bidder: string): Array<{ code: number; message: string }> => json.ext?.errors?.[bidder] ?? [];

    it('is called and times out until N failures open its breaker; then it is skipped without a call, with code 16', async () => {
      for (let i = 0; i < 2; i++) {
        const answer = await auction();
        expect(answer.status).to.equal(200);
        expect(errorsOf(answer.json, 'flaky').map((error) => error.code)).to.include(1); // timeout
      }
      expect(calls).to.equal(2);
      // A timed-out call ends after its auction answered (the transport's own timer): the second failure opens the
      // breaker a moment later.
      await eventually('the breaker opens', metricsText, (text) => /^gavel_circuit_breaker_open\{bidder="flaky"\} 1$/m.test(text), 5000);

      const open = await auction();
      expect(open.status).to.equal(200);
      const errors = errorsOf(open.json, 'flaky');
      expect(errors.map((error) => error.code)).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(errors[0]!.message).to.match(/^flaky skipped: its circuit breaker is open/);
      // The skipped bidder was not called: its auction does not pay its timeout.
      expect(calls).to.equal(2);
      expect(open.json.ext.responsetimemillis.flaky).to.equal(0);

      const metrics = await metricsText();
      expect(metrics).to.match(/^gavel_circuit_breaker_skipped_total\{bidder="flaky"\} 1$/m);
      expect(metrics).to.match(/^gavel_circuit_breaker_open\{bidder="flaky"\} 1$/m);
    });

    it('a bidder whose breaker is switched off is always called', async () => {
      const before = calls;
      for (let i = 0; i < 3; i++) expect(errorsOf((await auction({ steady: {} })).json, 'steady').map((error) => error.code)).to.deep.equal([1]);
      expect(calls).to.equal(before + 3);
    });

    it('after the cool-down, one probe goes; it succeeds, the breaker closes and the bidder bids again', async () => {
      mode = 'bid';
      await new Promise((resolve) => setTimeout(resolve, 350));
      const before = calls;
      const probe = await auction();
      expect(calls).to.equal(before + 1);
      expect(errorsOf(probe.json, 'flaky')).to.deep.equal([]);
      expect(probe.json.seatbid[0].bid[0].price).to.equal(0.9);
      const next = await auction();
      expect(next.json.seatbid[0].bid[0].price).to.equal(0.9);
      expect(calls).to.equal(before + 2);
      const metrics = await (gavel.app.metrics as PrometheusMetrics).render();
      expect(metrics).to.match(/^gavel_circuit_breaker_open\{bidder="flaky"\} 0$/m);
      expect(metrics).to.match(/^gavel_circuit_breaker_transitions_total\{bidder="flaky",state="closed"\} 1$/m);
    });
  });

  describe('per account: its own thresholds over the host\'s, and breaking switched off', function () {
    this.timeout(20_000);
    let failing: Server;
    let calls = 0;
    let gavel: RunningGavel;
    let dir: string;

    before(async () => {
      // Answers 503 at once: each call fails within its auction, so a breaker's count is known when the answer comes.
      failing = createServer((req, res) => {
        calls++;
        req.resume();
        req.on('end', () => res.writeHead(503).end());
      });
      await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
      dir = mkdtempSync(join(tmpdir(), 'gavel-breaker-'));
      mkdirSync(join(dir, 'accounts'));
      const accounts: Record<string, unknown> = {
        strict: { id: 'strict', hooks: { modules: { resilience: { 'circuit-breaker': { openingThreshold: 1 } } } } },
        relaxed: { id: 'relaxed', hooks: { modules: { resilience: { 'circuit-breaker': { bidders: { failing: { enabled: false } } } } } } },
        lax: { id: 'lax', hooks: { modules: { resilience: { 'circuit-breaker': { bidders: { failing: { openingThreshold: 100 } } } } } } },
        // Values a host's config would refuse: ignored, so the host's settings apply.
        careless: { id: 'careless', hooks: { modules: { resilience: { 'circuit-breaker': { openingThreshold: 0, enabled: 'no' } } } } },
        plain: { id: 'plain' },
      };
      for (const [id, account] of Object.entries(accounts)) writeFileSync(join(dir, 'accounts', `${id}.json`), JSON.stringify(account));
      gavel = await startGavel({
        admin: { enabled: true },
        storedRequests: { filesystem: { dir } },
        bidders: { failing: { adapter: 'ortb', endpoint: `http://127.0.0.1:${(failing.address() as AddressInfo).port}/rtb` } },
        modules: { 'resilience.circuit-breaker': { enabled: true, config: { closingIntervalMs: 60_000, bidders: { failing: { openingThreshold: 3 } } } } },
      });
    });
    after(async () => {
      await gavel?.close();
      failing.closeAllConnections();
      failing.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const auction = async (account?: string) => {
      const request = bannerRequest({ failing: {} }, { tmax: 500, ...(account && { site: { page: 'https://publisher.example/a', publisher: { id: account } } }) });
      const answer = await postJson(`${gavel.url}/openrtb2/auction`, request);
      expect(answer.status, answer.text).to.equal(200);
      return ((answer.json.ext?.errors?.failing ?? []) as Array<{ code: number }>).map((error) => error.code);
    };
    const skippedWith16 = (codes: number[]) => codes.length === 1 && codes[0] === CIRCUIT_OPEN_ERROR_CODE;

    it('an account with a stricter threshold skips the bidder after its own count; other accounts keep the host\'s', async () => {
      expect(skippedWith16(await auction('strict'))).to.equal(false);
      expect(calls).to.equal(1);
      // One failure opens the breaker for the strict account's auctions ...
      expect(await auction('strict')).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(calls).to.equal(1);
      // ... not for the others: the host's threshold is 3, and that one failure counts towards it too.
      expect(skippedWith16(await auction())).to.equal(false);
      expect(skippedWith16(await auction('plain'))).to.equal(false);
      expect(calls).to.equal(3);
      const metrics = await (gavel.app.metrics as PrometheusMetrics).render();
      expect(metrics).to.match(/^gavel_circuit_breaker_open\{bidder="failing"\} 1$/m);
      // The third failure opened the host's breaker: accounts without settings of their own now skip the bidder.
      expect(await auction()).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(await auction('plain')).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(await auction('careless')).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(calls).to.equal(3);
      // A laxer account keeps calling it: its own breaker is far from its 100 failures.
      expect(skippedWith16(await auction('lax'))).to.equal(false);
      expect(calls).to.equal(4);
    });

    it('an account that switches breaking off for the bidder still calls it while its breaker is open', async () => {
      const before = calls;
      for (let i = 0; i < 3; i++) expect(skippedWith16(await auction('relaxed'))).to.equal(false);
      expect(calls).to.equal(before + 3);
      // Its calls kept failing; the host's breaker, still open, keeps skipping the bidder for everyone else.
      expect(await auction('plain')).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(await auction('strict')).to.deep.equal([CIRCUIT_OPEN_ERROR_CODE]);
      expect(calls).to.equal(before + 3);
    });
  });
});
