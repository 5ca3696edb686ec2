import { expect } from 'chai';
import { buildBidderCatalog } from '../../core/bidders/catalog.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
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

  it('an explicit enabled: false wins over a configured endpoint, and says so', async () => {
    const entry = buildBidderCatalog(testConfig({ bidders: { appnexus: { enabled: false, endpoint: 'https://x.example/' } } }), await discoverPlugins(), silentLogger).get('appnexus')!;
    expect(entry.enabled).to.equal(false);
    expect(entry.disabledReason).to.equal('disabled by config');
  });
});
