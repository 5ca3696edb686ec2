/**
 * Registry-wide checks: every adapter the compiled tree ships, as boot discovers it, must be complete enough to run
 * and to be listed (name, params schema, bidder info, user sync), and must carry fixtures that pass the runner. A new
 * adapter folder is covered here without being named anywhere.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Ajv } from 'ajv';
import { compileEndpoint, MEDIA_TYPES, type BidderInfo, type UserSyncInfo } from '../../core/api/index.js';
import { buildBidderCatalog } from '../../core/bidders/catalog.js';
import { discoverPlugins, type LoadedAdapter, type PluginCatalog } from '../../core/plugins/discover.js';
import { loadAdapterManifest, runFixturesWith, type FixtureHost } from '../harness/adapter-runner.js';
import { silentLogger, testConfig } from '../support/gavel.js';
import { distRoot, repoRoot } from './plugin-root.js';

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s.]+$/;

/** Folders under dist/adapters that boot will load (they have an index.js), known before discovery runs. */
function compiledAdapterFolders(): string[] {
  const dir = join(distRoot, 'adapters');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'index.js')))
    .map((entry) => entry.name)
    .sort();
}

/** The adapter's own fixtures, read from the source tree (dist/ may still hold fixtures deleted since). */
function fixturesDir(folder: string): string {
  const source = join(repoRoot, 'adapters', folder, 'test', 'fixtures');
  return existsSync(source) ? source : join(distRoot, 'adapters', folder, 'test', 'fixtures');
}

/**
 * Some bidders only work once a host configured them (credentials, a regional endpoint), and some send the host's
 * facts. Their fixtures are then recorded under a test host, which the adapter states in `test/host-config.json`:
 * `{ endpoint?, extra?, host?: { externalUrl?, gvlId?, datacenter?, version? } }` (read from the source tree).
 */
