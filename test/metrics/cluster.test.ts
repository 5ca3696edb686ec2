import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { METRIC_NAMES } from '../../core/metrics/index.js';
import { getJson } from '../support/gavel.js';
import { valueOf } from './exposition.js';

const fixture = fileURLToPath(new URL('./cluster-fixture.js', import.meta.url));

describe('metrics with server.workers > 1', () => {
  let child: ChildProcess;
  let base: string;

  before(async function () {
    this.timeout(20_000);
    child = spawn(process.execPath, [fixture], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    base = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
  });
  after(async () => {
    if (child.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('the primary serves the sum of every worker\'s metrics on one admin port', async () => {
    const { status, text } = await getJson(`${base}/metrics`);
    expect(status).to.equal(200);
    expect(valueOf(text, METRIC_NAMES.auctions, { endpoint: 'auction', outcome: 'ok' })).to.equal(3);
    expect(valueOf(text, `${METRIC_NAMES.auctionDuration}_count`, { endpoint: 'auction' })).to.equal(3);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'bid' })).to.equal(2);
    expect((await getJson(`${base}/health`)).status).to.equal(200);
  });
});

describe('metrics in the cluster primary, a worker dying mid-scrape', () => {
  it("answers a scrape when a worker's channel closes as it is asked, with no 'error' event to end the primary", async () => {
    const { ClusterMetrics } = await import('../../core/metrics/index.js');
    const { EventEmitter } = await import('node:events');
    // Connected when checked, closed when written to: the moment a worker dies between the two.
    const dying = Object.assign(new EventEmitter(), {
      id: 7,
      isConnected: () => true,
      send: (_message: unknown, callback?: (err: Error | null) => void) => {
        const closed = new Error('Channel closed');
        if (callback) process.nextTick(callback, closed);
        else process.nextTick(() => dying.emit('error', closed));
        return false;
      },
    });
    let raised: unknown;
    dying.on('error', (err) => (raised = err));
    const metrics = new ClusterMetrics({ timeoutMs: 5_000 });
    try {
      metrics.attach(dying as never, 1);
      const started = Date.now();
      const text = await metrics.render();
      expect(Date.now() - started, 'a failed ask ends at once, not at the timeout').to.be.below(1_000);
      expect(text).to.contain(METRIC_NAMES.workersListening);
      expect(raised).to.equal(undefined);
    } finally {
      metrics.close();
    }
  });
});
