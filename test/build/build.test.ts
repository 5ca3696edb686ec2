import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root, from dist/test/build. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface BuildScript {
  build(options: { root: string; stdio?: 'ignore' | 'inherit' }): { compiled: boolean };
}

/** scripts/build.mjs, the code `npm run build` runs (plain JS, so loaded at run time rather than imported). */
async function buildScript(): Promise<BuildScript> {
  return (await import(pathToFileURL(join(ROOT, 'scripts', 'build.mjs')).href)) as BuildScript;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

describe('the build', function () {
  this.timeout(30_000);
  const temporary: string[] = [];
  after(() => temporary.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function scratch(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    temporary.push(dir);
    return dir;
  }

  it('leaves no trace of a deleted plugin folder, or of anything else its sources no longer have', async () => {
    const { build } = await buildScript();
    const project = scratch('gavel-build-');
    write(project, 'tsconfig.json', JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', rootDir: '.', types: [] }, include: ['adapters/**/*.ts', 'plugins/**/*.ts'] }));
    write(project, 'adapters/openx/openx.ts', 'export const name = "openx";\n');
    write(project, 'adapters/openx/info.yaml', 'maintainer: { email: x@example.com }\n');
    write(project, 'adapters/acme/acme.ts', 'export const name = "acme";\n');
    write(project, 'adapters/acme/params.schema.json', '{}\n');
    write(project, 'plugins/gavel.extra/index.ts', 'export default {};\n');

    expect(build({ root: project, stdio: 'ignore' }).compiled).to.equal(true);
    expect(existsSync(join(project, 'dist/adapters/openx/openx.js'))).to.equal(true);
    expect(existsSync(join(project, 'dist/adapters/openx/info.yaml'))).to.equal(true);

    rmSync(join(project, 'adapters/openx'), { recursive: true });
    rmSync(join(project, 'plugins/gavel.extra'), { recursive: true });
    write(project, 'dist/adapters/ghost/ghost.js', 'export {};\n');
    expect(build({ root: project, stdio: 'ignore' }).compiled).to.equal(true);

    expect(existsSync(join(project, 'dist/adapters/openx'))).to.equal(false);
    expect(existsSync(join(project, 'dist/plugins/gavel.extra'))).to.equal(false);
    expect(existsSync(join(project, 'dist/adapters/ghost'))).to.equal(false);
    expect(existsSync(join(project, 'dist/adapters/acme/acme.js'))).to.equal(true);
    expect(existsSync(join(project, 'dist/adapters/acme/params.schema.json'))).to.equal(true);
  });

  it('reports a type error, and still emits and copies what it can', async () => {
    const { build } = await buildScript();
    const project = scratch('gavel-build-');
    write(project, 'tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', rootDir: '.', strict: true, types: [] }, include: ['adapters/**/*.ts'] }));
    write(project, 'adapters/broken/broken.ts', 'export const count: number = "three";\n');
    write(project, 'adapters/fine/info.yaml', 'ok: true\n');
    expect(build({ root: project, stdio: 'ignore' }).compiled).to.equal(false);
    expect(existsSync(join(project, 'dist/adapters/broken/broken.js'))).to.equal(true);
    expect(existsSync(join(project, 'dist/adapters/fine/info.yaml'))).to.equal(true);
  });

  it('ships the SDK with type declarations that a package importing gavel-auction/sdk type-checks against', () => {
    const exports = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports as Record<string, { types: string; default: string }>;
    // `gavel-source` is the condition Gavel's own build resolves (the in-repo example plugins compile against the
    // sources); an installed package's consumers read `types` and `default`.
    expect(exports['./sdk']).to.deep.equal({ 'gavel-source': './core/api/index.ts', types: './dist/core/api/index.d.ts', default: './dist/core/api/index.js' });
    expect(existsSync(join(ROOT, exports['./sdk']!.types))).to.equal(true);

    const consumer = scratch('gavel-sdk-consumer-');
    mkdirSync(join(consumer, 'node_modules'));
    symlinkSync(ROOT, join(consumer, 'node_modules', 'gavel-auction'), 'dir');
    write(consumer, 'package.json', JSON.stringify({ name: 'acme-gavel-adapter', type: 'module' }));
    write(consumer, 'tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [] }, files: ['index.ts'] }));
    // Without declarations the import is an implicit any (an error under strict), and the expected error below
    // would not occur (also an error): the check passes only against real types.
    write(
      consumer,
      'index.ts',
      [
        "import { BidderErrorCode, SDK_VERSION, type BidderError } from 'gavel-auction/sdk';",
        'export const version: string = SDK_VERSION;',
        "export const late: BidderError = { code: BidderErrorCode.Timeout, message: 'late' };",
        '// @ts-expect-error: a bidder error code is a number',
        "export const wrong: BidderError = { code: 'late', message: 'late' };",
        '',
      ].join('\n'),
    );
    execFileSync(process.execPath, [TSC, '-p', join(consumer, 'tsconfig.json')], { stdio: 'pipe' });
  });
});
