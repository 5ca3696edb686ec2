/**
 * The published route, end to end, as docs/adapters.md and docs/modules.md (section 10 of each) describe it: Gavel
 * is packed with `npm pack` as it is published, an empty host folder installs it, two authors build their plugins
 * (the adapter guide's example adapter and the module guide's example module) against the installed Gavel's SDK
 * types and pack them, the host installs both tarballs, names them in its config, and `npx gavel` serves auctions
 * through both. No network: a registry on 127.0.0.1 stands in for npm's, serving Gavel's own dependencies.
 */
import { expect } from 'chai';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml, parse as parseYaml } from 'yaml';
import { titledSnippets } from '../support/doc-snippets.js';
import { startLocalRegistry, type LocalRegistry } from '../support/local-registry.js';
import { bannerRequest, postJson } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { startServedGavel, type ServedGavel } from '../support/served-gavel.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const gavelPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

function guide(name: string): Map<string, string> {
  return titledSnippets(readFileSync(join(ROOT, 'docs', name), 'utf8'));
}

function snippet(snippets: Map<string, string>, title: string, guideName: string): string {
  const text = snippets.get(title);
  if (text === undefined) throw new Error(`${guideName} has no snippet titled ${title}`);
  return text;
}

describe('plugins packed with npm pack, installed into a host folder as the docs say', function () {
  this.timeout(180_000);
  let work: string;
  let host: string;
  let registry: LocalRegistry;
  let bidder: MockBidder;
  let served: ServedGavel | undefined;
  const tarballs: Record<string, string> = {};

  /**
   * npm as the host runs it, against the stand-in registry and a cache of this test's own. Never synchronously: the
   * registry answers from this process.
   */
  async function npm(args: string[], cwd: string): Promise<string> {
    const { stdout } = await run('npm', args, {
      cwd,
      encoding: 'utf8',
      env: {
        ...process.env,
        npm_config_registry: registry.url,
        npm_config_cache: join(work, 'npm-cache'),
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        npm_config_loglevel: 'error',
      },
    });
    return stdout;
  }

  /** `npm pack` in a folder: the tarball's path. */
  async function pack(folder: string, ignoreScripts = false): Promise<string> {
    const out = await npm(['pack', '--json', '--pack-destination', work, ...(ignoreScripts ? ['--ignore-scripts'] : [])], folder);
    const [{ filename }] = JSON.parse(out) as Array<{ filename: string }>;
    return join(work, filename);
  }

  /** A plugin author's folder: sources, the guide's package.json and tsconfig.json, Gavel installed beside it, tsc. */
  function buildPlugin(name: string, files: Record<string, string>): string {
    const folder = join(work, 'authors', name);
    mkdirSync(folder, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text);
    // The author's `npm install --save-dev gavel-auction`: the same installed package the host has.
    symlinkSync(join(host, 'node_modules'), join(folder, 'node_modules'), 'dir');
    execFileSync(process.execPath, [TSC, '-p', join(folder, 'tsconfig.json')], { cwd: folder, encoding: 'utf8', stdio: 'pipe' });
    return folder;
  }

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'gavel-packed-'));
    registry = await startLocalRegistry(ROOT);
    bidder = await startMockBidder();
    const adapterGuide = guide('adapters.md');
    const moduleGuide = guide('modules.md');

    // Gavel as published. `npm test` has just built dist/, so the build script (`prepare`) is not run again.
    tarballs.gavel = await pack(ROOT, true);

    // The host: an empty folder, then Gavel from its tarball.
    host = join(work, 'my-gavel');
    mkdirSync(host);
    writeFileSync(join(host, 'package.json'), JSON.stringify({ name: 'my-gavel', version: '1.0.0', private: true }, null, 2));
    await npm(['install', tarballs.gavel], host);

    // The authors build against the installed Gavel's declarations, then pack.
    const tsconfig = snippet(adapterGuide, 'tsconfig.json', 'docs/adapters.md');
    const example = join(ROOT, 'test', 'external', 'acme-gavel-adapter');
    const adapter = buildPlugin('acme-gavel-adapter', {
      'package.json': snippet(adapterGuide, 'package.json', 'docs/adapters.md'),
      'tsconfig.json': tsconfig,
      'index.ts': readFileSync(join(example, 'index.ts'), 'utf8'),
      'acme.ts': readFileSync(join(example, 'acme.ts'), 'utf8'),
    });
    cpSync(join(example, 'params.schema.json'), join(adapter, 'params.schema.json'));
    tarballs.adapter = await pack(adapter);
    const module = buildPlugin('acme-gavel-page-guard', {
      'package.json': snippet(moduleGuide, 'package.json', 'docs/modules.md'),
      'tsconfig.json': tsconfig,
      'index.ts': snippet(moduleGuide, 'index.ts', 'docs/modules.md'),
    });
    tarballs.module = await pack(module);

    // The host installs both plugins and names them in its config: the adapter guide's, the module guide's, and
    // what a test must add (ports, and the stand-in bidder's endpoint).
    await npm(['install', tarballs.adapter, tarballs.module], host);
    const adapterConfig = parseYaml(snippet(adapterGuide, 'gavel.yaml', 'docs/adapters.md')) as Record<string, any>;
    const moduleConfig = parseYaml(snippet(moduleGuide, 'host.yaml', 'docs/modules.md')) as Record<string, any>;
    const config = {
      server: { port: 0, host: '127.0.0.1' },
      admin: { port: 0 },
      plugins: [...adapterConfig.plugins, ...moduleConfig.plugins],
      bidders: { acmex: { ...adapterConfig.bidders.acmex, endpoint: `${bidder.url}/acme?name=acme&price=3` } },
      modules: moduleConfig.modules,
    };
    writeFileSync(join(host, 'gavel.yaml'), toYaml(config));
  });

  after(async () => {
    await served?.stop();
    await bidder?.close();
    await registry?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** `npx gavel ...` in the host folder. */
  function npxGavel(args: string[]): { status: number | null; stdout: string; stderr: string } {
    try {
      const stdout = execFileSync('npx', ['gavel', ...args], { cwd: host, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_offline: 'true' } });
      return { status: 0, stdout, stderr: '' };
    } catch (err) {
      const failed = err as { status: number | null; stdout: string; stderr: string };
      return { status: failed.status, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  it('installs Gavel and the plugins as packages of the host, each plugin on the host’s Gavel', () => {
    const manifest = JSON.parse(readFileSync(join(host, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies).sort()).to.deep.equal(['acme-gavel-adapter', 'acme-gavel-page-guard', gavelPackage.name]);
    const installed = JSON.parse(readFileSync(join(host, 'node_modules', gavelPackage.name, 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).to.equal(gavelPackage.version);
    // A peer dependency: no plugin brought a Gavel of its own.
    expect(existsSync(join(host, 'node_modules', 'acme-gavel-adapter', 'node_modules'))).to.equal(false);
    expect(existsSync(join(host, 'node_modules', 'acme-gavel-page-guard', 'node_modules'))).to.equal(false);
    // What was published: the SDK's declarations, no tests, no sources.
    const packaged = join(host, 'node_modules', gavelPackage.name);
    expect(existsSync(join(packaged, 'dist', 'core', 'api', 'index.d.ts'))).to.equal(true);
    expect(existsSync(join(packaged, 'dist', 'test'))).to.equal(false);
    expect(existsSync(join(packaged, 'core'))).to.equal(false);
    expect(existsSync(join(packaged, 'dist', 'adapters', 'appnexus', 'test'))).to.equal(false);
  });

  it('validates the host config with npx gavel validate-config', () => {
    const result = npxGavel(['validate-config', 'gavel.yaml']);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.contain('gavel.yaml: valid');
  });

  it('lists both plugins, from their packages, with npx gavel plugins', () => {
    const result = npxGavel(['plugins', '--config', 'gavel.yaml']);
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/^acmex\s+1\.0\.0\s+adapter\s+.*package/m);
    expect(result.stdout).to.match(/^acme\.page-guard\s+1\.0\.0\s+module\s+.*package/m);
  });

  describe('npx gavel serve', () => {
    before(async () => {
      served = await startServedGavel('npx', ['gavel', 'serve', '--config', 'gavel.yaml'], { cwd: host, env: { ...process.env, npm_config_offline: 'true' } });
    });

    it('logs one boot line: the installed version, the config file, both plugins', async () => {
      const boot = await served!.waitFor((line) => line.msg === 'gavel started');
      expect(boot).to.include({ version: gavelPackage.version, configFile: join(host, 'gavel.yaml') });
      const bidders = boot.bidders as Array<Record<string, unknown>>;
      expect(bidders.find((entry) => entry.name === 'acmex')).to.include({ adapter: 'acmex', endpointHost: new URL(bidder.url).host, enabled: true });
      const modules = boot.modules as Array<Record<string, unknown>>;
      expect(modules.find((entry) => entry.code === 'acme.page-guard')).to.deep.equal({ code: 'acme.page-guard', version: '1.0.0', builtIn: false, enabled: true });
    });

    it('runs an auction through the packaged adapter and the packaged module', async () => {
      bidder.received.length = 0;
      const answer = await postJson(`http://127.0.0.1:${served!.port}/openrtb2/auction`, bannerRequest({ acmex: { adUnit: 'acme-top' } }));
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json.seatbid.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['acmex']);
      expect(answer.json.seatbid[0].bid[0].price).to.equal(3);
      expect((bidder.received[0]!.body.imp as Array<{ tagid?: string }>)[0]!.tagid).to.equal('acme-top');
      // The module's auction-response hook stamped the answer.
      expect(answer.json.ext.pageguard).to.deep.equal({ account: 'unknown' });
    });

    it("ends an auction from a domain the module's config blocks", async () => {
      const answer = await postJson(`http://127.0.0.1:${served!.port}/openrtb2/auction`, bannerRequest({ acmex: { adUnit: 'acme-top' } }, { site: { page: 'https://www.blocked.example/' } }));
      expect(answer.status).to.equal(200);
      expect(answer.json).to.deep.equal({ id: 'req-1', nbr: 2 });
    });
  });
});
