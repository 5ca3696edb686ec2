/**
 * The read-only bidder discovery endpoints: `/info/bidders` (`?enabledonly=`, `?baseadaptersonly=`), `/info/bidders/<name>`
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

    it('reads enabledonly and baseadaptersonly in any letter case, and answers anything else with a 400 in Prebid Server\'s words', async () => {
      const [all, upper] = await Promise.all([get('/info/bidders?enabledonly=FALSE'), get('/info/bidders?enabledonly=True&baseadaptersonly=false')]);
      expect(upper.json).to.deep.equal((await get('/info/bidders?enabledonly=true')).json);
      expect(all.json).to.deep.equal((await get('/info/bidders')).json);
      for (const query of ['enabledonly=yes', 'enabledonly=', 'enabledonly', 'enabledonly=1&baseadaptersonly=2']) {
        const { status, text } = await get(`/info/bidders?${query}`);
        expect([status, text], query).to.deep.equal([400, "Invalid value for 'enabledonly' query param, must be of boolean type"]);
      }
      const base = await get('/info/bidders?enabledonly=true&baseadaptersonly=no');
      expect([base.status, base.text]).to.deep.equal([400, "Invalid value for 'baseadaptersonly' query param, must be of boolean type"]);
    });

    it('with ?baseadaptersonly=true leaves out aliases, with or without enabledonly', async () => {
      const { json } = await get('/info/bidders?baseadaptersonly=true');
      expect(json).to.include.members(['appnexus', 'ortb']);
      expect(json).to.not.include.members(['mynexus']);
      expect(json).to.not.include.members(['alpha']);
      const enabled = await get('/info/bidders?baseadaptersonly=true&enabledonly=true');
      expect(enabled.json).to.include('appnexus').and.not.include('ortb').and.not.include('mynexus');
    });
  });

  describe('GET /info/bidders/<name>', () => {
    it("describes an enabled adapter as Prebid Server does: status, usesHttps, maintainer, capabilities (app, site, dooh), nothing else", async () => {
      const { status, text } = await get('/info/bidders/appnexus');
      expect(status).to.equal(200);
      const info = manifestOf('appnexus').info;
      expect(text).to.equal(
        JSON.stringify({
          status: 'ACTIVE',
          usesHttps: info.endpoint!.startsWith('https://'),
          maintainer: { email: info.maintainer.email },
          capabilities: { app: info.capabilities.app, site: info.capabilities.site },
        }),
      );
    });

    it('names the adapter a config alias stands for, last', async () => {
      const { json } = await get('/info/bidders/mynexus');
      expect(Object.keys(json)).to.deep.equal(['status', 'usesHttps', 'maintainer', 'capabilities', 'aliasOf']);
      expect(json).to.include({ status: 'ACTIVE', aliasOf: 'appnexus' });
      const alpha = await get('/info/bidders/alpha');
      expect(alpha.json).to.include({ status: 'ACTIVE', usesHttps: true, aliasOf: 'ortb' });
    });

    it('shows a disabled bidder with its status, maintainer and alias target only', async () => {
      const { json } = await get('/info/bidders/resting');
      expect(json).to.deep.equal({ status: 'DISABLED', maintainer: manifestOf('ortb').info.maintainer, aliasOf: 'ortb' });
      const ortb = await get('/info/bidders/ortb');
      expect(ortb.json).to.deep.equal({ status: 'DISABLED', maintainer: manifestOf('ortb').info.maintainer });
    });

    it('finds a bidder whatever the case of its name', async () => {
      const [{ status, json }, lower] = await Promise.all([get('/info/bidders/AppNexus'), get('/info/bidders/appnexus')]);
      expect(status).to.equal(200);
      expect(json).to.deep.equal(lower.json);
    });

    it('answers /info/bidders/all (any case) with every bidder by name, as one object', async () => {
      const [{ status, json }, names, ALL] = await Promise.all([get('/info/bidders/all'), get('/info/bidders'), get('/info/bidders/ALL')]);
      expect(status).to.equal(200);
      expect(Object.keys(json)).to.deep.equal(names.json);
      expect(json.mynexus).to.deep.equal((await get('/info/bidders/mynexus')).json);
      expect(ALL.json).to.deep.equal(json);
    });

    it('answers 404 with no body for a bidder it does not know', async () => {
      const { status, text } = await get('/info/bidders/nobody');
      expect([status, text]).to.deep.equal([404, '']);
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
