import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_KEY } from '../fixtures/adapters/keyed/index.js';
import { bannerRequest, getJson, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

/**
 * A Gavel beside a mock bidder, reading stored data from a fresh folder holding `files` (path to JSON), for the
 * enclosing describe block; `config` receives the mock bidder's URL. Both are closed, and the folder removed, after it.
 */
function gavelWithStoredFiles(files: Record<string, unknown>, config: (bidderUrl: string) => Parameters<typeof startGavel>[0]): { gavel(): RunningGavel; bidder(): MockBidder } {
  let dir: string;
  let bidder: MockBidder;
  let gavel: RunningGavel;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-debug-'));
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, dirname(path)), { recursive: true });
      writeFileSync(join(dir, path), JSON.stringify(content));
    }
    bidder = await startMockBidder();
    gavel = await startGavel({ ...config(bidder.url), storedRequests: { filesystem: { dir } } });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { gavel: () => gavel, bidder: () => bidder };
}

/** Debug output as Prebid Server gives it: asked for by the request, allowed by the account, forced by the host. */
describe('debug output', () => {
  const TOKEN = 'host-secret-token';
  const setup = gavelWithStoredFiles(
    { 'accounts/no-debug.json': { debug_allow: false }, 'imps/pod.json': { ext: { prebid: { bidder: { alpha: {} } } } } },
    (url) => ({
      bidders: { alpha: { adapter: 'ortb', endpoint: `${url}/rtb?name=alpha&price=2&mtype=2&adm=${encodeURIComponent('<VAST version="3.0"></VAST>')}` } },
      debug: { overrideToken: TOKEN },
    }),
  );
  let gavel: RunningGavel;
  let bidder: MockBidder;
  beforeEach(() => {
    gavel = setup.gavel();
    bidder = setup.bidder();
  });

  const auction = (extra: Record<string, unknown>, headers: Record<string, string> = {}) => postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, extra), headers);

  it('answers ext.prebid.debug: true alone with the bidder calls and the resolved request', async () => {
    const { json } = await auction({ ext: { prebid: { debug: true } } });
    const [call] = json.ext.debug.httpcalls.alpha;
    expect(call.uri).to.contain('/rtb?name=alpha');
    expect(JSON.parse(call.requestbody).imp[0].ext).to.deep.include({ bidder: {} }).and.have.all.keys('bidder', 'tid');
    // Headers the adapter set, each as a list of values (Prebid Server's shape).
    for (const values of Object.values(call.requestheaders ?? {})) expect(values).to.be.an('array');
    expect(call.status).to.equal(200);
    expect(json.ext.debug.resolvedrequest.id).to.equal('req-1');
    expect(json.ext.warnings).to.equal(undefined);
  });

  it('gives none without a request for it, saying the account debug is off', async () => {
    const { json } = await auction({});
    expect(json.ext.debug).to.equal(undefined);
    expect(json.ext.warnings.general).to.deep.equal([{ code: 10002, message: 'debug turned off for account' }]);
  });

  it("gives debug output under the host's override token even to an account that does not allow it, and never for a wrong token", async () => {
    const denied = await auction({ test: 1, site: { page: 'https://p.example', publisher: { id: 'no-debug' } } });
    expect(denied.json.ext.debug).to.equal(undefined);
    const wrong = await auction({ site: { page: 'https://p.example', publisher: { id: 'no-debug' } } }, { 'x-pbs-debug-override': 'guess' });
    expect(wrong.json.ext.debug).to.equal(undefined);
    const forced = await auction({ site: { page: 'https://p.example', publisher: { id: 'no-debug' } } }, { 'x-pbs-debug-override': TOKEN });
    expect(forced.json.ext.debug.httpcalls.alpha).to.have.length(1);
    expect(forced.json.ext.warnings).to.equal(undefined);
  });

  it('keeps the video debug log in the bid cache with ?debug=true, and sends the bidders a test request', async () => {
    bidder.received.length = 0;
    const request = {
      podconfig: { durationrangesec: [15, 30], pods: [{ podid: 1, adpoddurationsec: 30, configid: 'pod' }] },
      site: { page: 'https://video.example/1', publisher: { id: 'no-debug' } },
      video: { w: 640, h: 360, mimes: ['video/mp4'], protocols: [2, 3] },
    };
    const answer = await postJson(`${gavel.url}/openrtb2/video?debug=true`, request, { 'x-test-header': 'seen' });
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.adPods[0].podid).to.equal(1);
    expect(answer.json.ext.debug.httpcalls.alpha).to.have.length(1);
    expect(bidder.received.every((call) => call.body.test === 1)).to.equal(true);
    const id = answer.json.ext.debug.logcacheid;
    const log = await getJson(`${gavel.url}/cache?uuid=${id}`);
    expect(log.status).to.equal(200);
    expect(log.text).to.match(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<Log><Request>\{"podconfig"/);
    expect(log.text).to.contain('"x-test-header":"seen"').and.to.contain('<Response>{"responsetimemillis"');
  });

  it("keeps the video debug log of a refused request with its errors, as Prebid Server's debug log lists them", async () => {
    const request = { podconfig: { durationrangesec: [15] }, site: { page: 'https://video.example/1', publisher: { id: 'no-debug' } } };
    const answer = await postJson(`${gavel.url}/openrtb2/video?debug=true`, request);
    expect(answer.status).to.equal(400);
    const id = /\[Debug cache ID: ([^\]]+)\]\n$/.exec(answer.text)?.[1];
    expect(id, answer.text).to.be.a('string');
    const log = await getJson(`${gavel.url}/cache?uuid=${id}`);
    expect(log.text).to.contain('<Response>\nErrors:\nrequest missing required field: PodConfig.Pods\nrequest missing required field: Video</Response></Log>');
  });
});

