import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson } from '../support/gavel.js';
import { eventually } from '../support/eventually.js';

const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));

function writeConfig(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'gavel-cli-')), 'gavel.yaml');
  writeFileSync(file, text);
  return file;
}

function gavel(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 20_000 });
}

/** Binds the port and lets it go again, trying until `withinMs` has passed: whether it was free in that time. */
async function bindWithin(port: number, withinMs: number): Promise<boolean> {
  const until = performance.now() + withinMs;
  while (performance.now() < until) {
    const bound = await new Promise<boolean>((resolve) => {
      const probe = createNetServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (bound) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** Starts `gavel serve` and resolves with the port it logged; `output` resolves with what it logged up to `gavel started`. */
function serve(config: string): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null>; output: Promise<string> }> {
  const child = spawn(process.execPath, [cli, 'serve', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let started: (text: string) => void;
  const startedOutput = new Promise<string>((resolve) => (started = resolve));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"gavel started"')) started(output);
      const match = output.match(/"port":(\d+)[^\n]*"msg":"gavel listening"/);
      if (match) resolve({ child, port: Number(match[1]), exited, output: startedOutput });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`gavel exited with ${code}: ${output}`)));
  });
}

describe('gavel CLI', () => {
  it('validate-config accepts a good file', () => {
    const result = gavel(['validate-config', writeConfig('server:\n  port: 9100\nbidders:\n  alpha: { adapter: ortb, endpoint: "http://127.0.0.1:1/bid" }\n')]);
    expect(result.stdout).to.contain('valid');
    expect(result.status).to.equal(0);
  });

  it('validate-config exits non-zero naming an unknown key', () => {
    const result = gavel(['validate-config', writeConfig('server:\n  prot: 1\n')]);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.contain('GAVEL_E_CONFIG_INVALID').and.contain('server.prot');
  });

  it('validate-config exits non-zero naming an unknown stage', () => {
    const result = gavel(['validate-config', writeConfig('hooks:\n  hostExecutionPlan:\n    endpoints:\n      /openrtb2/auction:\n        stages:\n          bidder-requests: {}\n')]);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.contain('hooks.hostExecutionPlan.endpoints./openrtb2/auction.stages.bidder-requests');
  });

  it('validate-config names a bidder on an adapter that is not installed', () => {
    const result = gavel(['validate-config', writeConfig('bidders:\n  zeta: { adapter: nope, endpoint: "http://127.0.0.1:1/" }\n')]);
    expect(result.status).to.equal(1);
    expect(result.stderr).to.contain('GAVEL_E_BIDDER_UNKNOWN_ADAPTER').and.contain('bidders.zeta');
  });

  it('plugins lists adapters and modules with version, kind, hook points and stages', () => {
    const result = gavel(['plugins']);
    expect(result.status).to.equal(0);
    expect(result.stdout).to.match(/^ortb\s+1\.0\.0\s+adapter/m);
    expect(result.stdout).to.match(/^gavel\.validation\s+\S+\s+module \(built-in\)\s+request-validation/m);
  });

  describe('serve', function () {
    this.timeout(20_000);
    let bidder: MockBidder;
    before(async () => {
      bidder = await startMockBidder();
    });
    after(async () => bidder?.close());

    it('answers /status, then on SIGTERM finishes the in-flight auction and exits 0', async () => {
      const config = writeConfig(`server:\n  port: 0\n  host: 127.0.0.1\n  drainTimeoutMs: 3000\nadmin:\n  port: 0\nbidders:\n  slow: { adapter: ortb, endpoint: "${bidder.url}/rtb?name=slow&price=1&delayMs=400" }\n`);
      const { child, port, exited } = await serve(config);
      const status = await fetch(`http://127.0.0.1:${port}/status`);
      expect(status.status).to.equal(200);
      const inFlight = postJson(`http://127.0.0.1:${port}/openrtb2/auction`, bannerRequest({ slow: {} }, { tmax: 1000 }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGTERM');
      const answer = await inFlight;
      expect(answer.status).to.equal(200);
      expect(answer.json.seatbid[0].seat).to.equal('slow');
      expect(await exited).to.equal(0);
    });

    it('on SIGTERM with dripping bidders pending: answers every in-flight auction with Connection: close, releases the admin port at once, exits within drainTimeoutMs + 500 ms', async () => {
      const drainTimeoutMs = 1500;
      const config = writeConfig(
        `server:\n  port: 0\n  host: 127.0.0.1\n  drainTimeoutMs: ${drainTimeoutMs}\nadmin:\n  port: 0\n  host: 127.0.0.1\nlogging:\n  level: info\nbidders:\n` +
          `  healthy: { adapter: ortb, endpoint: "${bidder.url}/rtb?name=healthy&price=1&delayMs=200" }\n  dripping: { adapter: ortb, endpoint: "${bidder.url}/rtb?dripMs=100" }\n`,
      );
      const { child, port, exited, output } = await serve(config);
      const adminPort = Number(/"admin":"http:\/\/127\.0\.0\.1:(\d+)"/.exec(await output)![1]);
      const healthyCalls = () => bidder.received.filter((call) => call.url.includes('name=healthy')).length;
      const before = healthyCalls();
      const auctions = Array.from({ length: 8 }, () => postJson(`http://127.0.0.1:${port}/openrtb2/auction`, bannerRequest({ healthy: {}, dripping: {} }, { tmax: 1000 })));
      // Every auction is in flight (its bidders called) before the signal: a request still on the wire when the
      // listener closes idle connections would be reset, as any draining server does.
      await eventually('auctions in flight', healthyCalls, (count) => count >= before + 8, 5000);
      const signalledAt = performance.now();
      child.kill('SIGTERM');
      // The admin port is free while the auctions are still out: another process may bind it.
      const rebound = await bindWithin(adminPort, 500);
      expect(rebound, 'admin port free within 500 ms of SIGTERM').to.equal(true);
      const answers = await Promise.all(auctions);
      for (const answer of answers) {
        expect(answer.status).to.equal(200);
        expect(answer.json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['healthy']);
        expect(answer.json.ext.errors.dripping[0].code).to.equal(1);
        expect(answer.headers.get('connection')).to.equal('close');
      }
      expect(await exited).to.equal(0);
      expect(performance.now() - signalledAt).to.be.below(drainTimeoutMs + 500);
    });

    it('takes config from GAVEL_* variables', async () => {
      const config = writeConfig('server:\n  host: 127.0.0.1\n');
      const child = spawn(process.execPath, [cli, 'serve', '--config', config], { env: { ...process.env, GAVEL_SERVER__PORT: '0', GAVEL_ADMIN__PORT: '0', GAVEL_LOGGING__LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe'] });
      const port = await new Promise<number>((resolve, reject) => {
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = output.match(/"port":(\d+)/);
          if (match) resolve(Number(match[1]));
        });
        child.once('exit', () => reject(new Error(output)));
      });
      expect(port).to.be.above(0);
      child.kill('SIGTERM');
    });
  });
});
