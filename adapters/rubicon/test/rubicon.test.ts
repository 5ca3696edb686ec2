import { testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import {
  BidderErrorCode,
  type AdapterDeps,
  type AdapterManifest,
  type BidderConfig,
  type BidRequest,
  type Bidder,
  type RequestData,
} from '../../../core/api/index.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixtureDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const REGIONAL_ENDPOINT = 'https://exapi-us-east.rubiconproject.com/a/api/exchange';

/**
 * The host our fixtures and Prebid Server's are recorded under (test/host-config.json), shared with the registry-wide
 * checks and `npm run conformance`: Prebid Server's reference test host.
 */
const TEST_HOST = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { endpoint: string; extra: Record<string, unknown> };

function createFromManifest(config: BidderConfig, deps: AdapterDeps): Bidder {
  if (!manifest.create) throw new Error('the rubicon manifest has no create()');
  return manifest.create(config, deps);
}

const configuredManifest: AdapterManifest = {
  ...manifest,
  create: (config, deps) => createFromManifest({ ...config, endpoint: TEST_HOST.endpoint, extra: TEST_HOST.extra }, deps),
};

interface CapturingLogger {
  warnings: string[];
  debug(): void;
  info(): void;
  warn(obj: object | string, msg?: string): void;
  error(): void;
}

function capturingLogger(): CapturingLogger {
  const warnings: string[] = [];
  return { warnings, debug() {}, info() {}, warn: (obj, msg) => void warnings.push(msg ?? String(obj)), error() {} };
}

function createBidder(endpoint: string, extra: Record<string, unknown>, logger = capturingLogger()): Bidder {
  return createFromManifest({ name: 'rubicon', endpoint, extra, ortbVersion: '2.6', host: { externalUrl: 'http://hosturl.com' } }, { logger });
}

const bannerRequest: BidRequest = {
  id: 'r1',
  site: { page: 'https://a.example/' },
  imp: [{ id: 'i1', banner: { w: 300, h: 250 }, ext: { bidder: { accountId: 1, siteId: 2, zoneId: 3 } } }],
};

function onlyRequest(bidder: Bidder, request: BidRequest = bannerRequest): RequestData {
  const { requests, errors } = bidder.makeRequests(request, testRequestInfo('rubicon', 'auction'));
  expect(errors ?? []).to.deep.equal([]);
  expect(requests).to.have.length(1);
  return requests[0]!;
}

function impTarget(call: RequestData): Record<string, unknown> {
  const body = call.body as { imp: Array<{ ext: { rp: { target: Record<string, unknown> } } }> };
  return body.imp[0]!.ext.rp.target;
}

describe('rubicon adapter', () => {
  describe('fixtures (test host configuration)', () => {
    for (const outcome of runFixturesWith(configuredManifest, fixtureDir)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  const ids = { accountId: 1001, siteId: 113932, zoneId: 535510 };
  describeParamsTable(manifest, {
    valid: [
      ['numeric ids', ids],
      ['ids as digit strings', { accountId: '1001', siteId: '113932', zoneId: '535510' }],
      ['a zero-padded digit string', { ...ids, zoneId: '0' }],
      ['inventory and visitor lists', { ...ids, inventory: { rating: ['5-star'], tags: [] }, visitor: { age: ['30s'] } }],
      ['bidonmultiformat', { ...ids, bidonmultiformat: true }],
      ['pchain', { ...ids, pchain: 'chain' }],
      ['video settings', { ...ids, video: { language: 'en', playerWidth: '640', playerHeight: 360, size_id: 201, skip: 1, skipdelay: 5 } }],
      ['an unknown extra field', { ...ids, note: 'kept' }],
    ],
    invalid: [
      ['no ids', {}],
      ['no zoneId', { accountId: 1, siteId: 2 }],
      ['no siteId', { accountId: 1, zoneId: 3 }],
      ['no accountId', { siteId: 2, zoneId: 3 }],
      ['a zero id', { ...ids, accountId: 0 }],
      ['a negative id', { ...ids, siteId: -4 }],
      ['a fractional id', { ...ids, siteId: 1.5 }],
      ['a non-digit string id', { ...ids, zoneId: '12a' }],
      ['an empty string id', { ...ids, zoneId: '' }],
      ['a boolean id', { ...ids, accountId: true }],
      ['inventory values that are not lists', { ...ids, inventory: { rating: '5-star' } }],
      ['visitor that is not an object', { ...ids, visitor: ['30s'] }],
      ['bidonmultiformat as text', { ...ids, bidonmultiformat: 'true' }],
      ['numeric pchain', { ...ids, pchain: 5 }],
      ['size_id as text', { ...ids, video: { size_id: '201' } }],
      ['fractional skip', { ...ids, video: { skip: 0.5 } }],
      ['playerWidth as a boolean', { ...ids, video: { playerWidth: true } }],
      ['null', null],
      ['an array', [ids]],
    ],
  });

  describe('host settings', () => {
    it('sends to the configured endpoint with the tracker, as the XAPI user agent, authenticated with the XAPI credentials', () => {
      const call = onlyRequest(createBidder(REGIONAL_ENDPOINT, { xapi: { username: 'u', password: 'p', tracker: 'trk' } }));
      expect(call.uri).to.equal(`${REGIONAL_ENDPOINT}?tk_xint=trk`);
      expect(call.headers?.Authorization).to.equal(`Basic ${Buffer.from('u:p').toString('base64')}`);
      expect(call.headers?.['User-Agent']).to.equal('prebid-server/1.0');
      expect(impTarget(call).pbs_login).to.equal('u');
    });

    it('adds the tracker (empty when none is configured) to the query as Go does: keys sorted, values form-encoded', () => {
      const call = onlyRequest(createBidder(`${REGIONAL_ENDPOINT}?x=1&a=b c`, { xapi: { username: 'acct', password: 'p' } }));
      expect(call.uri).to.equal(`${REGIONAL_ENDPOINT}?a=b+c&tk_xint=&x=1`);
    });

    it('reports the host URL (server.externalUrl) and the configured version in the imp targeting', () => {
      const bidder = createFromManifest(
        { name: 'rubicon', endpoint: REGIONAL_ENDPOINT, extra: { xapi: { username: 'u', password: 'p' }, hostVersion: '2.0.0' }, ortbVersion: '2.6', host: { externalUrl: 'https://pbs.example' } },
        { logger: capturingLogger() },
      );
      expect(impTarget(onlyRequest(bidder))).to.include({ pbs_url: 'https://pbs.example', pbs_version: '2.0.0' });
    });

    it("reports the host's Gavel version when the host configures none", () => {
      const bidder = createFromManifest(
        { name: 'rubicon', endpoint: REGIONAL_ENDPOINT, extra: { xapi: { username: 'u', password: 'p' } }, ortbVersion: '2.6', host: { externalUrl: 'https://pbs.example', version: '0.1.0' } },
        { logger: capturingLogger() },
      );
      expect(impTarget(onlyRequest(bidder))).to.include({ pbs_version: '0.1.0' });
    });

    it('ships no endpoint, disabled, and sends nothing (with a warning at boot) until the host gives XAPI credentials', () => {
      expect(manifest.info.endpoint).to.equal(undefined);
      expect(manifest.info.disabled).to.equal(true);
      for (const xapi of [undefined, { username: 'u' }, { password: 'p' }]) {
        const logger = capturingLogger();
        const { requests, errors } = createBidder(REGIONAL_ENDPOINT, xapi ? { xapi } : {}, logger).makeRequests(bannerRequest, testRequestInfo('rubicon'));
        expect(requests).to.deep.equal([]);
        expect(errors?.map((error) => error.code)).to.deep.equal([BidderErrorCode.BadInput]);
        expect(logger.warnings.join(' ')).to.contain('extra.xapi.username and password');
      }
    });
  });

  describe('floors in other currencies', () => {
    const bidder = createBidder(TEST_HOST.endpoint, TEST_HOST.extra);
    const eurFloor: BidRequest = { ...bannerRequest, imp: [{ ...bannerRequest.imp[0]!, bidfloor: 2, bidfloorcur: 'EUR' }] };

    it('are converted to US dollars with the auction\'s rates', () => {
      const info = testRequestInfo('rubicon', 'auction', { convertCurrency: (amount, from, to) => (from === 'EUR' && to === 'USD' ? amount * 1.25 : amount) });
      const { requests } = bidder.makeRequests(eurFloor, info);
      const imp = (requests[0]!.body as BidRequest).imp[0]!;
      expect([imp.bidfloor, imp.bidfloorcur]).to.deep.equal([2.5, 'USD']);
    });

    it('make the imp bad input when no rate is known', () => {
      const { requests, errors } = bidder.makeRequests(eurFloor, testRequestInfo('rubicon'));
      expect(requests).to.deep.equal([]);
      expect(errors).to.deep.equal([{ code: BidderErrorCode.BadInput, message: 'Unable to convert provided bid floor currency from EUR to USD' }]);
    });
  });

  describe('robustness', () => {
    const bidder = createBidder(TEST_HOST.endpoint, TEST_HOST.extra);
    const info = testRequestInfo('rubicon');

    it('reports errors instead of throwing on odd requests', () => {
      const odd = [
        { id: 'x', imp: [null] },
        { id: 'x', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: 'not an object' }] },
        { id: 'x', site: {}, imp: [{ id: 'i', video: {}, ext: { bidder: { accountId: 1, siteId: 2, zoneId: 3, video: 'no' } } }], user: { ext: 5 } },
      ] as unknown as BidRequest[];
      for (const request of odd) {
        const result = bidder.makeRequests(request, info);
        expect(result.requests, JSON.stringify(request)).to.deep.equal([]);
        expect(result.errors, JSON.stringify(request)).to.have.length(1);
      }
      expect(bidder.makeRequests({ id: 'x' } as unknown as BidRequest, info).requests).to.deep.equal([]);
    });

    it('reports an imp params error as bad input and a request it cannot bring to OpenRTB 2.6 as an unknown error', () => {
      const badParams = { id: 'x', site: {}, imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { accountId: true } } }] } as unknown as BidRequest;
      expect(bidder.makeRequests(badParams, info).errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.BadInput]);
      const badUserExt = { ...bannerRequest, user: { ext: { eids: 'none' } } } as unknown as BidRequest;
      expect(bidder.makeRequests(badUserExt, info).errors).to.deep.equal([{ code: BidderErrorCode.Unknown, message: 'req.user.ext is invalid: decode slice: expect [ or n, but found "' }]);
    });

    it('answers odd response bodies with bad server responses, never a throw', () => {
      const sent = onlyRequest(bidder);
      for (const body of ['"text"', '{"seatbid": 5}', '{"seatbid": [{"bid": [null, 3]}]}', '{"seatbid": [{"buyer": 12, "bid": []}]}']) {
        const result = bidder.makeBids(bannerRequest, sent, { status: 200, body, headers: {} });
        expect(result.bids, body).to.deep.equal([]);
        expect(result.errors?.map((e) => e.code), body).to.deep.equal([BidderErrorCode.BadServerResponse]);
      }
      expect(bidder.makeBids(bannerRequest, sent, { status: 200, body: 'null', headers: {} })).to.deep.equal({ currency: 'USD', bids: [], errors: [] });
      const garbled = bidder.makeBids(bannerRequest, { ...sent, body: '{not json' }, { status: 200, body: '{"seatbid":[{"bid":[{"id":"b","impid":"i1","price":1}]}]}', headers: {} });
      expect(garbled.bids).to.deep.equal([]);
      // Go decodes the sent body back with jsonutil and returns its error as it is.
      expect(garbled.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      const noImp = bidder.makeBids(bannerRequest, { ...sent, body: { id: 'x' } }, { status: 200, body: '{"seatbid":[{"bid":[{"id":"b","impid":"i1","price":1}]}]}', headers: {} });
      expect(noImp.errors?.map((e) => e.code)).to.deep.equal([BidderErrorCode.Unknown]);
    });

    it("reports what Go's decoder fails on while building a call as FailedToUnmarshal, its other errors as unknown", () => {
      const withImp = (imp: Record<string, unknown>, more: Record<string, unknown> = {}) =>
        ({ ...bannerRequest, ...more, imp: [{ ...bannerRequest.imp[0]!, ...imp }] }) as unknown as BidRequest;
      const params = (extra: Record<string, unknown>) => ({ ext: { bidder: { accountId: 1, siteId: 2, zoneId: 3, ...extra } } });
      const nativeImp = (request: string) => ({ banner: undefined, native: { ver: '1.2', request } });
      const codes = (request: BidRequest) => bidder.makeRequests(request, info).errors?.map((e) => e.code);
      // jsonutil.Unmarshal errors, returned unwrapped: 14.
      expect(codes(withImp(params({ inventory: 'x' }))), 'inventory').to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(withImp({ ext: { bidder: { accountId: 1, siteId: 2, zoneId: 3 }, rp: { target: 5 } } })), 'imp.ext.rp.target').to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(withImp({}, { site: { page: 'https://a.example/', ext: { data: 'x' } } })), 'site.ext.data').to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(withImp(params({ visitor: [1] }), { user: {} })), 'visitor').to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(withImp({}, { user: { ext: { data: 'x' } } })), 'user.ext.data').to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      expect(codes(withImp(nativeImp('[]'))), 'native request').to.deep.equal([BidderErrorCode.FailedToUnmarshal]);
      // Plain errors: 999.
      expect(codes(withImp(nativeImp('{}'))), 'native without event trackers').to.deep.equal([BidderErrorCode.Unknown]);
      expect(codes(withImp(params({ siteId: 'abc' }))), 'site id').to.deep.equal([BidderErrorCode.Unknown]);
    });

    it("writes an adm_native object as the markup the way Go re-encodes its raw text: compacted, HTML-safe, numbers and keys as written", () => {
      const body = '{"seatbid":[{"bid":[{"id":"b","impid":"i1","price":1,"ADM_NATIVE":{"w": 1.50, "u":"a&b"},"adm_native" : { "z" : 1e2 , "t" : "<x>" } }]}]}';
      const result = bidder.makeBids(bannerRequest, onlyRequest(bidder), { status: 200, body, headers: {} });
      expect(result.bids.map((bid) => bid.bid.adm)).to.deep.equal(['{"z":1e2,"t":"\\u003cx\\u003e"}']);
    });

    it('takes the request-level price override for imps without their own', () => {
      const request: BidRequest = { ...bannerRequest, ext: { prebid: { bidders: { rubicon: { debug: { cpmoverride: 3 } } } } } };
      const result = bidder.makeBids(request, onlyRequest(bidder), {
        status: 200,
        body: '{"seatbid":[{"bid":[{"id":"b","impid":"i1","price":1}]}]}',
        headers: {},
      });
      expect(result.bids.map((bid) => bid.bid.price)).to.deep.equal([3]);
    });
  });
});
