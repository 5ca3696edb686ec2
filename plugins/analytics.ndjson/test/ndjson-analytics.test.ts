import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalyticsRecord } from '../../../core/api/index.js';
import { Tokens } from '../../../core/app/tokens.js';
import { REPORTED_PATHS, type AnalyticsGate } from '../../../core/analytics/index.js';
import { bannerRequest, getJson, postJson, startGavel, type RunningGavel } from '../../../test/support/gavel.js';
import { startMockBidder, type MockBidder } from '../../../test/support/mock-bidder.js';
import { AmpTestServer, storedAmpRequest } from '../../../test/amp/support.js';

describe('analytics.ndjson: every transaction as a JSON line', function () {
  this.timeout(20_000);
  let bidder: MockBidder;
  let dir: string;
  let gavel: RunningGavel | undefined;

  beforeEach(async () => {
    bidder = await startMockBidder();
    dir = mkdtempSync(join(tmpdir(), 'gavel-ndjson-'));
  });
  afterEach(async () => {
    await gavel?.close();
    gavel = undefined;
    await bidder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function boot(file: string, moduleConfig: Record<string, unknown> = {}, gate?: AnalyticsGate): Promise<RunningGavel> {
    gavel = await startGavel(
      {
        accounts: { defaults: { events: { enabled: true } } },
        modules: { 'analytics.ndjson': { enabled: true, config: { destination: file, ...moduleConfig } } },
        bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2` } },
      },
      gate ? { configure: (container) => void container.rebind(Tokens.AnalyticsGate).toConstantValue(gate) } : {},
    );
    return gavel;
  }

  /** Runs one transaction of each kind, closes Gavel (flushing the file) and reads its lines. */
  async function runTransactions(running: RunningGavel, file: string): Promise<Array<Record<string, any>>> {
    const auction = await postJson(`${running.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { id: 'auction-1', site: { page: 'https://pub.example/a', publisher: { id: 'pub-7' } }, user: { id: 'u-1' } }));
    expect(auction.status).to.equal(200);
    expect((await postJson(`${running.url}/cookie_sync`, { bidders: ['alpha'] })).status).to.be.oneOf([200, 400]);
    await getJson(`${running.url}/setuid?bidder=appnexus&uid=abc`);
    expect((await getJson(`${running.url}/event?t=win&b=bid-9&a=pub-7&bidder=alpha`)).status).to.equal(204);
    // Not for analytics: `x=0`.
    expect((await getJson(`${running.url}/event?t=imp&b=bid-9&a=pub-7&x=0`)).status).to.equal(204);
    await running.close();
    gavel = undefined;
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  }

  it('writes the auction, cookie sync, setuid and /event transactions, after their answers', async () => {
    const file = join(dir, 'nested', 'analytics.ndjson');
    const lines = await runTransactions(await boot(file), file);
    expect(lines.map((line) => line.type)).to.deep.equal(['auction', 'cookie-sync', 'setuid', 'event']);
    const [auction, cookieSync, setuid, event] = lines;
    expect(auction).to.include({ status: 200, accountId: 'pub-7' });
    expect(auction!.request.id).to.equal('auction-1');
    expect(auction!.response.seatbid[0].bid[0].price).to.equal(2);
    expect(auction!.account.id).to.equal('pub-7');
    expect(auction!.time).to.be.a('number');
    expect(cookieSync!.request).to.deep.equal({ bidders: ['alpha'] });
    expect(setuid).to.include({ bidder: 'appnexus', uid: 'abc' });
    expect(event!.event).to.include({ type: 'win', bidId: 'bid-9', accountId: 'pub-7', bidder: 'alpha' });
  });

  it('writes only the types it is configured for', async () => {
    const file = join(dir, 'events-only.ndjson');
    const lines = await runTransactions(await boot(file, { types: ['event', 'setuid'] }), file);
    expect(lines.map((line) => line.type)).to.deep.equal(['setuid', 'event']);
  });

  it('sees only what the analytics gate lets it see (the privacy seam)', async () => {
    const file = join(dir, 'gated.ndjson');
    const seen: string[] = [];
    const gate: AnalyticsGate = (record: AnalyticsRecord, module) => {
      seen.push(`${module}:${record.type}`);
      if (record.type === 'setuid') return undefined;
      if (record.type === 'auction' && record.request) return { ...record, request: { ...record.request, user: undefined } };
      return record;
    };
    const lines = await runTransactions(await boot(file, {}, gate), file);
    expect(seen).to.deep.equal(['analytics.ndjson:auction', 'analytics.ndjson:cookie-sync', 'analytics.ndjson:setuid', 'analytics.ndjson:event']);
    expect(lines.map((line) => line.type)).to.deep.equal(['auction', 'cookie-sync', 'event']);
    expect(lines[0]!.request).to.not.have.property('user');
  });

  it('skips an account that switches the module off (analytics.modules.<code>.enabled: false)', async () => {
    const off = join(dir, 'off.ndjson');
    gavel = await startGavel({
      accounts: { defaults: { events: { enabled: true }, analytics: { modules: { 'analytics.ndjson': { enabled: false } } } } },
      modules: { 'analytics.ndjson': { enabled: true, config: { destination: off } } },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2` } },
    });
    const lines = await runTransactions(gavel, off);
    // The account's transactions are not written; cookie sync and setuid load no account.
    expect(lines.map((line) => line.type)).to.deep.equal(['cookie-sync', 'setuid']);
  });

  it('writes an AMP transaction: the stored request as auctioned, the targeting answered', async () => {
    const file = join(dir, 'amp.ndjson');
    const amp = await AmpTestServer.start({
      stored: { 'tag-1': storedAmpRequest() },
      config: { modules: { 'analytics.ndjson': { enabled: true, config: { destination: file } } } },
    });
    const answer = await amp.get('tag_id=tag-1');
    expect(answer.status).to.equal(200);
    await amp.close();
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ type: 'amp', status: 200, accountId: 'stored-publisher' });
    expect(lines[0].request.id).to.equal('amp-stored-1');
    expect(lines[0].response.targeting).to.deep.equal(answer.json.targeting);
  });

  it('writes a video transaction: the OpenRTB request built from the pods, the pods answered', async () => {
    const file = join(dir, 'video.ndjson');
    const stored = join(dir, 'stored');
    mkdirSync(join(stored, 'imps'), { recursive: true });
    writeFileSync(join(stored, 'imps', 'pod.json'), JSON.stringify({ ext: { prebid: { bidder: { alpha: {} } } } }));
    const vast = encodeURIComponent('<VAST version="3.0"><Ad id="a"><InLine><AdSystem>mock</AdSystem></InLine></Ad></VAST>');
    gavel = await startGavel({
      storedRequests: { filesystem: { dir: stored } },
      modules: { 'analytics.ndjson': { enabled: true, config: { destination: file } } },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=3&mtype=2&dur=15&adm=${vast}` } },
    });
    const answer = await postJson(`${gavel.url}/openrtb2/video`, {
      podconfig: { durationrangesec: [15, 30], pods: [{ podid: 1, adpoddurationsec: 30, configid: 'pod' }] },
      site: { page: 'https://video.example/watch', publisher: { id: 'pub-v' } },
      video: { w: 640, h: 360, mimes: ['video/mp4'], protocols: [2, 3] },
    });
    expect(answer.status).to.equal(200);
    await gavel.close();
    gavel = undefined;
    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include({ type: 'video', status: 200, accountId: 'pub-v' });
    expect(lines[0].request.imp.length).to.be.at.least(1);
    expect(lines[0].response.adPods).to.deep.equal(answer.json.adPods);
  });

  it('reports every endpoint it names (no stale path)', async () => {
    const running = await boot(join(dir, 'unused.ndjson'));
    for (const key of Object.keys(REPORTED_PATHS)) {
      const [method, path] = key.split(' ') as [string, string];
      expect(running.app.http.routes.find(path)?.routes.methods.has(method), key).to.equal(true);
    }
  });
});
