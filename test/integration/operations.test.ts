import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { fetchAnswer, getJson, postJson } from '../support/gavel.js';
import { serveGavel, type LogLine, type ServedGavel } from '../support/served.js';

/** Where a stored request cannot be read: a folder stands where its file should be (the backend fails, not the document). */
const UNREADABLE = Symbol('unreadable');

/** A folder of stored data: `requests/<id>.json` for each document given. */
function storedFolder(requests: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gavel-ops-stored-'));
  mkdirSync(join(dir, 'requests'));
  for (const [id, document] of Object.entries(requests)) {
    if (document === UNREADABLE) mkdirSync(join(dir, 'requests', `${id}.json`));
    else writeFileSync(join(dir, 'requests', `${id}.json`), JSON.stringify(document));
  }
  return dir;
}

const storedRequest = (tmax: number) => ({
  tmax,
  site: { page: 'https://news.example/a', publisher: { id: 'pub-9' } },
  imp: [{ id: 'slot-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {} } }],
});

const accessLines = (served: ServedGavel) => served.lines.filter((line) => line.msg === 'access');

describe('operating a served Gavel', function () {
  this.timeout(60_000);
  let bidder: MockBidder;
  let served: ServedGavel | undefined;
  before(async () => {
    bidder = await startMockBidder();
  });
  after(() => bidder?.close());
  afterEach(() => served?.stop());

  const config = (dir: string, extra = '') =>
    `server: { port: 0, host: 127.0.0.1 }\nadmin: { port: 0 }\nlogging: { level: info }\n` +
    `storedRequests: { filesystem: { dir: "${dir}", watch: false } }\n` +
    `bidders:\n  alpha: { adapter: ortb, endpoint: "${bidder.url}/rtb?name=alpha&price=1.5" }\n${extra}`;

  describe('request ids and the access log', () => {
    it('echoes a sent X-Request-Id, makes one otherwise, and writes one access line per request carrying it', async () => {
      served = await serveGavel(config(storedFolder({ good: storedRequest(400) })).replace('logging: { level: info }', 'logging: { level: info, accessLog: { sampleRate: 1 } }'));
      const sent = await postJson(`${served.url}/openrtb2/auction`, { id: 'a', ext: { prebid: { storedrequest: { id: 'good' } } } }, { 'x-request-id': 'edge-7f3a' });
      expect(sent.status).to.equal(200);
      expect(sent.headers.get('x-request-id')).to.equal('edge-7f3a');
      const made = await getJson(`${served.url}/status`);
      const madeId = made.headers.get('x-request-id');
      expect(madeId).to.match(/^[0-9a-f-]{36}$/);
      const replaced = await getJson(`${served.url}/status`, { 'x-request-id': 'has spaces in it' });
      expect(replaced.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);

      const auctionLine = await served.waitForLine((line) => line.msg === 'access' && line.requestId === 'edge-7f3a');
      expect(auctionLine).to.include({ method: 'POST', path: '/openrtb2/auction', route: '/openrtb2/auction', status: 200, account: 'pub-9', log: 'access' });
      expect(auctionLine.bidders).to.deep.equal(['alpha']);
      expect(auctionLine.durationMs).to.be.a('number');
      expect(auctionLine.bytesIn).to.be.above(0);
      expect(auctionLine.bytesOut).to.equal(Buffer.byteLength(sent.text));
      await served.waitForLine((line) => line.msg === 'access' && line.requestId === madeId && line.path === '/status' && line.status === 200);
    });

    it('puts the request id in every line the request logs: a stored-data failure names it', async () => {
      served = await serveGavel(config(storedFolder({ broken: UNREADABLE })));
      const answer = await postJson(`${served.url}/openrtb2/auction`, { id: 'a', ext: { prebid: { storedrequest: { id: 'broken' } } } }, { 'x-request-id': 'req-broken-1' });
      expect(answer.status).to.equal(503);
      expect(answer.text).to.equal('Stored data is unavailable (stored request "broken": the backend failed); try again.\n');
      const failure = await served.waitForLine((line) => line.msg === 'stored data backend failed');
      expect(failure.requestId).to.equal('req-broken-1');
      expect((failure.err as { message: string }).message).to.contain('EISDIR');
    });

    it('samples the access log when asked, always keeping answers of 500 and above, and can be switched off', async () => {
      served = await serveGavel(config(storedFolder({ broken: UNREADABLE }), 'logging: { level: info, accessLog: { sampleRate: 0 } }\n').replace('logging: { level: info }\n', ''));
      for (let i = 0; i < 5; i++) await getJson(`${served.url}/status`);
      await postJson(`${served.url}/openrtb2/auction`, { id: 'a', ext: { prebid: { storedrequest: { id: 'broken' } } } }, { 'x-request-id': 'kept-503' });
      await served.waitForLine((line) => line.msg === 'access' && line.requestId === 'kept-503' && line.status === 503);
      expect(accessLines(served).filter((line) => line.status === 200)).to.deep.equal([]);
    });
  });

  describe('SIGHUP', () => {
    it('reloads the file: applies what can change live, names what needs a restart, refuses an invalid file, never stops', async () => {
      served = await serveGavel(config(storedFolder({})).replace('logging: { level: info }', 'logging: { level: info, accessLog: { sampleRate: 1 } }'));
      for (let i = 0; i < 3; i++) await getJson(`${served.url}/status`);
      await served.waitForLine((line) => line.msg === 'access' && line.path === '/status');

      writeFileSync(served.configFile, config(storedFolder({})).replace('logging: { level: info }', 'logging: { level: warn, accessLog: { enabled: false } }').replace('port: 0, host', 'port: 0, maxRequestBytes: 100000, host'));
      served.child.kill('SIGHUP');
      const restart = await served.waitForLine((line) => line.msg === 'config changes that take a restart were not applied');
      expect(restart.keys).to.include('server.maxRequestBytes');
      expect(restart.keys).to.include('storedRequests.filesystem.dir');
      const before = accessLines(served).length;
      for (let i = 0; i < 3; i++) expect((await getJson(`${served.url}/status`)).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(accessLines(served).length, 'the access log was switched off live').to.equal(before);

      writeFileSync(served.configFile, 'server: { prot: 1 }\n');
      served.child.kill('SIGHUP');
      const refused = await served.waitForLine((line) => line.msg === 'config reload refused: the file is invalid; nothing changed');
      expect(refused.code).to.equal('GAVEL_E_CONFIG_INVALID');
      expect((await getJson(`${served.url}/status`)).status).to.equal(200);
      expect(served.child.exitCode).to.equal(null);
    });

    it('with workers, the primary validates the file and passes the reload on to every worker', async () => {
      served = await serveGavel(config(storedFolder({})).replace('port: 0, host', 'port: 0, workers: 2, host'));
      await served.waitForLine((line) => line.msg === 'gavel listening' && line.worker === 2, 30_000);
      await served.waitForLine((line) => line.msg === 'gavel listening' && line.worker === 1, 30_000);
      writeFileSync(served.configFile, config(storedFolder({})).replace('port: 0, host', 'port: 0, workers: 2, host').replace('level: info', 'level: debug'));
      served.child.kill('SIGHUP');
      const reloaded = (worker: number) => (line: LogLine) => line.msg === 'config reloaded' && line.worker === worker;
      expect((await served.waitForLine(reloaded(1))).applied).to.include('logging.level');
      expect((await served.waitForLine(reloaded(2))).applied).to.include('logging.level');
      expect((await getJson(`${served.url}/status`)).status).to.equal(200);
    });
  });

  describe('POST /stored/invalidate on the admin port', () => {
    it('drops the named stored documents (or all) from the cache, so a changed one is served at once', async () => {
      const dir = storedFolder({ r1: storedRequest(400) });
      served = await serveGavel(config(dir));
      const tmaxServed = async () => (await postJson(`${served!.url}/openrtb2/auction`, { id: 'a', ext: { prebid: { storedrequest: { id: 'r1' } } } })).json.ext.tmaxrequest as number;
      expect(await tmaxServed()).to.equal(400);
      writeFileSync(join(dir, 'requests', 'r1.json'), JSON.stringify(storedRequest(450)));
      expect(await tmaxServed(), 'cached, and the folder is not watched').to.equal(400);

      const invalidate = (body: string) => fetchAnswer(`${served!.admin}/stored/invalidate`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      const done = await invalidate('{"requests": ["r1"]}');
      expect(done.status).to.equal(200);
      expect(done.json).to.deep.equal({ invalidated: 1 });
      expect(await tmaxServed()).to.equal(450);

      writeFileSync(join(dir, 'requests', 'r1.json'), JSON.stringify(storedRequest(500)));
      expect((await invalidate('{"all": true}')).json).to.deep.equal({ invalidated: 'all' });
      expect(await tmaxServed()).to.equal(500);

      const bad = await invalidate('{"request": ["r1"]}');
      expect(bad.status).to.equal(400);
      expect(bad.text).to.contain('unknown member "request"');
      expect((await getJson(`${served.admin}/stored/invalidate`)).status).to.equal(405);
      expect((await postJson(`${served.url}/stored/invalidate`, { all: true })).status, 'never on the public port').to.equal(404);
    });

    it('through the cluster primary, reaches every worker', async () => {
      const dir = storedFolder({ r1: storedRequest(400) });
      served = await serveGavel(config(dir).replace('port: 0, host', 'port: 0, workers: 2, host'));
      await served.waitForLine((line) => line.msg === 'gavel listening' && line.worker === 2, 30_000);
      await served.waitForLine((line) => line.msg === 'gavel listening' && line.worker === 1, 30_000);
      // Fresh connections, so both workers serve (and cache) the document.
      const tmaxServed = async () =>
        (await postJson(`${served!.url}/openrtb2/auction`, { id: 'a', ext: { prebid: { storedrequest: { id: 'r1' } } } }, { connection: 'close' })).json.ext.tmaxrequest as number;
      for (let i = 0; i < 6; i++) expect(await tmaxServed()).to.equal(400);
      writeFileSync(join(dir, 'requests', 'r1.json'), JSON.stringify(storedRequest(450)));
      const done = await fetchAnswer(`${served.admin}/stored/invalidate`, { method: 'POST', body: '{"requests": ["r1"]}' });
      expect(done.status).to.equal(200);
      await served.waitForLine((line) => line.msg === 'stored data invalidated' && line.worker === 1);
      await served.waitForLine((line) => line.msg === 'stored data invalidated' && line.worker === 2);
      for (let i = 0; i < 6; i++) expect(await tmaxServed()).to.equal(450);
    });
  });
});