describe('debug output without secrets', () => {
  const keyed = fileURLToPath(new URL('../fixtures/adapters/keyed/', import.meta.url));
  const setup = gavelWithStoredFiles({ 'accounts/open.json': { debug_allow: true, debug_allow_cross_origin: true } }, (url) => ({
    plugins: [keyed],
    bidders: {
      keyed: { endpoint: `${url}/rtb?name=keyed&price=1` },
      rubicon: { endpoint: `${url}/rtb?name=rubicon&price=1`, extra: { xapi: { username: 'host-user', password: 'host-password', tracker: 't' } } },
    },
  }));
  let gavel: RunningGavel;
  let bidder: MockBidder;
  beforeEach(() => {
    gavel = setup.gavel();
    bidder = setup.bidder();
  });

  it('leaves Authorization out as Prebid Server does, masks cookies and the headers and query parameters an adapter marks secret; shows the rest', async () => {
    const request = bannerRequest({ keyed: {}, rubicon: { accountId: 1, siteId: 2, zoneId: 3 } }, { test: 1 });
    const { json, text } = await postJson(`${gavel.url}/openrtb2/auction`, request);
    expect(text).not.to.contain(API_KEY);
    expect(text).not.to.contain(Buffer.from('host-user:host-password').toString('base64'));
    const [call] = json.ext.debug.httpcalls.keyed;
    expect(call.requestheaders).to.deep.include({ 'X-Api-Key': ['[masked]'], Cookie: ['[masked]'], 'X-Plain': ['shown'] });
    expect(call.requestheaders).not.to.have.property('Authorization');
    expect(new URL(call.uri).searchParams.get('apikey')).to.equal('[masked]');
    expect(new URL(call.uri).searchParams.get('name')).to.equal('keyed');
    expect(json.ext.debug.httpcalls.rubicon[0].requestheaders).not.to.have.property('Authorization');
    // What the bidder received is the real thing.
    const sent = bidder.received.find((seen) => seen.url.includes('name=keyed'))!;
    expect(sent.headers['x-api-key']).to.equal(API_KEY);
    expect(sent.url).to.contain(`apikey=${API_KEY}`);
  });

  const crossSite = { origin: 'https://other-site.example', cookie: 'uids=abc' };

  it('is off for a cross-origin request with cookies, saying why', async () => {
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ keyed: {} }, { test: 1 }), crossSite);
    expect(json.ext.debug).to.equal(undefined);
    expect(json.ext.warnings.general[0].code).to.equal(10002);
    expect(json.ext.warnings.general[0].message).to.contain('cross-origin');
  });

  it('stays on for a cross-origin request without cookies, and for a credentialed one when the account allows it', async () => {
    expect((await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ keyed: {} }, { test: 1 }), { origin: 'https://other-site.example' })).json.ext.debug).to.be.an('object');
    const allowed = bannerRequest({ keyed: {} }, { test: 1, site: { page: 'https://p.example/', publisher: { id: 'open' } } });
    expect((await postJson(`${gavel.url}/openrtb2/auction`, allowed, crossSite)).json.ext.debug).to.be.an('object');
  });
});

