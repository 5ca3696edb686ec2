/**
 * The read-only bidder discovery endpoints: `/info/bidders` (optionally `?enabledonly=true`), `/info/bidders/<name>`
 * and `/bidders/params`, over built-in adapters, config aliases and disabled bidders.
 */
import { expect } from 'chai';
import { startGavel, type RunningGavel } from '../support/gavel.js';
import { getJson } from '../support/gavel.js';

describe('bidder discovery endpoints', () => {
  let gavel: RunningGavel;
  const get = (path: string) => getJson(`${gavel.url}${path}`);
  const manifestOf = (name: string) => gavel.app.plugins.adapters.get(name)!.manifest;

  before(async () => {
    gavel = await startGavel({
      bidders: {
        mynexus: { aliasOf: 'appnexus' },
        alpha: { adapter: 'ortb', endpoint: 'https://alpha.bidder.example/rtb' },
        resting: { adapter: 'ortb', endpoint: 'https://resting.bidder.example/rtb', enabled: false },
      },
    });
  });
  after(async () => gavel?.close());

  describe('GET /info/bidders', () => {
    it('lists every adapter and every configured bidder, sorted', async () => {
      const { status, json } = await get('/info/bidders');
      expect(status).to.equal(200);
      expect(json).to.include.members([...gavel.app.plugins.adapters.keys(), 'mynexus', 'alpha', 'resting']);
      expect(json).to.deep.equal([...json].sort());
    });

    it('with ?enabledonly=true leaves out bidders without an endpoint and bidders switched off', async () => {
      const { json } = await get('/info/bidders?enabledonly=true');
      expect(json).to.include.members(['appnexus', 'mynexus', 'alpha']);
      expect(json).to.not.include.members(['ortb']);
      expect(json).to.not.include.members(['resting']);
      const enabled = [...gavel.app.bidders.entries.values()].filter((entry) => entry.enabled).map((entry) => entry.name);
      expect(json).to.have.members(enabled);
    });

    it('with ?enabledonly=false lists them all', async () => {
      const [all, notFiltered] = await Promise.all([get('/info/bidders'), get('/info/bidders?enabledonly=false')]);
      expect(notFiltered.json).to.deep.equal(all.json);
    });
  });

  describe('GET /info/bidders/<name>', () => {
    it('describes an adapter: status, maintainer, capabilities, endpoint, vendor id, user sync', async () => {
      const { status, json } = await get('/info/bidders/appnexus');
      expect(status).to.equal(200);
      const info = manifestOf('appnexus').info;
      expect(json).to.include({ status: 'ACTIVE', adapter: 'appnexus', endpoint: info.endpoint, gvlVendorId: info.gvlVendorId });
      expect(json.maintainer).to.deep.equal(info.maintainer);
      expect(json.capabilities).to.deep.equal(info.capabilities);
      expect(json.userSync).to.deep.equal(info.userSync);
      expect(json).to.not.have.property('aliasOf');
    });

    it('names the adapter a config alias stands for', async () => {
      const { json } = await get('/info/bidders/mynexus');
      expect(json).to.include({ status: 'ACTIVE', adapter: 'appnexus', aliasOf: 'appnexus' });
    });

    it('shows a bidder switched off by config as disabled, with the reason', async () => {
      const { json } = await get('/info/bidders/resting');
      expect(json).to.include({ status: 'DISABLED', aliasOf: 'ortb', disabledReason: 'disabled by config' });
    });

    it('shows an adapter without an endpoint as disabled, saying which setting enables it', async () => {
      const { json } = await get('/info/bidders/ortb');
      expect(json.status).to.equal('DISABLED');
      expect(json.disabledReason).to.contain('bidders.ortb.endpoint');
      expect(json.capabilities).to.deep.equal(manifestOf('ortb').info.capabilities);
    });

    it('finds a bidder whatever the case of its name', async () => {
      const { status, json } = await get('/info/bidders/AppNexus');
      expect(status).to.equal(200);
      expect(json.adapter).to.equal('appnexus');
    });

    it('answers 404 for a bidder it does not know', async () => {
      const { status, text } = await get('/info/bidders/nobody');
      expect(status).to.equal(404);
      expect(text).to.contain('nobody');
    });
  });

  describe('GET /bidders/params', () => {
    it('maps every listed bidder, aliases included, to its params schema', async () => {
      const [{ status, json }, listed] = await Promise.all([get('/bidders/params'), get('/info/bidders')]);
      expect(status).to.equal(200);
      expect(Object.keys(json).sort()).to.deep.equal(listed.json);
      for (const name of gavel.app.plugins.adapters.keys()) {
        const schema = manifestOf(name).paramsSchema;
        if (schema) expect(json[name], name).to.deep.equal(schema);
      }
    });

    it('gives an alias the schema of the adapter it stands for', async () => {
      const { json } = await get('/bidders/params');
      expect(json.mynexus).to.deep.equal(manifestOf('appnexus').paramsSchema);
      expect(json.alpha).to.deep.equal(manifestOf('ortb').paramsSchema);
      expect(json.mynexus).to.not.deep.equal(json.alpha);
    });
  });
});
