import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import type { StoredChange } from '../invalidation.js';
import { migrateStoredData } from '../migrations.js';
import { listenClientConfig, PostgresChangeFeed } from '../postgres-changes.js';
import { saveStoredData } from '../postgres-fetcher.js';
import { pgTestTable } from './pg-table.js';

/** What a feed told of, with the time it arrived. */
class Recorder {
  readonly heard: Array<{ changes: readonly StoredChange[] | 'all'; at: number }> = [];
  readonly sink = (changes?: readonly StoredChange[]) => void this.heard.push({ changes: changes ?? 'all', at: performance.now() });

  /** Resolves with the time it took until `matches` heard something, or rejects after `withinMs`. */
  async waitFor(matches: (changes: readonly StoredChange[] | 'all') => boolean, since: number, withinMs = 1000): Promise<number> {
    while (performance.now() - since < withinMs + 200) {
      const found = this.heard.find((entry) => entry.at >= since && matches(entry.changes));
      if (found) return found.at - since;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`nothing matching was heard within ${withinMs} ms: ${JSON.stringify(this.heard)}`);
  }
}

const names = (kind: string, id: string) => (changes: readonly StoredChange[] | 'all') => changes !== 'all' && changes.some((change) => change.kind === kind && change.id === id);
const silent = pino({ level: 'silent' });

// Runs against a real server only when GAVEL_TEST_PG names one.
describe('PostgresChangeFeed', function () {
  const connectionString = process.env.GAVEL_TEST_PG;
  const { table, cleanUp } = pgTestTable('changes');
  const applicationName = `gavel-test-listen-${process.pid}`;
  let pool: pg.Pool;
  let feed: PostgresChangeFeed | undefined;

  before(async function () {
    if (!connectionString) this.skip();
    pool = new pg.Pool({ connectionString, max: 3 });
    await migrateStoredData(pool, table);
  });
  afterEach(() => feed?.close());
  after(async () => {
    if (!pool) return;
    await cleanUp(pool);
    await pool.end();
  });

  function startFeed(options: { listen: boolean; pollIntervalMs: number }, recorder: Recorder): Promise<void> {
    feed = new PostgresChangeFeed({
      pool,
      table,
      listenClient: options.listen ? () => new pg.Client({ ...listenClientConfig(connectionString!, 1000), application_name: applicationName }) : undefined,
      pollIntervalMs: options.pollIntervalMs,
      sink: recorder.sink,
      logger: silent,
    });
    return feed.start();
  }

  it('hears an insert, an update and a delete within a second through LISTEN', async () => {
    const recorder = new Recorder();
    await startFeed({ listen: true, pollIntervalMs: 0 }, recorder);
    expect(feed!.connected).to.equal(true);
    let since = performance.now();
    await saveStoredData(pool, 'request', 'listened', { v: 1 }, table);
    expect(await recorder.waitFor(names('request', 'listened'), since)).to.be.below(1000);
    since = performance.now();
    await pool.query(`UPDATE ${table} SET data = '{"v": 2}' WHERE kind = 'request' AND id = 'listened'`);
    expect(await recorder.waitFor(names('request', 'listened'), since)).to.be.below(1000);
    since = performance.now();
    await pool.query(`DELETE FROM ${table} WHERE kind = 'request' AND id = 'listened'`);
    expect(await recorder.waitFor(names('request', 'listened'), since)).to.be.below(1000);
  });

  it('polls updated_at and the tombstones when LISTEN is off, telling each change once', async () => {
    const recorder = new Recorder();
    await startFeed({ listen: false, pollIntervalMs: 100 }, recorder);
    expect(feed!.connected).to.equal(false);
    let since = performance.now();
    await saveStoredData(pool, 'imp', 'polled', { v: 1 }, table);
    expect(await recorder.waitFor(names('imp', 'polled'), since)).to.be.below(1000);
    since = performance.now();
    await pool.query(`DELETE FROM ${table} WHERE kind = 'imp' AND id = 'polled'`);
    expect(await recorder.waitFor(names('imp', 'polled'), since)).to.be.below(1000);
    // Several polls later, each change has been told once: the overlap window does not repeat them.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(recorder.heard.filter((entry) => names('imp', 'polled')(entry.changes))).to.have.length(2);
  });

  it('polls while its LISTEN connection is lost, then listens again', async () => {
    const recorder = new Recorder();
    await startFeed({ listen: true, pollIntervalMs: 100 }, recorder);
    await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [applicationName]);
    const since = performance.now();
    await saveStoredData(pool, 'request', 'while-down', { v: 1 }, table);
    expect(await recorder.waitFor(names('request', 'while-down'), since)).to.be.below(1000);
    for (let i = 0; i < 100 && !feed!.connected; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(feed!.connected, 'listening again').to.equal(true);
  });

  // Last: a TRUNCATE's tombstone stands for everything, and would cover the changes of the tests after it.
  it('hears accounts and stored responses, and a TRUNCATE as everything', async () => {
    const recorder = new Recorder();
    await startFeed({ listen: true, pollIntervalMs: 0 }, recorder);
    let since = performance.now();
    await saveStoredData(pool, 'account', 'acct-1', { id: 'acct-1' }, table);
    await saveStoredData(pool, 'response', 'resp-1', { seatbid: [] }, table);
    await recorder.waitFor(names('account', 'acct-1'), since);
    await recorder.waitFor(names('response', 'resp-1'), since);
    since = performance.now();
    await pool.query(`TRUNCATE ${table}`);
    await recorder.waitFor((changes) => changes === 'all', since);
  });
});