/** Prebid Server's bidder `debug.allow`: a bidder may keep its calls out of debug output, except under the override. */
describe("debug output of a bidder whose debug.allow is false", () => {
  const TOKEN = 'host-secret-token';
  const setup = gavelWithStoredFiles({ 'accounts/no-debug.json': { debug_allow: false } }, (url) => ({
    bidders: {
      open: { adapter: 'ortb', endpoint: `${url}/rtb?name=open&price=1` },
      closed: { adapter: 'ortb', endpoint: `${url}/rtb?name=closed&price=2`, debug: { allow: false } },
    },
    debug: { overrideToken: TOKEN },
  }));
  let gavel: RunningGavel;
  beforeEach(() => {
    gavel = setup.gavel();
  });

  const auction = (extra: Record<string, unknown>, headers: Record<string, string> = {}) => postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ open: {}, closed: {} }, extra), headers);

  it("leaves its calls out of ext.debug.httpcalls, with Prebid Server's warning 10003; other bidders' show", async () => {
    const { json } = await auction({ ext: { prebid: { debug: true } } });
    expect(Object.keys(json.ext.debug.httpcalls)).to.deep.equal(['open']);
    expect(json.ext.debug.httpcalls.open).to.have.length(1);
    expect(json.ext.warnings).to.deep.equal({ closed: [{ code: 10003, message: 'debug turned off for bidder' }] });
    // The bidder was called, and bid, all the same.
    expect(json.seatbid.map((seat: { seat: string }) => seat.seat).sort()).to.deep.equal(['closed', 'open']);
  });

  it('shows its calls under the debug override header, without the warning', async () => {
    const { json } = await auction({ ext: { prebid: { debug: true } } }, { 'x-pbs-debug-override': TOKEN });
    expect(json.ext.debug.httpcalls.closed).to.have.length(1);
    expect(json.ext.debug.httpcalls.open).to.have.length(1);
    expect(json.ext.warnings).to.equal(undefined);
    // The override alone, for an account without debug, shows them too.
    const forced = await auction({ site: { page: 'https://p.example', publisher: { id: 'no-debug' } } }, { 'x-pbs-debug-override': TOKEN });
    expect(forced.json.ext.debug.httpcalls.closed).to.have.length(1);
    expect(forced.json.ext.warnings).to.equal(undefined);
  });

  it('adds no bidder warning when there is no debug output at all', async () => {
    const { json } = await auction({});
    expect(json.ext.debug).to.equal(undefined);
    expect(json.ext.warnings).to.deep.equal({ general: [{ code: 10002, message: 'debug turned off for account' }] });
    const denied = await auction({ test: 1, site: { page: 'https://p.example', publisher: { id: 'no-debug' } } });
    expect(denied.json.ext.debug).to.equal(undefined);
    expect(denied.json.ext.warnings.closed).to.equal(undefined);
  });
});
