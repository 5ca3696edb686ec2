import { expect } from 'chai';
import pg from 'pg';
import { ErrorCode } from '../../api/index.js';
import { migrateStoredData } from '../migrations.js';
import { PostgresFetcher, saveStoredData } from '../postgres-fetcher.js';
import { pgTestTable } from './pg-table.js';

// Runs against a real server only when GAVEL_TEST_PG names one, e.g. postgres://postgres@127.0.0.1:5432/test.
describe('PostgresFetcher', function () {
  const connectionString = process.env.GAVEL_TEST_PG;
  const { table, cleanUp } = pgTestTable('stored');
  let pool: pg.Pool;

  before(async function () {
    if (!connectionString) this.skip();
    pool = new pg.Pool({ connectionString, max: 2 });
    await migrateStoredData(pool, table);
    await saveStoredData(pool, 'request', 'req-1', { id: 'stored', tmax: 250 }, table);
    await saveStoredData(pool, 'imp', 'req-1', { id: 'an imp under the same id' }, table);
    await saveStoredData(pool, 'imp', 'imp-1', { id: 'imp', banner: { format: [{ w: 300, h: 250 }] } }, table);
    await saveStoredData(pool, 'account', 'acct', { id: 'acct', status: 'active' }, table);
  });

  after(async () => {
    if (!pool) return;
    await cleanUp(pool);
    await pool.end();
  });

  it('reads stored requests by id and leaves unknown ids out', async () => {
    const fetcher = new PostgresFetcher(pool, { table });
    const found = await fetcher.fetchRequests(['req-1', 'missing', 'req-1']);
    expect(Object.fromEntries(found)).to.deep.equal({ 'req-1': { id: 'stored', tmax: 250 } });
  });

  it('keeps imps apart from requests with the same id', async () => {
    const fetcher = new PostgresFetcher(pool, { table });
    const found = await fetcher.fetchImps(['req-1', 'imp-1']);
    expect(found.get('req-1')).to.deep.equal({ id: 'an imp under the same id' });
    expect(found.get('imp-1')).to.deep.equal({ id: 'imp', banner: { format: [{ w: 300, h: 250 }] } });
  });

  it('reads an account, undefined when there is none', async () => {
    const fetcher = new PostgresFetcher(pool, { table });
    expect(await fetcher.fetchAccount('acct')).to.deep.equal({ id: 'acct', status: 'active' });
    expect(await fetcher.fetchAccount('nobody')).to.equal(undefined);
  });

  it('reads stored responses apart from the other kinds', async () => {
    await saveStoredData(pool, 'response', 'req-1', { seatbid: [{ seat: 'alpha', bid: [] }] }, table);
    const fetcher = new PostgresFetcher(pool, { table });
    expect(Object.fromEntries(await fetcher.fetchResponses(['req-1', 'missing']))).to.deep.equal({ 'req-1': { seatbid: [{ seat: 'alpha', bid: [] }] } });
  });

  it('upserts: saving again replaces the document', async () => {
    await saveStoredData(pool, 'request', 'req-2', { v: 1 }, table);
    await saveStoredData(pool, 'request', 'req-2', { v: 2 }, table);
    const fetcher = new PostgresFetcher(pool, { table });
    expect((await fetcher.fetchRequests(['req-2'])).get('req-2')).to.deep.equal({ v: 2 });
  });

  it('runs host-supplied queries and parses JSON held as text', async () => {
    const fetcher = new PostgresFetcher(pool, {
      table,
      queries: { requests: `SELECT id, data::text AS data FROM ${table} WHERE kind = 'imp' AND id = ANY($1::text[])` },
    });
    const found = await fetcher.fetchRequests(['imp-1']);
    expect(found.get('imp-1')).to.deep.equal({ id: 'imp', banner: { format: [{ w: 300, h: 250 }] } });
  });

  it('throws a coded error when a query fails', async () => {
    const fetcher = new PostgresFetcher(pool, { queries: { imps: 'SELECT id, data FROM no_such_table WHERE id = ANY($1)' } });
    const error = await fetcher.fetchImps(['imp-1']).then(() => undefined, (err: unknown) => err);
    expect(error).to.have.property('code', ErrorCode.StoredFetchFailed);
  });

  it('throws a coded error when the server cannot be reached', async () => {
    const unreachable = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 500 });
    try {
      const error = await new PostgresFetcher(unreachable).fetchRequests(['x']).then(() => undefined, (err: unknown) => err);
      expect(error).to.have.property('code', ErrorCode.StoredFetchFailed);
    } finally {
      await unreachable.end();
    }
  });

  it('refuses a table name that is not a plain identifier', () => {
    expect(() => new PostgresFetcher(pool, { table: 'x; DROP TABLE y' })).to.throw(/invalid stored data table name/);
  });
});
