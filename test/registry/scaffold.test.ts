/**
 * `npm run new-adapter -- <name>` must give a folder that compiles under strict, passes its own test, and is
 * listed (enabled) by /info/bidders, with no other edit. The script writes into a temporary root; that root is
 * then built like the repository (tsc, JSON assets beside the code) and booted as Gavel's plugin root.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AdapterManifest } from '../../core/api/index.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
import { runFixturesWith } from '../harness/adapter-runner.js';
import { startGavel } from '../support/gavel.js';
import { getJson } from '../support/gavel.js';
import { distRoot, repoRoot } from './plugin-root.js';

const SCRIPT = join(repoRoot, 'scripts', 'new-adapter.mjs');
/** A hyphenated name and one starting with a digit, the two shapes that most easily break generated code. */
const NAMES = ['scaffold-demo', '33demo'];

function newAdapter(...args: string[]) {
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(process.execPath, [command, ...args], { cwd, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/**
 * Makes `root` a miniature of this repository for the generated files to compile against: the SDK and the fixture
 * runner from the real sources, the installed packages, and ES modules.
 */
function linkProject(root: string): void {
  symlinkSync(join(repoRoot, 'core'), join(root, 'core'), 'dir');
  mkdirSync(join(root, 'test'));
  symlinkSync(join(repoRoot, 'test', 'harness'), join(root, 'test', 'harness'), 'dir');
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
}

/** The repository's build, for the new folders only: tsc into `<root>/dist`, then the JSON files beside the code. */
function build(root: string, folders: string[]): { status: number | null; output: string } {
  const sources = folders.flatMap((name) => [join('adapters', name, 'index.ts'), join('adapters', name, 'test', `${name}.test.ts`)]);
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const compiled = run(tsc, [
    '--target', 'ES2022', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--lib', 'ES2023',
    '--types', 'node,mocha', '--strict', '--noImplicitOverride', '--esModuleInterop', '--skipLibCheck',
    '--preserveSymlinks', '--rootDir', '.', '--outDir', 'dist', ...sources,
  ], root);
  for (const name of folders) {
    cpSync(join(root, 'adapters', name), join(root, 'dist', 'adapters', name), { recursive: true, filter: (path) => !path.endsWith('.ts') });
  }
  return compiled;
}

describe('new-adapter scaffolding', () => {
  let root: string;
  let built: { status: number | null; output: string };

  before(function () {
    this.timeout(60_000);
    root = mkdtempSync(join(tmpdir(), 'gavel-new-adapter-'));
    linkProject(root);
    for (const name of NAMES) {
      const created = newAdapter(name, '--root', root);
      if (created.status !== 0) throw new Error(`new-adapter ${name} failed: ${created.stderr}`);
    }
    built = build(root, NAMES);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('creates the manifest, bidder, schema, README, fixture and test of each adapter', () => {
    for (const name of NAMES) {
      const folder = join(root, 'adapters', name);
      for (const file of ['index.ts', `${name}.ts`, 'params.schema.json', 'README.md', 'test/fixtures/simple-banner.json', `test/${name}.test.ts`]) {
        expect(existsSync(join(folder, file)), `${name}/${file}`).to.equal(true);
      }
    }
  });

  it('generates code that compiles cleanly under strict', () => {
    expect(built.status, built.output).to.equal(0);
  });

  for (const name of NAMES) {
    describe(name, () => {
      it('passes its own test file', function () {
        this.timeout(30_000);
        const mocha = join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js');
        const result = run(mocha, ['--no-config', join('dist', 'adapters', name, 'test', `${name}.test.js`)], root);
        expect(result.status, result.output).to.equal(0);
        expect(result.output).to.match(/[1-9]\d* passing/).and.not.match(/failing/);
        expect(result.output).to.contain('simple-banner.json').and.contain('rejects no placement id');
      });

      it('passes its fixture through the adapter runner', async () => {
        const manifest = (await import(pathToFileURL(join(root, 'dist', 'adapters', name, 'index.js')).href)).default as AdapterManifest;
        const outcomes = runFixturesWith(manifest, join(root, 'dist', 'adapters', name, 'test', 'fixtures'));
        expect(outcomes.map((outcome) => outcome.name)).to.deep.equal(['simple-banner.json']);
        expect(outcomes[0]!.diffs).to.deep.equal([]);
      });
    });
  }

  it('is discovered and listed as an enabled bidder when the folder sits in a plugin root', async () => {
    symlinkSync(join(distRoot, 'plugins'), join(root, 'dist', 'plugins'), 'dir');
    const plugins = await discoverPlugins({ root: join(root, 'dist') });
    expect([...plugins.adapters.keys()].sort()).to.deep.equal([...NAMES].sort());
    const gavel = await startGavel({}, { pluginRoot: join(root, 'dist') });
    try {
      const listed = await getJson(`${gavel.url}/info/bidders?enabledonly=true`);
      expect(listed.json).to.include.members(NAMES);
      const { json } = await getJson(`${gavel.url}/info/bidders/${NAMES[0]}`);
      expect(json).to.include({ status: 'ACTIVE', usesHttps: true });
    } finally {
      await gavel.close();
    }
  });

  describe('refuses, creating nothing', () => {
    let emptyRoot: string;
    beforeEach(() => void (emptyRoot = mkdtempSync(join(tmpdir(), 'gavel-new-adapter-refused-'))));
    afterEach(() => rmSync(emptyRoot, { recursive: true, force: true }));

    for (const name of ['Acme', 'acme_ads', 'acme-', 'acme--ads', 'acme.ads', '../acme', 'acme ads', 'a'.repeat(41)]) {
      it(`the name ${JSON.stringify(name)}`, () => {
        const result = newAdapter(name, '--root', emptyRoot);
        expect(result.status).to.equal(1);
        expect(result.stderr).to.contain('not a valid adapter name');
        expect(readdirSync(emptyRoot)).to.deep.equal([]);
      });
    }

    it('a leading hyphen, which reads as an unknown option', () => {
      const result = newAdapter('-acme', '--root', emptyRoot);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('unknown option -acme');
      expect(readdirSync(emptyRoot)).to.deep.equal([]);
    });

    it('a missing name', () => {
      const result = newAdapter('--root', emptyRoot);
      expect(result.status).to.equal(1);
      expect(result.stderr).to.contain('name the adapter');
    });

    it('a name whose folder already exists, leaving that folder as it was', () => {
      expect(newAdapter('acme', '--root', emptyRoot).status).to.equal(0);
      writeFileSync(join(emptyRoot, 'adapters', 'acme', 'index.ts'), '// edited by hand\n');
      const again = newAdapter('acme', '--root', emptyRoot);
      expect(again.status).to.equal(1);
      expect(again.stderr).to.contain('already exists');
      expect(readdirSync(join(emptyRoot, 'adapters'))).to.deep.equal(['acme']);
      expect(readFileSync(join(emptyRoot, 'adapters', 'acme', 'index.ts'), 'utf8')).to.equal('// edited by hand\n');
    });
  });
});
