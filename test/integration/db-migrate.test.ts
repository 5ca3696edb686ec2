import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));
const mocha = fileURLToPath(new URL('../../../node_modules/mocha/bin/mocha.js', import.meta.url));
const suites = ['postgres-fetcher', 'postgres-changes'].map((name) => fileURLToPath(new URL(`../../core/stored/test/${name}.test.js`, import.meta.url)));

function gavel(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 30_000 });
}

// Needs this machine's PostgreSQL (GAVEL_TEST_PG): makes an empty database of its own, and drops it after.
describe('gavel db migrate on an empty database', function () {
  this.timeout(120_000);
  const connectionString = process.env.GAVEL_TEST_PG;
  const database = `gavel_migrate_${process.pid}`;
  let admin: pg.Pool;
  let url: string;
  let config: string;

  before(async function () {
    if (!connectionString) this.skip();
    admin = new pg.Pool({ connectionString, max: 1 });
    await admin.query(`CREATE DATABASE ${database}`);
    const target = new URL(connectionString!);
    target.pathname = `/${database}`;
    url = target.href;
    config = join(mkdtempSync(join(tmpdir(), 'gavel-db-')), 'gavel.yaml');
    writeFileSync(config, `storedRequests:\n  postgres:\n    url: "${url}"\n`);
  });
  after(async () => {
    if (!admin) return;
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database]);
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  });

  it('check names the pending migrations; migrate applies them, then says the schema is current; check passes', () => {
    const before = gavel(['db', 'check', '--config', config]);
    expect(before.status, before.stderr).to.equal(1);
    expect(before.stdout).to.contain('stored_requests: schema version 0, latest 2');
    expect(before.stdout).to.contain('pending 1: stored data table');

    const first = gavel(['db', 'migrate', '--config', config]);
    expect(first.status, first.stderr).to.equal(0);
    expect(first.stdout).to.equal('stored_requests: schema version 0 -> 2\n  applied 1: stored data table\n  applied 2: updated_at, deletions and the change trigger\n');
    const second = gavel(['db', 'migrate', '--config', config]);
    expect(second.status, second.stderr).to.equal(0);
    expect(second.stdout).to.equal('stored_requests: schema is current (version 2)\n');

    const after = gavel(['db', 'check', '--config', config]);
    expect(after.status, after.stdout).to.equal(0);
    expect(after.stdout).to.equal('stored_requests: schema is current (version 2)\n');
  });

  it('then the PostgreSQL suites pass against the migrated table', () => {
    const run = spawnSync(process.execPath, [mocha, '--no-config', '--exit', '--timeout', '10000', ...suites], {
      encoding: 'utf8',
      env: { ...process.env, GAVEL_TEST_PG: url, GAVEL_TEST_PG_TABLE: 'stored_requests' },
      timeout: 90_000,
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(run.stdout).to.match(/\b(1\d|[2-9]\d) passing/);
    expect(run.stdout).to.not.match(/pending|failing/);
  });

  it('names the missing setting, with exit code 2, when no PostgreSQL is configured', () => {
    const result = gavel(['db', 'migrate'], { GAVEL_CONFIG: '' });
    expect(result.status).to.equal(2);
    expect(result.stderr).to.contain('storedRequests.postgres.url is not set');
  });

  it('fails with exit code 1 when the database cannot be reached', () => {
    const unreachable = join(mkdtempSync(join(tmpdir(), 'gavel-db-')), 'gavel.yaml');
    writeFileSync(unreachable, 'storedRequests:\n  postgres:\n    url: "postgres://postgres@127.0.0.1:1/none"\n');
    const result = gavel(['db', 'check', '--config', unreachable]);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.match(/^gavel: /);
  });
});
