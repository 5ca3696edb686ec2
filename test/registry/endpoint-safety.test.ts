/**
 * Endpoint templates may take values from bidder params; no value may move a call to another host. Checked at both
 * layers: `compileEndpoint` (what adapters use to build URLs) and the core's re-check of every URL before sending,
 * which also stops an adapter that builds its URL by hand.
 */
import { expect } from 'chai';
import {
  compileEndpoint,
  defineAdapter,
  ErrorCode,
  GavelError,
  SDK_VERSION,
  type AdapterManifest,
  type BidRequest,
} from '../../core/api/index.js';
import { Tokens } from '../../core/app/tokens.js';
import type { PluginCatalog } from '../../core/plugins/discover.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { RecordingTransport } from './recording-transport.js';

const TEMPLATE = 'http://{{region}}.bidder.example/bid?pub={{publisherId}}';

/** Values that would change the host if pasted into it, written the ways an attacker would try. */
const HOSTILE_HOST_VALUES = [
  'evil.com',
  '.evil.com',
  'evil.com/',
  'a/b',
  'user@evil.com',
  'evil.com:8080',
  'a:1',
  'a?x=1',
  'a#frag',
  'evil%2Ecom',
  'evil%2Fcom',
  'evil.com%23',
  '127.0.0.1',
  '169.254.169.254',
  '[::1]',
  'evil\\com',
  'a b',
  'ｅｖｉｌ．ｃｏｍ',
  '',
];

function expectUnsafe(action: () => unknown): void {
  try {
    action();
  } catch (err) {
    expect(err).to.be.instanceOf(GavelError);
    expect((err as GavelError).code).to.equal(ErrorCode.EndpointUnsafe);
    return;
  }
  expect.fail('expected a GAVEL_E_ENDPOINT_UNSAFE error');
}

describe('compileEndpoint', () => {
  describe('compiling a template', () => {
    for (const template of [
      'bidder.example/openrtb2',
      'ftp://bidder.example/x',
      'javascript://bidder.example/x',
      'http://{{host}}/bid',
      'http://{{a}}.{{b}}/bid',
      'http://{{a}}:{{port}}/bid',
      'http://bad_host!.example/bid',
      'http://user@bidder.example/bid',
    ]) {
      it(`refuses ${template}`, () => expectUnsafe(() => compileEndpoint(template)));
    }

    for (const template of [
      'https://bidder.example/openrtb2',
      'http://127.0.0.1:9999/rtb?name=a',
      'https://bidder.example:8443/x',
      TEMPLATE,
      'https://bidder.example/{{account}}/bid?site={{site}}',
      'https://{{ region }}.bidder.example/x',
      'https://{{.Host}}.bidder.example/x',
    ]) {
      it(`accepts ${template}`, () => expect(compileEndpoint(template).template).to.equal(template));
    }
  });

  describe('expanding', () => {
    const endpoint = compileEndpoint(TEMPLATE);

    it('fills a host macro with a DNS label and percent-encodes the others', () => {
      expect(endpoint.expand({ region: 'us-east-1', publisherId: 'a/b?c=d#e@evil.com:80' })).to.equal(
        'http://us-east-1.bidder.example/bid?pub=a%2Fb%3Fc%3Dd%23e%40evil.com%3A80',
      );
    });

    it('takes numbers and leaves a missing value outside the host empty', () => {
      expect(endpoint.expand({ region: 7 })).to.equal('http://7.bidder.example/bid?pub=');
    });

    it('encodes a path macro so it cannot climb out of its segment', () => {
      const pathTemplate = compileEndpoint('https://bidder.example/{{account}}/bid');
      expect(pathTemplate.expand({ account: '../../admin' })).to.equal('https://bidder.example/..%2F..%2Fadmin/bid');
    });

    for (const value of HOSTILE_HOST_VALUES) {
      it(`refuses the host value ${JSON.stringify(value)}`, () => expectUnsafe(() => endpoint.expand({ region: value, publisherId: 'p' })));
    }
  });

  describe('allows (the core re-check of finished URLs)', () => {
    const endpoint = compileEndpoint(TEMPLATE);

    it('allows any single label where the host macro is, whatever the path and query', () => {
      expect(endpoint.allows('http://eu.bidder.example/bid?pub=1')).to.equal(true);
      expect(endpoint.allows('http://EU.Bidder.Example/other/path#x')).to.equal(true);
    });

    for (const uri of [
      'http://evil.com/bid',
      'http://us.bidder.example.evil.com/bid',
      'http://a.b.bidder.example/bid',
      'http://evil.com#.bidder.example/bid',
      'http://us.bidder.example@evil.com/bid',
      'http://user@us.bidder.example/bid',
      'http://us.bidder.example:8080/bid',
      'https://us.bidder.example/bid',
      'http://127.0.0.1/bid',
      'not a url',
    ]) {
      it(`refuses ${uri}`, () => expect(endpoint.allows(uri)).to.equal(false));
    }
  });
});

/**
 * An adapter that pastes params into its URL by hand, as compileEndpoint tells adapters not to: the core's own
 * check is then the only thing between a hostile param and the network.
 */
