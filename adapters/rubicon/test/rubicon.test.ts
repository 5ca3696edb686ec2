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

/**
 * The host our own fixtures are written for: a real regional endpoint and XAPI credentials, as a host configures
 * them (the fixture runner itself creates bidders with `extra: {}`).
 */
/** The host our own fixtures were written for (shared with the registry-wide checks). */
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
  return createFromManifest({ name: 'rubicon', endpoint, extra, ortbVersion: '2.6' }, { logger });
}

const bannerRequest: BidRequest = {
  id: 'r1',
  site: { page: 'https://a.example/' },
  imp: [{ id: 'i1', banner: { w: 300, h: 250 }, ext: { bidder: { accountId: 1, siteId: 2, zoneId: 3 } } }],
};

function onlyRequest(bidder: Bidder, request: BidRequest = bannerRequest): RequestData {
  const { requests, errors } = bidder.makeRequests(request, { bidder: 'rubicon', endpoint: 'auction' });
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
    it('sends to the configured endpoint with the tracker, and authenticates with the XAPI credentials', () => {
      const call = onlyRequest(createBidder(TEST_HOST.endpoint, { xapi: { username: 'u', password: 'p', tracker: 'trk' } }));
      expect(call.uri).to.equal('https://exapi-us-east.rubiconproject.com/a/api/exchange?tk_xint=trk');
      expect(call.headers?.Authorization).to.equal(`Basic ${Buffer.from('u:p').toString('base64')}`);
      expect(impTarget(call).pbs_login).to.equal('u');
    });

    it('uses the username as tracker when Magnite issued no separate one, and keeps an existing query string', () => {
      const call = onlyRequest(createBidder('https://exapi-eu.rubiconproject.com/a/api/exchange?x=1', { xapi: { username: 'acct', password: 'p' } }));
      expect(call.uri).to.equal('https://exapi-eu.rubiconproject.com/a/api/exchange?x=1&tk_xint=acct');
    });

    it('reports the host URL and version in the imp targeting', () => {
      const call = onlyRequest(createBidder(TEST_HOST.endpoint, { xapi: { username: 'u' }, externalUrl: 'https://pbs.example', hostVersion: '2.0.0' }));
      expect(impTarget(call)).to.include({ pbs_url: 'https://pbs.example', pbs_version: '2.0.0' });
    });

    it('falls back to the unroutable placeholder host and warns when nothing is configured', () => {
      const logger = capturingLogger();
      const call = onlyRequest(createBidder(manifest.info.endpoint ?? '', {}, logger));
      expect(call.uri).to.equal('uri?tk_xint=pbs-test-tracker');
      expect(() => new URL(call.uri)).to.throw();
      expect(logger.warnings.join(' ')).to.contain('xapi.username');
    });
  });

  describe('robustness', () => {
    const bidder = createBidder(TEST_HOST.endpoint, TEST_HOST.extra);
    const info = { bidder: 'rubicon', endpoint: 'auction' as const };

    it('reports a bad-input error instead of throwing on odd requests', () => {
      const odd = [
        { id: 'x', imp: [null] },
        { id: 'x', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: 'not an object' }] },
        { id: 'x', site: {}, imp: [{ id: 'i', video: {}, ext: { bidder: { accountId: 1, siteId: 2, zoneId: 3, video: 'no' } } }], user: { ext: 5 } },
      ] as unknown as BidRequest[];
      for (const request of odd) {
        const result = bidder.makeRequests(request, info);
        for (const error of result.errors ?? []) expect(error.code).to.equal(BidderErrorCode.BadInput);
      }
      expect(bidder.makeRequests({ id: 'x' } as unknown as BidRequest, info).requests).to.deep.equal([]);
    });

    it('answers odd response bodies with errors, never a throw', () => {
      const sent = onlyRequest(bidder);
      for (const body of ['null', '"text"', '{"seatbid": 5}', '{"seatbid": [{"bid": [null, 3]}]}']) {
        const result = bidder.makeBids(bannerRequest, sent, { status: 200, body, headers: {} });
        expect(result.bids).to.deep.equal([]);
      }
      const garbled = bidder.makeBids(bannerRequest, { ...sent, body: '{not json' }, { status: 200, body: '{"seatbid":[{"bid":[{"id":"b","impid":"i1","price":1}]}]}', headers: {} });
      expect(garbled.bids.map((bid) => bid.type)).to.deep.equal(['banner']);
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