function testHost(folder: string): FixtureHost | undefined {
  const path = join(repoRoot, 'adapters', folder, 'test', 'host-config.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as FixtureHost) : undefined;
}

function readme(folder: string): string | undefined {
  const path = join(repoRoot, 'adapters', folder, 'README.md');
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function capabilityProblems(info: BidderInfo): string[] {
  const channels = Object.entries(info.capabilities ?? {});
  if (channels.length === 0) return ['capabilities list no channel (site, app or dooh)'];
  const problems: string[] = [];
  for (const [channel, declared] of channels) {
    const mediaTypes: string[] = declared?.mediaTypes ?? [];
    if (mediaTypes.length === 0) problems.push(`capabilities.${channel} lists no media type`);
    const unknown = mediaTypes.filter((type) => !(MEDIA_TYPES as readonly string[]).includes(type));
    if (unknown.length > 0) problems.push(`capabilities.${channel} has unknown media types ${unknown.join(', ')}`);
    if (new Set(mediaTypes).size !== mediaTypes.length) problems.push(`capabilities.${channel} repeats a media type`);
  }
  return problems;
}

/** A sync URL must be an absolute http(s) URL once its `{{.Macro}}` placeholders are filled. */
function syncUrlProblem(url: unknown, where: string): string | undefined {
  if (typeof url !== 'string' || url === '') return `${where}.url must be a non-empty string`;
  try {
    const parsed = new URL(url.replace(/\{\{[^}]*\}\}/g, 'x'));
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `${where}.url must be http(s), got ${parsed.protocol}`;
  } catch {
    return `${where}.url "${url}" is not a URL`;
  }
  return undefined;
}

function userSyncProblems(userSync: UserSyncInfo): string[] {
  const problems: string[] = [];
  if (!userSync.iframe && !userSync.redirect) problems.push('userSync has neither iframe nor redirect');
  for (const kind of ['iframe', 'redirect'] as const) {
    const endpoint = userSync[kind];
    if (!endpoint) continue;
    const problem = syncUrlProblem(endpoint.url, `userSync.${kind}`);
    if (problem) problems.push(problem);
    if (endpoint.userMacro !== undefined && typeof endpoint.userMacro !== 'string') problems.push(`userSync.${kind}.userMacro must be a string`);
  }
  if (userSync.key !== undefined && (typeof userSync.key !== 'string' || userSync.key.trim() === '')) problems.push('userSync.key must be a non-empty string');
  if (userSync.supportCors !== undefined && typeof userSync.supportCors !== 'boolean') problems.push('userSync.supportCors must be a boolean');
  return problems;
}

function usableEndpoint(template: string | undefined): boolean {
  if (!template) return false;
  try {
    compileEndpoint(template);
    return true;
  } catch {
    return false;
  }
}

describe('adapter registry (every adapter boot discovers)', () => {
  const folders = compiledAdapterFolders();
  let plugins: PluginCatalog;
  const adapterIn = (folder: string): LoadedAdapter => {
    const found = [...plugins.adapters.values()].find((adapter) => basename(adapter.source.location) === folder);
    if (!found) throw new Error(`adapters/${folder} was not discovered`);
    return found;
  };

  before(async () => {
    plugins = await discoverPlugins();
  });

  it('finds at least one adapter', () => expect(folders).to.not.be.empty);

  it('discovers exactly one adapter per folder, under distinct names', () => {
    const discovered = [...plugins.adapters.values()].filter((adapter) => adapter.source.kind === 'folder');
    expect(discovered.map((adapter) => basename(adapter.source.location)).sort()).to.deep.equal(folders);
    const names = discovered.map((adapter) => adapter.manifest.name.toLowerCase());
    expect(new Set(names).size).to.equal(names.length);
  });

  it('resolves every manifest alias to an installed adapter that is not an alias itself', () => {
    const problems: string[] = [];
    for (const { manifest } of plugins.adapters.values()) {
      const aliasOf = manifest.info.aliasOf;
      if (aliasOf === undefined) continue;
      const target = plugins.adapters.get(aliasOf);
      if (!target) problems.push(`${manifest.name}: aliasOf "${aliasOf}" is not installed`);
      else if (target.manifest.info.aliasOf) problems.push(`${manifest.name}: aliasOf "${aliasOf}" is itself an alias`);
    }
    expect(problems).to.deep.equal([]);
  });

  it('builds a bidder for every adapter with the default configuration', () => {
    const catalog = buildBidderCatalog(testConfig(), plugins, silentLogger);
    for (const name of plugins.adapters.keys()) {
      const entry = catalog.get(name)!;
      expect(entry, name).to.exist;
      if (entry.enabled) expect(entry.bidder, `${name} is enabled but has no bidder`).to.exist;
      else expect(entry.disabledReason, `${name} is disabled without a reason`).to.be.a('string').and.not.empty;
    }
  });

  for (const folder of folders) {
    describe(`adapters/${folder}`, () => {
      it('is named after its folder (the fixture runner and the CLI load adapters by folder)', () => {
        expect(adapterIn(folder).manifest.name).to.equal(folder);
      });

      it('has a params schema that compiles and accepts only objects', () => {
        const adapter = adapterIn(folder);
        const aliasOf = adapter.manifest.info.aliasOf;
        const schema = adapter.manifest.paramsSchema ?? (aliasOf ? plugins.adapters.get(aliasOf)?.manifest.paramsSchema : undefined);
        expect(schema, 'paramsSchema').to.be.an('object');
        const validate = new Ajv({ allErrors: true, strict: false }).compile(schema!);
        for (const notAnObject of ['params', 42, null, ['a']]) expect(validate(notAnObject), JSON.stringify(notAnObject)).to.equal(false);
      });

      it('states complete bidder info', () => {
        const adapter = adapterIn(folder);
        const info = adapter.manifest.info;
        const problems: string[] = [];
        if (!EMAIL.test(info.maintainer?.email ?? '')) problems.push(`maintainer.email "${info.maintainer?.email}" is not an email address`);
        problems.push(...capabilityProblems(info));
        if (info.gvlVendorId !== undefined && !(Number.isInteger(info.gvlVendorId) && info.gvlVendorId > 0)) {
          problems.push(`gvlVendorId ${info.gvlVendorId} is not a positive integer`);
        }
        if (info.userSync) problems.push(...userSyncProblems(info.userSync));
        expect(problems).to.deep.equal([]);
      });

      it('ships a usable endpoint, or documents how a host sets one', () => {
        const adapter = adapterIn(folder);
        const target = adapter.manifest.info.aliasOf ? plugins.adapters.get(adapter.manifest.info.aliasOf) : undefined;
        const endpoint = adapter.manifest.info.endpoint ?? target?.manifest.info.endpoint;
        if (usableEndpoint(endpoint)) return;
        const text = readme(folder);
        expect(text, `adapters/${folder} has no usable endpoint and no README.md`).to.be.a('string');
        expect(text, `adapters/${folder}/README.md must say how to set the endpoint`).to.match(new RegExp(`bidders\\.${folder}\\.endpoint|endpoint:`));
      });

      it('has at least one fixture, and every fixture passes the runner', async () => {
        const dir = fixturesDir(folder);
        const fixtures = existsSync(dir) ? readdirSync(dir).filter((file) => file.endsWith('.json')) : [];
        expect(fixtures, `adapters/${folder}/test/fixtures has no .json fixture`).to.not.be.empty;
        const failures = runFixturesWith(await loadAdapterManifest(folder), dir, testHost(folder))
          .filter((outcome) => !outcome.ok)
          .map((outcome) => `${outcome.name}: ${outcome.diffs.join('; ')}`);
        expect(failures).to.deep.equal([]);
      });
    });
  }
});
