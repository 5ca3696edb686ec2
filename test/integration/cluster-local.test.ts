import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { saveStoredData } from '../../core/stored/index.js';
import { dropStoredDataTable } from '../../core/stored/test/pg-table.js';
import { getJson, postJson } from '../support/gavel.js';

const script = fileURLToPath(new URL('../../scripts/cluster-local.js', import.meta.url));

interface Cluster {
  child: ChildProcess;
  instances: Array<{ url: string; admin: string }>;
}

/** Starts `npm run cluster:local`'s script on free ports and resolves with what it reports once both instances listen. */
async function startCluster(table: string): Promise<Cluster> {
  const child = spawn(process.execPath, [script, '--table', table, '--ports', '0,0', '--admin-ports', '0,0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<Cluster>((resolve, reject) => {
    lines.on('line', (line) => {
      output += `${line}\n`;
      if (line.startsWith('{"ready":true')) resolve({ child, instances: (JSON.parse(line) as Cluster).instances });
    });
    child.once('exit', (code) => reject(new Error(`cluster:local exited with ${code}:\n${output}`)));
  });
  // Never leave the script (and so its instances) running when the test gives up waiting.
  const givenUp = setTimeout(() => child.kill('SIGTERM'), 50_000);
  return ready.finally(() => clearTimeout(givenUp));
}

/** The auction both instances are asked: everything but the id comes from the stored request. */
const auction = (id: string) => ({ id, ext: { prebid: { storedrequest: { id: 'shared-req' } } } });
const stored = (tmax: number) => ({
  tmax,
  site: { page: 'https://news.example/story', publisher: { id: 'pub-1' } },
  imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {} } }],
  ext: { prebid: { targeting: { pricegranularity: 'med' }, cache: { bids: {} } } },
});

/** What an instance serves for the shared stored request: its tmax (the stored document's), or 'gone' when not found. */
async function served(url: string): Promise<number | 'gone'> {
  const answer = await postJson(`${url}/openrtb2/auction`, auction('probe'));
  if (answer.status === 400 && /Stored Request with ID="shared-req" not found\./.test(answer.text)) return 'gone';
  expect(answer.status, answer.text).to.equal(200);
  return answer.json.ext.tmaxrequest as number;
}

/** Milliseconds until every instance serves `expected`; fails past `withinMs`. */
async function untilServedByAll(cluster: Cluster, expected: number | 'gone', withinMs: number): Promise<number> {
  const started = performance.now();
  for (;;) {
    const seen = await Promise.all(cluster.instances.map(({ url }) => served(url)));
    const elapsed = performance.now() - started;
    if (seen.every((value) => value === expected)) return elapsed;
    if (elapsed > withinMs) throw new Error(`after ${Math.round(elapsed)} ms the instances serve ${JSON.stringify(seen)}, not ${expected}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Needs this machine's PostgreSQL and Redis (GAVEL_TEST_PG, GAVEL_TEST_REDIS), as `npm run cluster:local` does.
describe('npm run cluster:local: two instances on one PostgreSQL and one Redis', function () {
  this.timeout(60_000);
  const connectionString = process.env.GAVEL_TEST_PG;
  const table = `gavel_cluster_${process.pid}`;
  let pool: pg.Pool;
  let cluster: Cluster;

  before(async function () {
    if (!connectionString || !process.env.GAVEL_TEST_REDIS) this.skip();
    pool = new pg.Pool({ connectionString, max: 2 });
    cluster = await startCluster(table);
  });
  after(async () => {
    if (cluster?.child.exitCode === null) {
      const exited = once(cluster.child, 'exit');
      cluster.child.kill('SIGTERM');
      await exited;
    }
    if (pool) {
      await dropStoredDataTable(pool, table);
      await pool.end();
    }
  });

  it('migrated the schema and both instances are ready', async () => {
    expect(cluster.instances).to.have.length(2);
    for (const { admin } of cluster.instances) expect((await getJson(`${admin}/health`)).json).to.deep.equal({ status: 'ok', backends: { storedData: 'up', cache: 'up' } });
  });

  it('serves an UPDATE and a DELETE of a stored request from both instances within a second', async () => {
    await saveStoredData(pool, 'request', 'shared-req', stored(400), table);
    await untilServedByAll(cluster, 400, 2000);
    // Both have it cached now: only the change reaching them can make them serve the new version.
    await pool.query(`UPDATE ${table} SET data = $1 WHERE kind = 'request' AND id = 'shared-req'`, [JSON.stringify(stored(450))]);
    expect(await untilServedByAll(cluster, 450, 1000)).to.be.below(1000);
    await pool.query(`DELETE FROM ${table} WHERE kind = 'request' AND id = 'shared-req'`);
    expect(await untilServedByAll(cluster, 'gone', 1000)).to.be.below(1000);
  });

  it('resolves a cache id written through one instance through the other', async () => {
    await saveStoredData(pool, 'request', 'shared-req', stored(500), table);
    const [first, second] = cluster.instances;
    const answer = await postJson(`${first!.url}/openrtb2/auction`, auction('cached'));
    expect(answer.status, answer.text).to.equal(200);
    const bid = answer.json.seatbid[0].bid[0];
    const uuid = bid.ext.prebid.targeting.hb_cache_id as string;
    expect(uuid).to.be.a('string');
    const fetched = await getJson(`${second!.url}/cache?uuid=${uuid}`);
    expect(fetched.status).to.equal(200);
    expect(fetched.json).to.include({ id: bid.id, impid: 'slot-1' });
  });
});
