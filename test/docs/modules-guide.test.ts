/**
 * docs/modules.md stays true: its titled snippets are written into a scratch package, compiled as a module author
 * would compile them (against `gavel-auction/sdk` and `gavel-auction/testing`), the guide's own unit test runs, and a
 * Gavel boots with the example module and the replacement targeting module to run auctions through them.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { titledSnippets } from '../support/doc-snippets.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

/** A package folder holding the guide's module, built with tsc the way an author builds it. */
function buildExample(snippets: Map<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gavel-modules-guide-'));
  // The author's dependencies: Gavel as the installed peer, chai and mocha for the tests.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'acme-gavel-page-guard', version: '1.0.0', type: 'module', exports: './index.js' }));
  for (const file of ['index.ts', 'whole-dollars.ts', 'test/page-guard.test.ts']) {
    const source = snippets.get(file);
    if (source === undefined) throw new Error(`docs/modules.md has no snippet titled ${file}`);
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), source);
  }
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, types: ['node', 'mocha'], skipLibCheck: true }, include: ['**/*.ts'], exclude: ['node_modules'] }),
  );
  execFileSync(process.execPath, [TSC, '-p', join(dir, 'tsconfig.json')], { stdio: 'pipe' });
  // The replacement module is a package of its own.
  mkdirSync(join(dir, 'whole-dollars'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'whole-dollars', 'node_modules'), 'dir');
  writeFileSync(join(dir, 'whole-dollars', 'package.json'), JSON.stringify({ name: 'acme-whole-dollars', type: 'module', exports: './index.js' }));
  writeFileSync(join(dir, 'whole-dollars', 'index.js'), readFileSync(join(dir, 'whole-dollars.js')));
  return dir;
}

describe('docs/modules.md, built from its own snippets', () => {
  let dir: string;
  let hostConfig: { modules: Record<string, unknown> };
  before(function () {
    this.timeout(30_000);
    const snippets = titledSnippets(readFileSync(join(ROOT, 'docs', 'modules.md'), 'utf8'));
    hostConfig = parseYaml(snippets.get('gavel.yaml') ?? '') as { modules: Record<string, unknown> };
    dir = buildExample(snippets);
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it("the guide's unit test passes against the guide's module", function () {
    this.timeout(30_000);
    execFileSync(process.execPath, [MOCHA, '--no-config', join(dir, 'test', 'page-guard.test.js')], { cwd: dir, stdio: 'pipe' });
  });

  describe('the example module in a running Gavel', () => {
    let bidder: MockBidder;
    let gavel: RunningGavel;
    before(async () => {
      bidder = await startMockBidder();
      gavel = await startGavel({
        plugins: [dir],
        modules: hostConfig.modules,
        bidders: {
          // OpenRTB 2.6 bidders: user.eids reach them where the request put them.
          alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.5`, ortbVersion: '2.6' },
          beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=1.2`, ortbVersion: '2.6' },
        },
      });
    });
    after(async () => {
      await gavel?.close();
      await bidder?.close();
    });

    it('ends an auction from a blocked domain with its no-bid reason', async () => {
      const answer = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { site: { page: 'https://news.blocked.example/story' } }));
      expect(answer.status).to.equal(200);
      expect(answer.json).to.deep.equal({ id: 'req-1', nbr: 2 });
    });

    it('keeps user ids from the listed bidder only, and stamps the answer', async () => {
      bidder.received.length = 0;
      const eids = [{ source: 'ids.example', uids: [{ id: 'u-1' }] }];
      const answer = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }, { user: { eids } }));
      expect(answer.status, answer.text).to.equal(200);
      const sent = (name: string) => bidder.received.find((call) => call.url.includes(`name=${name}&`))!.body as { user?: { eids?: unknown } };
      expect(sent('alpha').user?.eids).to.deep.equal(eids);
      expect(sent('beta').user).to.not.have.property('eids');
      expect(answer.json.ext.pageguard).to.deep.equal({ account: 'unknown' });
    });
  });

  it('the replacement targeting module changes the price buckets', async () => {
    const bidder = await startMockBidder();
    const gavel = await startGavel({
      plugins: [join(dir, 'whole-dollars')],
      modules: { 'acme.whole-dollars': { enabled: true } },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2.75` } },
    });
    try {
      const answer = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { ext: { prebid: { targeting: {} } } }));
      expect(answer.json.seatbid[0].bid[0].ext.prebid.targeting.hb_pb).to.equal('2.00');
    } finally {
      await gavel.close();
      await bidder.close();
    }
  });
});
