import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BidderErrorCode, compileEndpoint, type BidRequest } from '../../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../../../test/harness/adapter-kit.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import { describeParamsTable } from '../../../test/harness/params-table.js';
import manifest from '../index.js';

const fixturesDir = fileURLToPath(new URL('./fixtures', import.meta.url));
const testHost = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { endpoint: string };
const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };
const SHIPPED = manifest.info.endpoint!;

function uriFor(endpoint: string, programmaticGuaranteed: boolean) {
  const bidder = manifest.create!(testBidderConfig('smartadserver', endpoint), { logger: silentLogger });
  const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { networkId: 1, programmaticGuaranteed } } }] };
  return bidder.makeRequests(request, testRequestInfo('smartadserver'));
}

describe('smartadserver adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(manifest, fixturesDir, testHost)) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describeParamsTable(manifest, {
    valid: [
      ['a network id', { networkId: 73 }],
      ['a network with site, page and format', { networkId: 73, siteId: 1, pageId: 2, formatId: 3 }],
      ['the programmatic guaranteed flag', { networkId: 73, programmaticGuaranteed: true }],
      ['an unknown extra field', { networkId: 73, other: 'x' }],
    ],
    invalid: [
      ['no network id', { siteId: 1, pageId: 2, formatId: 3 }],
      ['a zero network id', { networkId: 0 }],
      ['a fractional network id', { networkId: 7.5 }],
      ['a network id as text', { networkId: '73' }],
      ['a site without page and format', { networkId: 73, siteId: 1 }],
      ['a page without format', { networkId: 73, siteId: 1, pageId: 2 }],
      ['a format without site', { networkId: 73, pageId: 2, formatId: 3 }],
      ['a zero format id', { networkId: 73, siteId: 1, pageId: 2, formatId: 0 }],
      ['a non-object', 73],
    ],
  });

  describe('endpoints', () => {
    const template = compileEndpoint(SHIPPED);

    it('sends standard calls to ssb-global with the shipped endpoint', () => {
      const { requests } = uriFor(SHIPPED, false);
      expect(requests[0]!.uri).to.equal('https://ssb-global.smartadserver.com/api/bid?callerId=5');
      expect(template.allows(requests[0]!.uri)).to.equal(true);
    });

    it('sends programmatic guaranteed calls to prebid-global, which the shipped endpoint admits', () => {
      const { requests } = uriFor(SHIPPED, true);
      expect(requests[0]!.uri).to.equal('https://prebid-global.smartadserver.com/ortb');
      expect(template.allows(requests[0]!.uri)).to.equal(true);
    });

    it('appends the path to a configured path and replaces its query, as Prebid Server does', () => {
      const { requests } = uriFor('https://ssb-eu.smartadserver.com/v1/./x/?a=1', false);
      expect(requests[0]!.uri).to.equal('https://ssb-eu.smartadserver.com/v1/x/api/bid?callerId=5');
    });

    it('reports an endpoint it cannot complete as a malformed URL', () => {
      const { requests, errors } = uriFor('https://{{.Region}}.smartadserver.com', false);
      expect(requests).to.deep.equal([]);
      expect(errors).to.deep.equal([{ code: BidderErrorCode.BadInput, message: 'Malformed URL: https://{{.Region}}.smartadserver.com.' }]);
    });
  });
});
