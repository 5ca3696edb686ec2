/**
 * `npm run cluster:local`: two Gavel instances on this machine's PostgreSQL and Redis with one shared config, the way
 * a host runs several behind a balancer. It migrates the stored-data schema (`gavel db migrate`), starts a simulated
 * bidder `alpha` on loopback, starts both instances, and prints their addresses, then a JSON line
 * `{"ready": true, "instances": [{"url", "admin"}, ...]}`; Ctrl-C (SIGINT/SIGTERM) stops everything.
 *
 *   --pg URL          PostgreSQL (default $GAVEL_TEST_PG, else postgres://postgres@127.0.0.1:5432/test)
 *   --redis URL       Redis (default $GAVEL_TEST_REDIS, else redis://127.0.0.1:6379)
 *   --table NAME      the stored-data table (default stored_requests)
 *   --ports A,B       public ports (default 8001,8002; 0 picks free ones)
 *   --admin-ports A,B admin ports (default 8061,8062; 0 picks free ones)
 *   --log-level L     the instances' logging.level (default info: their listening lines tell this script their ports)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startMockBidder } from './demo/simulated-bidder.js';

const cli = fileURLToPath(new URL('../core/app/cli.js', import.meta.url));

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1]! : fallback;
}

const pgUrl = option('pg', process.env.GAVEL_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/test');
const redisUrl = option('redis', process.env.GAVEL_TEST_REDIS ?? 'redis://127.0.0.1:6379');
const table = option('table', 'stored_requests');
const ports = option('ports', '8001,8002').split(',').map(Number);
const adminPorts = option('admin-ports', '8061,8062').split(',').map(Number);
const logLevel = option('log-level', 'info');

const dir = mkdtempSync(join(tmpdir(), 'gavel-cluster-local-'));
const configFile = join(dir, 'gavel.yaml');
const bidder = await startMockBidder();
writeFileSync(
  configFile,
  stringify({
    server: { host: '127.0.0.1' },
    logging: { level: logLevel },
    storedRequests: { postgres: { url: pgUrl, table } },
    cache: { redis: { url: redisUrl } },
    bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.50` } },
  }),
);

/** Runs `gavel db migrate` on the shared config and shows what it did. */
async function migrate(): Promise<void> {
  const child = spawn(process.execPath, [cli, 'db', 'migrate', '--config', configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout!.on('data', (chunk: Buffer) => process.stdout.write(`[migrate] ${chunk.toString()}`));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
  if (code !== 0) throw new Error(`gavel db migrate exited with ${code}`);
}

interface Instance {
  child: ChildProcess;
  url: string;
  admin: string;
}

/** Starts one instance and resolves once both of its listeners said where they are. */
function startInstance(index: number): Promise<Instance> {
  const env = {
    ...process.env,
    GAVEL_SERVER__PORT: String(ports[index] ?? 0),
    GAVEL_ADMIN__PORT: String(adminPorts[index] ?? 0),
    ...(ports[index] ? { GAVEL_SERVER__EXTERNALURL: `http://127.0.0.1:${ports[index]}` } : {}),
  };
  const child = spawn(process.execPath, [cli, 'serve', '--config', configFile], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const name = `gavel-${index + 1}`;
  createInterface({ input: child.stderr! }).on('line', (line) => process.stderr.write(`[${name}] ${line}\n`));
  return new Promise((resolve, reject) => {
    let publicPort: number | undefined;
    let adminPort: number | undefined;
    createInterface({ input: child.stdout! }).on('line', (line) => {
      process.stdout.write(`[${name}] ${line}\n`);
      if (line.includes('"msg":"gavel listening"')) publicPort = Number(/"port":(\d+)/.exec(line)?.[1]);
      if (line.includes('"msg":"admin endpoints listening"')) adminPort = Number(/"port":(\d+)/.exec(line)?.[1]);
      if (publicPort && adminPort) {
        resolve({ child, url: `http://127.0.0.1:${publicPort}`, admin: `http://127.0.0.1:${adminPort}` });
        publicPort = adminPort = undefined;
      }
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
  });
}

const instances: Instance[] = [];
let stopping = false;
async function stop(code = 0): Promise<never> {
  stopping = true;
  await Promise.all(
    instances.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
  await bidder.close();
  process.exit(code);
}
process.once('SIGINT', () => void stop());
process.once('SIGTERM', () => void stop());

try {
  await migrate();
  instances.push(...(await Promise.all([0, 1].map(startInstance))));
} catch (err) {
  console.error(`cluster:local: ${(err as Error).message}`);
  await stop(1);
}
for (const [index, { child }] of instances.entries()) {
  child.once('exit', (code) => {
    if (stopping) return;
    console.error(`cluster:local: gavel-${index + 1} exited with ${code}; stopping`);
    void stop(1);
  });
}
console.log(`\nTwo Gavel instances share ${pgUrl} (table ${table}) and ${redisUrl}; bidder alpha is simulated at ${bidder.url}.`);
for (const [index, { url, admin }] of instances.entries()) console.log(`  gavel-${index + 1}: ${url}  (admin ${admin}: /health, /metrics, POST /stored/invalidate)`);
console.log(`Store a request with: psql ${pgUrl} -c "INSERT INTO ${table} (kind, id, data) VALUES ('request', 'r1', '{\\"imp\\":[{\\"id\\":\\"1\\",\\"banner\\":{\\"format\\":[{\\"w\\":300,\\"h\\":250}]},\\"ext\\":{\\"alpha\\":{}}}]}')"`);
console.log('Ctrl-C stops both.');
console.log(JSON.stringify({ ready: true, instances: instances.map(({ url, admin }) => ({ url, admin })), bidder: bidder.url }));
