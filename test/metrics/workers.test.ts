import { expect } from 'chai';
import { METRIC_NAMES } from '../../core/metrics/index.js';
import { eventually } from '../support/eventually.js';
import { getJson } from '../support/gavel.js';
import { serveGavel, type ServedGavel } from '../support/served.js';
import { samplesOf, valueOf } from './exposition.js';

const quiet = 'logging: { level: info, accessLog: { enabled: false } }';

describe('gavel serve with workers', function () {
  this.timeout(120_000);
  let served: ServedGavel | undefined;
  afterEach(() => served?.stop());

  it('a worker killed under load: the summed request counter never decreases, and the restart is counted', async () => {
    served = await serveGavel(`server: { port: 0, host: 127.0.0.1, workers: 2 }\n${quiet}\nadmin: { port: 0 }\n`);
    const { url, admin } = served;
    const scrape = async () => (await getJson(`${admin}/metrics`)).text;
    await eventually('the metrics', scrape, (text) => valueOf(text, METRIC_NAMES.workersListening) === 2, 30_000);

    let loading = true;
    let answered = 0;
    const load = Array.from({ length: 6 }, async () => {
      while (loading) await fetch(`${url}/status`).then((response) => (response.ok && answered++, response.arrayBuffer()), () => undefined);
    });
    // Scraped all along, right through the kill: a scrape just after it would show a drop if the dead worker's count went.
    const sums: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sums.push(valueOf(await scrape(), METRIC_NAMES.httpRequests, { route: '/status', status: '200' }) ?? 0);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // The victim is the worker that served the most: its count is what must not vanish from the sum.
      const perWorker = samplesOf((await getJson(`${admin}/metrics/workers`)).text, METRIC_NAMES.httpRequests).filter((sample) => sample.labels.route === '/status');
      const busiest = perWorker.reduce((best, sample) => (sample.value > best.value ? sample : best)).labels.worker;
      const victim = served.lines.find((line) => line.msg === 'gavel listening' && String(line.worker) === busiest)!.pid as number;
      process.kill(victim, 'SIGKILL');
      const restarted = await served.waitForLine((line) => line.msg === 'worker exited; starting another', 10_000);
      expect(restarted).to.include({ workerPid: victim, signal: 'SIGKILL' });
      await eventually('the metrics', scrape, (text) => valueOf(text, METRIC_NAMES.workersListening) === 2, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      loading = false;
      sampling = false;
      await Promise.all([...load, sampler]);
    }
    expect(answered).to.be.above(0);
    for (let i = 1; i < sums.length; i++) expect(sums[i], `scrape ${i}: ${sums.join(', ')}`).to.be.at.least(sums[i - 1]!);
    expect(sums.at(-1)).to.be.above(sums[0]!);

    const text = await scrape();
    expect(valueOf(text, METRIC_NAMES.workerRestarts)).to.equal(1);
    expect(valueOf(text, METRIC_NAMES.primaryMemory)).to.be.above(10_000_000);
    // Per worker: each live worker's series apart, what the dead one counted as "retired", adding up to the sum.
    const perWorker = (await getJson(`${admin}/metrics/workers`)).text;
    for (const worker of ['1', '2']) expect(valueOf(perWorker, 'process_resident_memory_bytes', { worker }), `worker="${worker}"`).to.be.above(0);
    expect(valueOf(perWorker, METRIC_NAMES.primaryMemory, { worker: 'primary' })).to.be.above(0);
    const statusCounts = samplesOf(perWorker, METRIC_NAMES.httpRequests).filter((sample) => sample.labels.route === '/status' && sample.labels.status === '200');
    expect(statusCounts.find((sample) => sample.labels.worker === 'retired')?.value).to.be.above(0);
    const perWorkerSum = statusCounts.reduce((sum, sample) => sum + sample.value, 0);
    expect(perWorkerSum).to.be.at.least(sums.at(-1)!);
  });

  it('restarts a worker that fails at boot after a delay that doubles each time, never in a tight loop', async () => {
    served = await serveGavel(`server: { port: 0, host: 127.0.0.1, workers: 2 }\n${quiet}\nadmin: { port: 0 }\nplugins: ['/no/such/plugin']\n`, { adminOnly: true });
    const exits = () => served!.lines.filter((line) => line.msg === 'worker exited; starting another');
    // A boot slower than 10 s (a loaded machine) counts as a healthy run: it restarts at once and starts the doubling
    // again. The delays that must double are those of three quick failures in a row.
    const firstStreakOfSlot1 = () => {
      let streak: unknown[] = [];
      for (const line of exits().filter((exit) => exit.slot === 1)) {
        streak = (line.restartInMs as number) > 0 ? [...streak, line.restartInMs] : [];
        if (streak.length === 3) return streak;
      }
      return streak;
    };
    await eventually('three quick restarts in a row', firstStreakOfSlot1, (delays) => delays.length === 3, 90_000).catch((err: Error) => {
      // What each exit reported (how long the worker lived, the delay chosen): what a failure here needs to be read.
      throw new Error(`${err.message}; the exits: ${JSON.stringify(exits().map(({ slot, livedMs, restartInMs, code }) => ({ slot, livedMs, restartInMs, code })))}`);
    });
    expect(firstStreakOfSlot1()).to.deep.equal([100, 200, 400]);
    expect((await getJson(`${served.admin}/health`)).status, 'no worker listens').to.equal(503);
    expect(valueOf((await getJson(`${served.admin}/metrics`)).text, METRIC_NAMES.workerRestarts)).to.be.at.least(exits().length);
  });
});