const handMadeUrlAdapter: AdapterManifest = defineAdapter({
  name: 'handmade',
  version: '1.0.0',
  sdkVersion: SDK_VERSION,
  info: { maintainer: { email: 'tests@gavel.dev' }, capabilities: { site: { mediaTypes: ['banner'] } } },
  paramsSchema: { type: 'object' },
  create: (config) => ({
    makeRequests(request: BidRequest) {
      const params = (request.imp[0]?.ext?.bidder ?? {}) as Record<string, unknown>;
      const uri = config.endpoint.replace('{{region}}', String(params.region)).replace('{{publisherId}}', String(params.publisherId));
      return { requests: [{ method: 'POST', uri, body: request, impIds: request.imp.map((imp) => imp.id) }] };
    },
    makeBids: () => ({ bids: [] }),
  }),
});

describe('hostile params in an auction', () => {
  let mock: MockBidder;
  let transport: RecordingTransport;
  let gavel: RunningGavel;

  before(async () => {
    mock = await startMockBidder();
    transport = new RecordingTransport(mock.url);
    gavel = await startGavel(
      { bidders: { regional: { adapter: 'ortb', endpoint: TEMPLATE }, handmade: { endpoint: TEMPLATE } } },
      {
        configure(container) {
          container.get<PluginCatalog>(Tokens.PluginCatalog).adapters.set('handmade', { manifest: handMadeUrlAdapter, source: { kind: 'folder', location: 'test:handmade' } });
          container.rebind(Tokens.BidderTransport).toConstantValue(transport);
        },
      },
    );
  });
  after(async () => {
    // Closing Gavel closes the transport it was given.
    await gavel?.close();
    await mock?.close();
  });
  beforeEach(() => {
    transport.sent.length = 0;
    mock.received.length = 0;
  });

  const auction = (bidder: string, params: Record<string, unknown>) => postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ [bidder]: params }));

  it('sends a well-behaved call to the templated host, and the bidder answers', async () => {
    const { status, json } = await auction('regional', { region: 'us-east', publisherId: 'pub-1' });
    expect(status).to.equal(200);
    expect(transport.sent).to.deep.equal(['http://us-east.bidder.example/bid?pub=pub-1']);
    expect(json.seatbid?.[0]?.seat).to.equal('regional');
  });

  for (const value of HOSTILE_HOST_VALUES) {
    it(`rejects region ${JSON.stringify(value)} as a bidder error, and sends nothing`, async () => {
      const { status, json } = await auction('regional', { region: value, publisherId: 'pub-1' });
      expect(status).to.equal(200);
      expect(json.ext.errors.regional.map((error: { code: number }) => error.code)).to.deep.equal([2]);
      expect(json.seatbid ?? []).to.deep.equal([]);
      expect(transport.sent).to.deep.equal([]);
      expect(mock.received).to.deep.equal([]);
    });
  }

  for (const value of ['a/b', '../../admin', 'x@evil.com', 'x&admin=1', 'x#frag', '%2F', 'http://evil.com/']) {
    it(`delivers publisherId ${JSON.stringify(value)} to the right host, as one encoded query value`, async () => {
      const { status } = await auction('regional', { region: 'eu', publisherId: value });
      expect(status).to.equal(200);
      expect(transport.sent).to.have.length(1);
      expect(new URL(transport.sent[0]!).host).to.equal('eu.bidder.example');
      expect(mock.received).to.have.length(1);
      const query = new URL(mock.received[0]!.url, 'http://mock').searchParams;
      expect([...query.keys()]).to.deep.equal(['pub']);
      expect(query.get('pub')).to.equal(value);
    });
  }

  describe('an adapter that builds its URL by hand', () => {
    it('still reaches the templated host with harmless params', async () => {
      await auction('handmade', { region: 'us-west', publisherId: 'p' });
      expect(transport.sent).to.deep.equal(['http://us-west.bidder.example/bid?pub=p']);
    });

    for (const region of ['evil.com/x', 'evil.com#', 'user@evil.com', 'a.b', '127.0.0.1:80/']) {
      it(`is refused by the core when region ${JSON.stringify(region)} moves the call`, async () => {
        const { status, json } = await auction('handmade', { region, publisherId: 'p' });
        expect(status).to.equal(200);
        const errors = json.ext.errors.handmade as Array<{ code: number; message: string }>;
        expect(errors.map((error) => error.code)).to.deep.equal([2]);
        expect(errors[0]!.message).to.contain('refused to call');
        expect(transport.sent).to.deep.equal([]);
        expect(mock.received).to.deep.equal([]);
      });
    }
  });
});

describe('endpoint templates with a default port', () => {
  it('match finished URLs, from which the URL parser drops the default port', () => {
    const https = compileEndpoint('https://x.example:443/bid?a={{a}}');
    expect(https.expand({ a: '1' })).to.equal('https://x.example:443/bid?a=1');
    expect(https.allows('https://x.example/bid?a=1')).to.equal(true);
    expect(https.allows('https://x.example:8443/bid')).to.equal(false);
    expect(compileEndpoint('http://{{h}}.x.example:80/').allows('http://eu.x.example/')).to.equal(true);
  });
});
