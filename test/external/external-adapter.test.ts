/**
 * Adapters shipped as npm packages: named in config `plugins` (here by path, as a host would name a local or
 * `file:` install), validated like a built-in adapter folder, listed, and usable in an auction.
 */
import { expect } from 'chai';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode, type AdapterManifest } from '../../core/api/index.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
import { runFixturesWith } from '../harness/adapter-runner.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { getJson } from '../support/gavel.js';

/** The compiled packages (dist/test/external/...): their package.json is copied beside the compiled index.js. */
const packageDir = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));
const ACME = packageDir('acme-gavel-adapter');

async function startupFailure(config: Record<string, unknown>): Promise<{ code?: string; message: string } | undefined> {
  try {
    const started = await startGavel(config);
    await started.close();
    return undefined;
  } catch (err) {
    return err as { code?: string; message: string };
  }
}

describe('an adapter shipped as an npm package', () => {
  let mock: MockBidder;
  let gavel: RunningGavel;

  before(async () => {
    mock = await startMockBidder();
    gavel = await startGavel({ plugins: [ACME], bidders: { acmex: { endpoint: `${mock.url}/acme?name=acme&price=3` } } });
  });
  after(async () => {
    await gavel?.close();
    await mock?.close();
  });
  beforeEach(() => void (mock.received.length = 0));

  it('is loaded from the package and recorded as one', () => {
    const loaded = gavel.app.plugins.adapters.get('acmex');
    expect(loaded?.source).to.deep.equal({ kind: 'package', location: ACME });
  });

  it('is listed and described like a built-in adapter', async () => {
    const listed = await getJson(`${gavel.url}/info/bidders?enabledonly=true`);
    expect(listed.json).to.include('acmex');
    const { json } = await getJson(`${gavel.url}/info/bidders/acmex`);
    expect(json).to.include({ status: 'ACTIVE' }).and.not.have.property('aliasOf');
    expect(json.maintainer).to.deep.equal({ email: 'prebid@acme-exchange.example' });
    const params = await getJson(`${gavel.url}/bidders/params`);
    expect(params.json.acmex.required).to.deep.equal(['adUnit']);
  });

  it('bids in an auction against a real bidder, with its own request shape', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ acmex: { adUnit: 'acme-top' } }));
    expect(status).to.equal(200);
    expect(json.seatbid?.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['acmex']);
    expect(json.seatbid[0].bid[0].price).to.equal(3);
    expect(mock.received).to.have.length(1);
    expect((mock.received[0]!.body.imp as any[])[0].tagid).to.equal('acme-top');
    expect(mock.received[0]!.headers['x-openrtb-version']).to.equal('2.6');
  });

  it('has its params checked against the package schema', async () => {
    const { status, text } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ acmex: { floor: 1 } }));
    expect(status).to.equal(400);
    expect(text).to.contain('acmex');
    expect(mock.received).to.deep.equal([]);
  });

  it('passes its own fixtures through the adapter runner', async () => {
    const manifest = (await import(new URL('./acme-gavel-adapter/index.js', import.meta.url).href)).default as AdapterManifest;
    const outcomes = runFixturesWith(manifest, fileURLToPath(new URL('./acme-gavel-adapter/test/fixtures', import.meta.url)));
    expect(outcomes).to.have.length.above(0);
    expect(outcomes.filter((outcome) => !outcome.ok)).to.deep.equal([]);
  });

  it('can be named by a path relative to the working directory', async () => {
    const fromCwd = relative(process.cwd(), ACME);
    const name = fromCwd.startsWith('.') ? fromCwd : `./${fromCwd}`;
    const plugins = await discoverPlugins({ packages: [name] });
    expect(plugins.adapters.get('acmex')?.source).to.deep.equal({ kind: 'package', location: name });
  });

  it('stops boot, naming the package, when its manifest is invalid', async () => {
    const broken = packageDir('broken-gavel-adapter');
    const failure = await startupFailure({ plugins: [broken] });
    expect(failure?.code).to.equal(ErrorCode.PluginInvalid);
    expect(failure?.message).to.contain(broken).and.contain('maintainer');
  });

  it('stops boot with a coded error when the named package is not there', async () => {
    const missing = packageDir('no-such-gavel-adapter');
    const failure = await startupFailure({ plugins: [missing] });
    expect(failure?.code).to.equal(ErrorCode.PluginNotFound);
    expect(failure?.message).to.contain(missing);
  });

  it('stops boot when two plugins claim the same adapter name', async () => {
    const failure = await startupFailure({ plugins: [ACME, ACME] });
    expect(failure?.code).to.equal(ErrorCode.PluginDuplicate);
    expect(failure?.message).to.contain('acmex');
  });
});
