/**
 * Aliases: a bidder that runs another adapter's code under its own name, declared either by host config
 * (`bidders.<alias>: { aliasOf: <adapter> }`) or by an adapter folder whose manifest only says `info.aliasOf`.
 * Either way it inherits the target's endpoint and params schema, and is listed and callable under its own name.
 */
import { expect } from 'chai';
import { ErrorCode } from '../../core/api/index.js';
import { discoverPlugins } from '../../core/plugins/discover.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { getJson } from '../support/gavel.js';
import { makePluginRoot, manifestModule, type PluginRoot } from './plugin-root.js';

const ACME = { maintainer: { email: 'prebid@acme.example' }, capabilities: { site: { mediaTypes: ['banner'] } } };

describe('aliases by configuration', () => {
  let mock: MockBidder;
  let gavel: RunningGavel;
  const manifestOf = (name: string) => gavel.app.plugins.adapters.get(name)!.manifest;

  before(async () => {
    mock = await startMockBidder();
    gavel = await startGavel({
      bidders: {
        mynexus: { aliasOf: 'appnexus' },
        nexusmock: { aliasOf: 'appnexus', endpoint: `${mock.url}/appnexus` },
        myortb: { aliasOf: 'ortb', endpoint: `${mock.url}/rtb?name=myortb&price=1.5` },
      },
    });
  });
  after(async () => {
    await gavel?.close();
    await mock?.close();
  });
  beforeEach(() => void (mock.received.length = 0));

  it('lists the alias with the adapter it stands for and inherits its facts', async () => {
    const { status, json } = await getJson(`${gavel.url}/info/bidders/mynexus`);
    expect(status).to.equal(200);
    const appnexus = manifestOf('appnexus').info;
    expect(json).to.include({ status: 'ACTIVE', aliasOf: 'appnexus', usesHttps: appnexus.endpoint!.startsWith('https://') });
    expect(json.capabilities).to.deep.equal(appnexus.capabilities);
    expect(json.maintainer).to.deep.equal(appnexus.maintainer);
  });

  it('publishes the target schema as the alias params schema', async () => {
    const { json } = await getJson(`${gavel.url}/bidders/params`);
    expect(json.mynexus).to.deep.equal(manifestOf('appnexus').paramsSchema);
  });

  it('validates the alias params with the target schema', async () => {
    const { status, text } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ mynexus: { placement_id: true } }));
    expect(status).to.equal(400);
    expect(text).to.contain('mynexus');
  });

  it('runs an auction through an alias of ortb against a real bidder, under the alias name', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ myortb: { zone: 'z1' } }));
    expect(status).to.equal(200);
    expect(json.seatbid).to.have.length(1);
    expect(json.seatbid[0].seat).to.equal('myortb');
    expect(json.seatbid[0].bid[0].price).to.equal(1.5);
    expect(mock.received).to.have.length(1);
    expect(mock.received[0]!.url).to.equal('/rtb?name=myortb&price=1.5');
    expect((mock.received[0]!.body.imp as any[])[0].ext).to.deep.include({ bidder: { zone: 'z1' } }).and.have.all.keys('bidder', 'tid');
  });

  it('builds the alias request with the target code (appnexus wire format)', async () => {
    await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ nexusmock: { placement_id: 123 } }));
    expect(mock.received).to.have.length(1);
    expect(mock.received[0]!.url).to.equal('/appnexus');
    expect((mock.received[0]!.body.imp as any[])[0].ext.appnexus.placement_id).to.equal(123);
  });

  it('stops boot when an alias names an adapter that is not installed', async () => {
    const failure = await startGavel({ bidders: { ghost: { aliasOf: 'nosuchadapter' } } }).then(
      (started) => started.close().then(() => undefined),
      (err: { code?: string; message: string }) => err,
    );
    expect(failure?.code).to.equal(ErrorCode.BidderUnknownAdapter);
    expect(failure?.message).to.contain('bidders.ghost').and.contain('nosuchadapter');
  });
});

describe('an alias adapter folder (manifest with info.aliasOf only)', () => {
  let mock: MockBidder;
  let plugins: PluginRoot;
  let gavel: RunningGavel;

  before(async () => {
    mock = await startMockBidder();
    plugins = makePluginRoot(['appnexus', 'ortb']);
    plugins.writeAdapter('acmenexus', manifestModule({ name: 'acmenexus', info: { aliasOf: 'appnexus', ...ACME } }));
    plugins.writeAdapter('acmeortb', manifestModule({ name: 'acmeortb', info: { aliasOf: 'ortb', endpoint: `${mock.url}/rtb?name=acmeortb&price=2`, ...ACME } }));
    gavel = await startGavel({}, { pluginRoot: plugins.root });
  });
  after(async () => {
    await gavel?.close();
    await mock?.close();
    plugins?.remove();
  });

  it('is listed with aliasOf, whether its target\'s endpoint is https, and its own maintainer and capabilities', async () => {
    const { json } = await getJson(`${gavel.url}/info/bidders/acmenexus`);
    const appnexus = gavel.app.plugins.adapters.get('appnexus')!.manifest.info;
    expect(json).to.include({ status: 'ACTIVE', aliasOf: 'appnexus', usesHttps: appnexus.endpoint!.startsWith('https://') });
    expect(json.maintainer).to.deep.equal(ACME.maintainer);
    expect(json.capabilities).to.deep.equal(ACME.capabilities);
  });

  it('has the target params schema', async () => {
    const { json } = await getJson(`${gavel.url}/bidders/params`);
    expect(json.acmenexus).to.deep.equal(gavel.app.plugins.adapters.get('appnexus')!.manifest.paramsSchema);
  });

  it('bids in an auction from its own endpoint, with the target code', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ acmeortb: { zone: 7 } }));
    expect(status).to.equal(200);
    expect(json.seatbid?.map((seat: { seat: string }) => seat.seat)).to.deep.equal(['acmeortb']);
    expect(json.seatbid[0].bid[0].price).to.equal(2);
    expect(mock.received.map((call) => call.url)).to.deep.equal(['/rtb?name=acmeortb&price=2']);
  });

  describe('that points nowhere useful', () => {
    let broken: PluginRoot;
    beforeEach(() => void (broken = makePluginRoot(['appnexus'])));
    afterEach(() => broken.remove());

    const discoveryFailure = () => discoverPlugins({ root: broken.root }).then(() => undefined, (err: { code?: string; message: string }) => err);

    it('stops discovery, naming the folder, when its target is not installed', async () => {
      const folder = broken.writeAdapter('lostalias', manifestModule({ name: 'lostalias', info: { aliasOf: 'nosuchadapter', ...ACME } }));
      const failure = await discoveryFailure();
      expect(failure?.code).to.equal(ErrorCode.PluginInvalid);
      expect(failure?.message).to.contain(folder).and.contain('nosuchadapter');
    });

    it('stops discovery, naming the folder, when its target is itself an alias', async () => {
      broken.writeAdapter('firstalias', manifestModule({ name: 'firstalias', info: { aliasOf: 'appnexus', ...ACME } }));
      const folder = broken.writeAdapter('secondalias', manifestModule({ name: 'secondalias', info: { aliasOf: 'firstalias', ...ACME } }));
      const failure = await discoveryFailure();
      expect(failure?.code).to.equal(ErrorCode.PluginInvalid);
      expect(failure?.message).to.contain(folder).and.contain('firstalias');
    });
  });
});
