import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createStoredDataTable, saveStoredData } from '../../core/stored/index.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

/** Two publishers on one Gavel, as Prebid Server account JSON: what each answer must show. */
const ACCOUNTS: Record<string, unknown> = {
  // Buckets of 0.50, debug output allowed.
  'news-site': { price_granularity: 'low', debug_allow: true },
  // Buckets of 0.01 up to 3, debug output not allowed.
  'blog-site': { price_granularity: 'dense', debug_allow: false },
  'closed-site': { disabled: true },
  'broken-site': { disabled: 'yes' },
};

/** A request of `account` for targeting, asking for debug output; the bidder bids 1.87. */
function accountRequest(account: string | undefined): Record<string, unknown> {
  return bannerRequest(
    { alpha: { zone: 1 } },
    { site: { page: 'https://publisher.example/a', ...(account && { publisher: { id: account } }) }, test: 1, ext: { prebid: { targeting: {} } } },
  );
}

function runsEachAccountAsConfigured(servers: { gavel: RunningGavel }): void {
  it('buckets each account under its own price granularity', async () => {
    const news = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest('news-site'));
    const blog = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest('blog-site'));
    expect(news.status, news.text).to.equal(200);
    expect(blog.status, blog.text).to.equal(200);
    expect(news.json.seatbid[0].bid[0].ext.prebid.targeting.hb_pb).to.equal('1.50');
    expect(blog.json.seatbid[0].bid[0].ext.prebid.targeting.hb_pb).to.equal('1.87');
  });

  it('gives debug output only to the account that allows it, and tells the other why', async () => {
    const news = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest('news-site'));
    expect(news.json.ext.debug.httpcalls.alpha).to.have.length(1);
    expect(news.json.ext.debug.resolvedrequest.site.publisher.id).to.equal('news-site');
    expect(news.json.ext.warnings).to.equal(undefined);

    const blog = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest('blog-site'));
    expect(blog.json.ext.debug).to.equal(undefined);
    expect(blog.json.ext.warnings.general).to.deep.equal([{ code: 10002, message: 'debug turned off for account' }]);
  });

  it("refuses the disabled account with a 503, and the malformed one with a 503 in Prebid Server's words", async () => {
    const closed = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest('closed-site'));
    expect(closed.status).to.equal(503);
    expect(closed.text).to.equal('Invalid request: Prebid-server has disabled Account ID: closed-site, please reach out to the prebid server host.\n');
    const broken = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest('broken-site'));
    expect(broken.status).to.equal(503);
    expect(broken.text).to.equal('Invalid request: The prebid-server account config for account id "broken-site" is malformed. Please reach out to the prebid server host.\n');
  });

  it('runs a request naming no account, or an account it does not know, on the host defaults', async () => {
    for (const account of [undefined, 'unknown-site']) {
      const answer = await postJson(`${servers.gavel.url}/openrtb2/auction`, accountRequest(account));
      expect(answer.status, answer.text).to.equal(200);
      // The host default granularity (med) and the host default debug permission (allowed).
      expect(answer.json.seatbid[0].bid[0].ext.prebid.targeting.hb_pb).to.equal('1.80');
      expect(answer.json.ext.debug.httpcalls.alpha).to.have.length(1);
    }
  });
}

describe('accounts: two publishers on one Gavel (accounts/<id>.json)', () => {
  const servers = {} as { gavel: RunningGavel; bidder: MockBidder };
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-accounts-'));
    mkdirSync(join(dir, 'accounts'));
    for (const [id, account] of Object.entries(ACCOUNTS)) writeFileSync(join(dir, 'accounts', `${id}.json`), JSON.stringify(account));
    servers.bidder = await startMockBidder();
    servers.gavel = await startGavel({
      bidders: { alpha: { adapter: 'ortb', endpoint: `${servers.bidder.url}/rtb?name=alpha&price=1.87` } },
      storedRequests: { filesystem: { dir } },
    });
  });
  after(async () => {
    await servers.gavel?.close();
    await servers.bidder?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  runsEachAccountAsConfigured(servers);

  it('refuses a request naming no account when the host requires one, naming the field to set', async () => {
    const strict = await startGavel({
      accounts: { required: true },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${servers.bidder.url}/rtb?name=alpha&price=1.87` } },
      storedRequests: { filesystem: { dir } },
    });
    try {
      const anonymous = await postJson(`${strict.url}/openrtb2/auction`, accountRequest(undefined));
      expect(anonymous.status).to.equal(400);
      expect(anonymous.text).to.contain('Set site.publisher.id');
      const named = await postJson(`${strict.url}/openrtb2/auction`, accountRequest('news-site'));
      expect(named.status).to.equal(200);
    } finally {
      await strict.close();
    }
  });
});

// Runs against a real server only when GAVEL_TEST_PG names one, e.g. postgres://postgres@127.0.0.1:5432/test.
describe('accounts: two publishers on one Gavel (PostgreSQL)', function () {
  const connectionString = process.env.GAVEL_TEST_PG;
  const table = `gavel_accounts_test_${process.pid}`;
  const servers = {} as { gavel: RunningGavel; bidder: MockBidder };
  let pool: pg.Pool;
  before(async function () {
    if (!connectionString) this.skip();
    pool = new pg.Pool({ connectionString, max: 2 });
    await createStoredDataTable(pool, table);
    for (const [id, account] of Object.entries(ACCOUNTS)) await saveStoredData(pool, 'account', id, account, table);
    servers.bidder = await startMockBidder();
    servers.gavel = await startGavel({
      bidders: { alpha: { adapter: 'ortb', endpoint: `${servers.bidder.url}/rtb?name=alpha&price=1.87` } },
      storedRequests: { postgres: { url: connectionString, accountsQuery: `SELECT data FROM ${table} WHERE kind = 'account' AND id = $1` } },
    });
  });
  after(async () => {
    await servers.gavel?.close();
    await servers.bidder?.close();
    if (!pool) return;
    await pool.query(`DROP TABLE IF EXISTS ${table}`);
    await pool.end();
  });

  runsEachAccountAsConfigured(servers);
});
