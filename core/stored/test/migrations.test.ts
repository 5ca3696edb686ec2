import { expect } from 'chai';
import pg from 'pg';
import { checkStoredDataSchema, LATEST_SCHEMA_VERSION, migrateStoredData } from '../migrations.js';

// Runs against a real server only when GAVEL_TEST_PG names one, e.g. postgres://postgres@127.0.0.1:5432/test. Each
// test works in a schema of its own, made empty and dropped after.
describe('stored data migrations (PostgreSQL)', function () {
  const connectionString = process.env.GAVEL_TEST_PG;
  let pool: pg.Pool;
  let schema: string;
  let count = 0;

  before(function () {
    if (!connectionString) this.skip();
    pool = new pg.Pool({ connectionString, max: 4 });
  });
  beforeEach(async function () {
    if (!pool) this.skip();
    schema = `gavel_migrations_${process.pid}_${++count}`;
    await pool.query(`CREATE SCHEMA ${schema}`);
  });
  afterEach(async () => {
    if (!pool || !schema) return;
    await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pool.query(`DELETE FROM gavel_schema_migrations WHERE subject LIKE $1`, [`${schema}.%`]).catch(() => undefined);
  });
  after(() => pool?.end());

  it('creates the schema on an empty database, and a second run changes nothing', async () => {
    const table = `${schema}.stored_requests`;
    const first = await migrateStoredData(pool, table);
    expect(first).to.deep.include({ from: 0, to: LATEST_SCHEMA_VERSION, repaired: [] });
    expect(first.applied.map((step) => step.version)).to.deep.equal([1, 2]);
    const second = await migrateStoredData(pool, table);
    expect(second).to.deep.include({ from: LATEST_SCHEMA_VERSION, to: LATEST_SCHEMA_VERSION, applied: [], repaired: [] });
    expect(await checkStoredDataSchema(pool, table)).to.deep.include({ ok: true, version: LATEST_SCHEMA_VERSION, pending: [], problems: [] });
  });

  it('reports an unmigrated database as pending, without changing it', async () => {
    const table = `${schema}.stored_requests`;
    const check = await checkStoredDataSchema(pool, table);
    expect(check.ok).to.equal(false);
    expect(check.pending.map((step) => step.version)).to.deep.equal([1, 2]);
    expect((await pool.query(`SELECT to_regclass($1) AS found`, [table])).rows[0].found).to.equal(null);
  });

  it('upgrades a table made with the first layout, keeping its documents and stamping them', async () => {
    const table = `${schema}.stored_requests`;
    await pool.query(`CREATE TABLE ${table} (kind text NOT NULL, id text NOT NULL, data jsonb NOT NULL, PRIMARY KEY (kind, id))`);
    await pool.query(`INSERT INTO ${table} (kind, id, data) VALUES ('request', 'kept', '{"tmax": 300}')`);
    const result = await migrateStoredData(pool, table);
    expect(result.applied.map((step) => step.version)).to.deep.equal([1, 2]);
    const { rows } = await pool.query(`SELECT data, updated_at FROM ${table} WHERE id = 'kept'`);
    expect(rows[0].data).to.deep.equal({ tmax: 300 });
    expect(rows[0].updated_at).to.be.instanceOf(Date);
  });

  it('stamps updated_at on every write and keeps a tombstone for each delete', async () => {
    const table = `${schema}.stored_requests`;
    await migrateStoredData(pool, table);
    await pool.query(`INSERT INTO ${table} (kind, id, data) VALUES ('imp', 'i1', '{}')`);
    const inserted = (await pool.query(`SELECT updated_at FROM ${table} WHERE id = 'i1'`)).rows[0].updated_at as Date;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await pool.query(`UPDATE ${table} SET data = '{"v": 2}' WHERE id = 'i1'`);
    const updated = (await pool.query(`SELECT updated_at FROM ${table} WHERE id = 'i1'`)).rows[0].updated_at as Date;
    expect(updated.getTime()).to.be.above(inserted.getTime());
    await pool.query(`DELETE FROM ${table} WHERE id = 'i1'`);
    const tombstones = (await pool.query(`SELECT kind, id FROM ${table}_deletions`)).rows;
    expect(tombstones).to.deep.equal([{ kind: 'imp', id: 'i1' }]);
  });

  it('finds a trigger dropped by hand, and the next migrate puts it back', async () => {
    const table = `${schema}.stored_requests`;
    await migrateStoredData(pool, table);
    await pool.query(`DROP TRIGGER stored_requests_changed ON ${table}`);
    const check = await checkStoredDataSchema(pool, table);
    expect(check.ok).to.equal(false);
    expect(check.problems).to.deep.equal([`trigger stored_requests_changed on ${table} is missing`]);
    const repair = await migrateStoredData(pool, table);
    expect(repair.repaired).to.deep.equal(check.problems);
    expect((await checkStoredDataSchema(pool, table)).ok).to.equal(true);
  });

  it('lets instances that migrate at the same moment take turns', async () => {
    const table = `${schema}.stored_requests`;
    const results = await Promise.all([migrateStoredData(pool, table), migrateStoredData(pool, table), migrateStoredData(pool, table)]);
    expect(results.map((result) => result.applied.length).sort()).to.deep.equal([0, 0, 2]);
  });
});
