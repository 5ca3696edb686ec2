/**
 * Logs that talk, read from a real `gavel serve` process: at info one boot line saying which Gavel runs, from which
 * config file, where it listens and with which bidders and modules; at debug a line per bidder call (bidder,
 * status, duration, bytes, error code) and per hook outcome, each carrying the request id; every line JSON.
 */
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode } from '../../core/api/index.js';
import { bannerRequest, postJson } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { writeModulePackage } from '../support/module-package.js';
import { startServedGavel, type ServedGavel } from '../support/served-gavel.js';

const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));
const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

/** A loopback port nothing listens on: a bidder there refuses every connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('logs that talk', function () {
  this.timeout(60_000);
  let dir: string;
  let bidder: MockBidder;
  let gavel: ServedGavel;
  let refusedPort: number;
  let configFile: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-debug-log-'));
    // A module with one hook, so that the auction has a hook outcome to log.
    writeModulePackage(dir, 'acme-noop', "{ kind: 'module', code: 'acme.noop', version: '1.2.3', sdkVersion: '2.0.0', stages: ['processed-auction-request'], create: () => ({ 'processed-auction-request': { look: () => undefined } }) }");
    bidder = await startMockBidder();
    refusedPort = await closedPort();
    configFile = join(dir, 'gavel.yaml');
    writeFileSync(
      configFile,
      [
        'server: { port: 0, host: 127.0.0.1 }',
        'admin: { port: 0 }',
        'logging: { level: debug }',
        'plugins: [./acme-noop]',
        'modules:',
        '  acme.noop: { enabled: true }',
        // On by default; off here so the hook log holds only the module under test.
        "  prebid.floors: { enabled: false }",
        'bidders:',
        `  fast: { adapter: ortb, endpoint: "${bidder.url}/rtb?name=fast&price=1.5" }`,
        `  refused: { adapter: ortb, endpoint: "http://127.0.0.1:${refusedPort}/rtb" }`,
        `  slow: { adapter: ortb, endpoint: "${bidder.url}/rtb?name=slow&price=9&delayMs=2000" }`,
        '',
      ].join('\n'),
    );
    gavel = await startServedGavel(process.execPath, [cli, 'serve', '--config', configFile], { cwd: dir });
  });

  after(async () => {
    await gavel?.stop();
    await bidder?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('says at boot which Gavel runs, from which file, where, with which bidders and modules', async () => {
    const boot = await gavel.waitFor((line) => line.msg === 'gavel started');
    expect(boot).to.include({ level: 30, version, configFile });
    const listeners = boot.listeners as { public: string; admin: string };
    expect(listeners.public).to.equal(`http://127.0.0.1:${gavel.port}`);
    expect(listeners.admin).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
    const bidders = boot.bidders as Array<Record<string, unknown>>;
    expect(bidders.find((entry) => entry.name === 'refused')).to.include({ adapter: 'ortb', endpointHost: `127.0.0.1:${refusedPort}`, enabled: true });
    expect(bidders.find((entry) => entry.name === 'ix')).to.include({ adapter: 'ix', enabled: false });
    const modules = boot.modules as Array<Record<string, unknown>>;
    expect(modules.find((entry) => entry.code === 'acme.noop')).to.deep.equal({ code: 'acme.noop', version: '1.2.3', builtIn: false, enabled: true });
    expect(modules.find((entry) => entry.code === 'gavel.targeting')).to.include({ builtIn: true, enabled: true });
  });

  describe('an auction with a refused and a slow bidder, at debug', () => {
    let answer: Awaited<ReturnType<typeof postJson>>;
    before(async () => {
      answer = await postJson(`http://127.0.0.1:${gavel.port}/openrtb2/auction`, bannerRequest({ fast: {}, refused: {}, slow: {} }, { tmax: 300 }), { 'x-request-id': 'debug-log-1' });
    });

    it('answers with the fast bidder and errors for the other two', () => {
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['fast']);
      // Prebid Server's Go client error (*url.Error) has no code of its own: 999.
      expect(answer.json.ext.errors.refused[0]).to.deep.equal({ code: BidderErrorCode.Unknown, message: `Post "http://127.0.0.1:${refusedPort}/rtb": dial tcp 127.0.0.1:${refusedPort}: connect: connection refused` });
      expect(answer.json.ext.errors.slow[0].code).to.equal(BidderErrorCode.Timeout);
    });

    it('logs the refused call: bidder, duration, error code, no status', async () => {
      const line = await gavel.waitFor((entry) => entry.msg === 'bidder call' && entry.bidder === 'refused');
      expect(line).to.include({ level: 20, host: `127.0.0.1:${refusedPort}`, errorCode: BidderErrorCode.Unknown, requestId: 'debug-log-1' });
      expect(line.durationMs).to.be.a('number');
      expect(line).to.not.have.property('status');
      expect(String(line.error)).to.contain('connection refused');
    });

    it('logs the slow bidder: abandoned at the deadline, then its call ended by the timeout', async () => {
      const abandoned = await gavel.waitFor((entry) => entry.msg === 'bidder call abandoned at the deadline' && entry.bidder === 'slow');
      expect(abandoned).to.include({ level: 20, errorCode: BidderErrorCode.Timeout, requestId: 'debug-log-1' });
      const call = await gavel.waitFor((entry) => entry.msg === 'bidder call' && entry.bidder === 'slow');
      expect(call).to.include({ errorCode: BidderErrorCode.Timeout, requestId: 'debug-log-1' });
      // Ended by the auction's deadline (tmax 300 ms, counted from the request's arrival), so well inside the 1.5 s
      // the mock would have held it; how long after its send that was depends on the machine's load.
      expect(call.durationMs as number).to.be.above(0).and.below(1500);
    });

    it('logs the answered call with its status and bytes', async () => {
      const line = await gavel.waitFor((entry) => entry.msg === 'bidder call' && entry.bidder === 'fast');
      expect(line).to.include({ level: 20, status: 200, requestId: 'debug-log-1' });
      expect(line.bytes as number).to.be.greaterThan(50);
      expect(line).to.not.have.property('errorCode');
    });

    it('logs each hook outcome', async () => {
      const line = await gavel.waitFor((entry) => entry.msg === 'hook outcome');
      expect(line).to.include({ level: 20, stage: 'processed-auction-request', module: 'acme.noop', hook: 'look', status: 'success', action: 'no-op', requestId: 'debug-log-1' });
    });

    it('writes nothing but JSON lines through pino', () => {
      expect(gavel.lines.filter((line) => 'raw' in line)).to.deep.equal([]);
      expect(gavel.stderr()).to.equal('');
      for (const line of gavel.lines) expect(line).to.include.keys('level', 'time', 'msg');
    });
  });
});
