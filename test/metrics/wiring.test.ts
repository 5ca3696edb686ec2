import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METRIC_NAMES, type PrometheusMetrics } from '../../core/metrics/index.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, getJson, postJson, useGavelWithBidders } from '../support/gavel.js';
import { valueOf } from './exposition.js';

const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));

describe('metrics recorded by a running Gavel', () => {
  const guardPackage = fileURLToPath(new URL('../fixtures/modules/acme-guard/', import.meta.url));
  const servers = useGavelWithBidders(
    { alpha: 'name=alpha&price=1.25', sleepy: 'hang=1', broken: 'status=500' },
    { plugins: [guardPackage], modules: { 'acme.guard': { enabled: true } } },
  );

  it('counts the auction, each bidder outcome, the bids, the hooks, the cache put and the HTTP answers', async () => {
    const request = bannerRequest({ alpha: {}, sleepy: {}, broken: {} }, { tmax: 200, ext: { prebid: { targeting: {}, cache: { bids: {} } } } });
    expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, request)).status).to.equal(200);
    expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, { id: 'x', imp: [] })).status).to.equal(400);
    await getJson(`${servers.gavel.url}/info/bidders/alpha`);
    const text = await (servers.gavel.app.metrics as PrometheusMetrics).render();
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'auction', outcome: 'ok' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'auction', outcome: 'invalid' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'bid' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'sleepy', outcome: 'timeout' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'broken', outcome: 'error' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.bidsReceived, { bidder: 'alpha', media_type: 'banner' })).to.equal(1);
    // The 400 ends before the processed-request stage: only the valid auction ran the module's hooks.
    expect(valueOf(text, METRIC_NAMES.hookExecutions, { stage: 'processed-auction-request', module: 'acme.guard', status: 'success' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.hookExecutions, { stage: 'bidder-request', module: 'acme.guard', status: 'success' })).to.equal(3);
    expect(valueOf(text, `${METRIC_NAMES.bidderRequestDuration}_sum`, { bidder: 'sleepy' })).to.be.within(0.1, 0.2);
    expect(valueOf(text, METRIC_NAMES.cachePuts, { outcome: 'ok' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/openrtb2/auction', status: '200' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/openrtb2/auction', status: '400' })).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.httpRequests, { route: '/info/bidders/:name', status: '200' })).to.equal(1);
  });
});

/** Starts `gavel serve` and resolves once both the public and the admin listener have logged their ports. */
function serve(configText: string): Promise<{ child: ChildProcess; publicPort: number; adminPort: number }> {
  const file = join(mkdtempSync(join(tmpdir(), 'gavel-admin-')), 'gavel.yaml');
  writeFileSync(file, configText);
  const child = spawn(process.execPath, [cli, 'serve', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const ports: { publicPort?: number; adminPort?: number } = {};
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      ports.publicPort ??= Number(output.match(/"port":(\d+)[^\n]*"msg":"gavel listening"/)?.[1]) || undefined;
      ports.adminPort ??= Number(output.match(/"port":(\d+)[^\n]*"msg":"admin endpoints listening/)?.[1]) || undefined;
      if (ports.publicPort && ports.adminPort) resolve({ child, publicPort: ports.publicPort, adminPort: ports.adminPort });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`gavel exited with ${code}: ${output}`)));
  });
}

function stop(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  return exited;
}

describe('gavel serve with the admin port', function () {
  this.timeout(20_000);
  let bidder: MockBidder;
  before(async () => {
    bidder = await startMockBidder();
  });
  after(() => bidder?.close());

  it('serves /metrics and /health on loopback, and closes the admin port as soon as draining starts', async () => {
    const { child, publicPort, adminPort } = await serve(
      `server: { port: 0, host: 127.0.0.1, drainTimeoutMs: 3000 }\nlogging: { level: info }\nadmin: { port: 0 }\nbidders:\n  slow: { adapter: ortb, endpoint: "${bidder.url}/rtb?name=slow&price=1&delayMs=500" }\n`,
    );
    try {
      const admin = `http://127.0.0.1:${adminPort}`;
      expect((await getJson(`${admin}/health`)).status).to.equal(200);
      expect((await getJson(`http://127.0.0.1:${publicPort}/metrics`)).status).to.equal(404);
      const inFlight = postJson(`http://127.0.0.1:${publicPort}/openrtb2/auction`, bannerRequest({ slow: {} }, { tmax: 1500 }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Out of rotation at once, and the port free for the next process while this one finishes its auction.
      const probe = await getJson(`${admin}/health`).then(
        (answer) => `answered ${answer.status}`,
        (err: Error & { cause?: { code?: string } }) => err.cause?.code,
      );
      expect(probe).to.equal('ECONNREFUSED');
      expect((await inFlight).status).to.equal(200);
    } finally {
      await stop(child);
    }
  });

  it('with two workers, the primary serves one admin port summing both workers', async () => {
    const { child, publicPort, adminPort } = await serve(`server: { port: 0, host: 127.0.0.1, workers: 2 }\nlogging: { level: info }\nadmin: { port: 0 }\n`);
    try {
      for (let i = 0; i < 6; i++) await postJson(`http://127.0.0.1:${publicPort}/openrtb2/auction`, { id: 'x', imp: [] });
      const admin = `http://127.0.0.1:${adminPort}`;
      // The second worker may still be booting when the first answers: a scrape sums only the workers that answer
      // the primary, so wait (bounded) until both are in, then check the sum.
      let counted: number | undefined;
      for (let attempt = 0; attempt < 40 && counted !== 6; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
        counted = valueOf((await getJson(`${admin}/metrics`)).text, METRIC_NAMES.auctions, { endpoint: 'auction', outcome: 'invalid' });
      }
      expect(counted).to.equal(6);
      expect((await getJson(`${admin}/health`)).status).to.equal(200);
    } finally {
      await stop(child);
    }
  });
});
