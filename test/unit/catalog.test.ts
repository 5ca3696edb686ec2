import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import type { AdapterManifest, BidderConfig } from '../../core/api/index.js';
import { buildBidderCatalog } from '../../core/bidders/catalog.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
import { adapterManifestSchema } from '../../core/plugins/manifest-schema.js';
import { silentLogger, testConfig } from '../support/gavel.js';

describe('bidder catalog: adapters shipped disabled', () => {
  it('ix needs host setup: disabled with a reason until the host gives it an endpoint', async () => {
    const plugins = await discoverPlugins();
    const shipped = buildBidderCatalog(testConfig(), plugins, silentLogger).get('ix')!;
    expect(shipped.enabled).to.equal(false);
    expect(shipped.disabledReason).to.contain('bidders.ix.endpoint');
    const configured = buildBidderCatalog(testConfig({ bidders: { ix: { endpoint: 'https://ix.example/pbs' } } }), plugins, silentLogger).get('ix')!;
    expect(configured.enabled).to.equal(true);
    expect(configured.endpoint!.template).to.equal('https://ix.example/pbs');
  });

  it("hands every adapter the host's facts, its Gavel version (package.json) included", async () => {
    const plugins = await discoverPlugins();
    const seen: BidderConfig[] = [];
    const appnexus = plugins.adapters.get('appnexus')!;
    const spy: AdapterManifest = { ...appnexus.manifest, create: (config, deps) => (seen.push(config), appnexus.manifest.create!(config, deps)) };
    plugins.adapters.set('appnexus', { ...appnexus, manifest: spy });
    buildBidderCatalog(testConfig(), plugins, silentLogger);
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(seen.map((config) => config.host.version)).to.deep.equal([version]);
  });

  it('an explicit enabled: false wins over a configured endpoint, and says so', async () => {
    const entry = buildBidderCatalog(testConfig({ bidders: { appnexus: { enabled: false, endpoint: 'https://x.example/' } } }), await discoverPlugins(), silentLogger).get('appnexus')!;
    expect(entry.enabled).to.equal(false);
    expect(entry.disabledReason).to.equal('disabled by config');
  });
});

describe("bidder catalog: a bidder's debug.allow", () => {
  it('is true unless the manifest says false; the host config replaces either', async () => {
    const plugins = await discoverPlugins();
    const appnexus = plugins.adapters.get('appnexus')!;
    expect(buildBidderCatalog(testConfig(), plugins, silentLogger).get('appnexus')!.debugAllow).to.equal(true);
    expect(buildBidderCatalog(testConfig({ bidders: { appnexus: { debug: { allow: false } } } }), plugins, silentLogger).get('appnexus')!.debugAllow).to.equal(false);

    const manifest: AdapterManifest = { ...appnexus.manifest, info: { ...appnexus.manifest.info, debug: { allow: false } } };
    expect(new Ajv({ strict: false }).validate(adapterManifestSchema, { ...manifest, kind: 'adapter' })).to.equal(true);
    plugins.adapters.set('appnexus', { ...appnexus, manifest });
    expect(buildBidderCatalog(testConfig(), plugins, silentLogger).get('appnexus')!.debugAllow).to.equal(false);
    expect(buildBidderCatalog(testConfig({ bidders: { appnexus: { debug: { allow: true } } } }), plugins, silentLogger).get('appnexus')!.debugAllow).to.equal(true);
  });

  it('is refused in a manifest without its allow, or with another key', () => {
    const validate = new Ajv({ strict: false }).compile(adapterManifestSchema);
    const manifest = (debug: unknown) => ({ kind: 'adapter', name: 'x', version: '1.0.0', sdkVersion: '1.0.0', info: { maintainer: { email: 'a@b.c' }, capabilities: { site: { mediaTypes: ['banner'] } }, debug } });
    expect(validate(manifest({ allow: false }))).to.equal(true);
    expect(validate(manifest({}))).to.equal(false);
    expect(validate(manifest({ allow: 'no' }))).to.equal(false);
    expect(validate(manifest({ allow: true, other: 1 }))).to.equal(false);
  });
});
