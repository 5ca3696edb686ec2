import { expect } from 'chai';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { fetchAnswer, getJson, startGavel, type RunningGavel } from '../support/gavel.js';

/** A loopback port that is free now, and whose Redis cluster bus port (port + 10000) is free too. */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    const free = await Promise.all([port, port + 10_000].map((candidate) => new Promise<boolean>((resolve) => {
      const probe = createServer().once('error', () => resolve(false));
      probe.listen(candidate, '127.0.0.1', () => probe.close(() => resolve(true)));
    })));
    if (free.every(Boolean)) return port;
  }
}

const hasRedisServer = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * Runs `redis-server` in a scratch folder, on loopback: a server with the given arguments, or (given its config file)
 * a Sentinel. Resolves once it answers PING.
 */
async function startRedis(dir: string, port: number, args: string[], sentinelConfig?: string): Promise<ChildProcess> {
  const common = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
  const argv = sentinelConfig ? [sentinelConfig, '--sentinel', ...common] : [...common, '--save', '', '--appendonly', 'no', ...args];
  const child = spawn('redis-server', argv, { stdio: 'ignore' });
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  const started = Date.now();
  for (;;) {
    try {
      await client.connect().catch(() => undefined);
      await client.ping();
      break;
    } catch {
      if (Date.now() - started > 10_000) throw new Error(`redis-server on ${port} did not start`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  client.disconnect();
  return child;
}

function stopAll(children: ChildProcess[]): Promise<unknown> {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Puts values through one Gavel's `POST /cache` and reads each back through the other's `GET /cache`. */
async function writeThroughOneReadThroughOther(writer: RunningGavel, reader: RunningGavel, count: number): Promise<string[]> {
  const uuids: string[] = [];
  for (let batch = 0; batch < count / 10; batch++) {
    const puts = Array.from({ length: 10 }, (_, i) => ({ type: 'json', value: { n: batch * 10 + i }, ttlseconds: 60 }));
    const answer = await fetchAnswer(`${writer.url}/cache`, { method: 'POST', body: JSON.stringify({ puts }), headers: { 'content-type': 'application/json' } });
    expect(answer.status, answer.text).to.equal(200);
    uuids.push(...(answer.json.responses as Array<{ uuid: string }>).map((response) => response.uuid));
  }
  for (const [index, uuid] of uuids.entries()) {
    const read = await getJson(`${reader.url}/cache?uuid=${uuid}`);
    expect(read.status).to.equal(200);
    expect(read.json).to.deep.equal({ n: index });
  }
  return uuids;
}

describe('the bid cache past one Redis', function () {
  this.timeout(60_000);
  const keyPrefix = `gavel-topology-${process.pid}:`;

  describe('a three-node Redis Cluster on loopback', () => {
    let dir: string;
    const nodes: ChildProcess[] = [];
    let ports: number[] = [];
    const gavels: RunningGavel[] = [];

    before(async function () {
      if (!hasRedisServer) this.skip();
      dir = mkdtempSync(join(tmpdir(), 'gavel-redis-cluster-'));
      ports = [await freePort(), await freePort(), await freePort()];
      for (const port of ports) nodes.push(await startRedis(dir, port, ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '2000']));
      execFileSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore', timeout: 20_000 });
      const probe = new Redis({ port: ports[0], host: '127.0.0.1' });
      for (let i = 0; i < 100 && !/cluster_state:ok/.test(await probe.cluster('INFO')); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      probe.disconnect();
      const cluster = ports.map((port) => `redis://127.0.0.1:${port}`);
      for (let i = 0; i < 2; i++) gavels.push(await startGavel({ cache: { redis: { cluster, keyPrefix } } }));
    });
    after(async () => {
      await Promise.all(gavels.map((gavel) => gavel.close()));
      await stopAll(nodes);
      if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    });

    it('resolves ids written through one Gavel through another, while the keys spread over the nodes', async () => {
      await writeThroughOneReadThroughOther(gavels[0]!, gavels[1]!, 30);
      const keysPerNode = await Promise.all(
        ports.map(async (port) => {
          const node = new Redis({ port, host: '127.0.0.1' });
          try {
            return (await node.keys(`${keyPrefix}*`)).length;
          } finally {
            node.disconnect();
          }
        }),
      );
      expect(keysPerNode.reduce((sum, keys) => sum + keys, 0)).to.equal(30);
      expect(keysPerNode.filter((keys) => keys > 0).length, `keys per node: ${keysPerNode.join(', ')}`).to.be.at.least(2);
      expect(gavels[0]!.app.readiness.report().backends.cache).to.equal('up');
    });
  });

  describe('a Redis master found through a Sentinel', () => {
    let dir: string;
    const processes: ChildProcess[] = [];
    const gavels: RunningGavel[] = [];

    before(async function () {
      if (!hasRedisServer) this.skip();
      dir = mkdtempSync(join(tmpdir(), 'gavel-redis-sentinel-'));
      const [masterPort, sentinelPort] = [await freePort(), await freePort()];
      processes.push(await startRedis(dir, masterPort, []));
      const sentinelConfig = join(dir, 'sentinel.conf');
      writeFileSync(sentinelConfig, `sentinel monitor gavelmaster 127.0.0.1 ${masterPort} 1\nsentinel down-after-milliseconds gavelmaster 5000\n`);
      processes.push(await startRedis(dir, sentinelPort, [], sentinelConfig));
      const sentinel = { name: 'gavelmaster', sentinels: [`127.0.0.1:${sentinelPort}`] };
      for (let i = 0; i < 2; i++) gavels.push(await startGavel({ cache: { redis: { sentinel, keyPrefix } } }));
    });
    after(async () => {
      await Promise.all(gavels.map((gavel) => gavel.close()));
      await stopAll(processes);
      if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    });

    it('resolves ids written through one Gavel through another', async () => {
      await writeThroughOneReadThroughOther(gavels[0]!, gavels[1]!, 10);
    });
  });
});
