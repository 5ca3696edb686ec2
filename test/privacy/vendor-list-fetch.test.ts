import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultConfig } from '../../core/config/index.js';
import { PrivacyService, VendorListFetcher, VendorLists } from '../../core/privacy/index.js';
import { silentLogger } from '../support/gavel.js';
import { tcString, TEST_GVL_PATH } from '../support/tcf.js';

describe('privacy: vendor lists fetched as TC strings name them', () => {
  let server: Server;
  let base = '';
  const asked: string[] = [];
  before(async () => {
    const gvl = readFileSync(TEST_GVL_PATH, 'utf8');
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      if (req.url === '/v3/archives/vendor-list-v3.json') res.writeHead(200, { 'content-type': 'application/json' }).end(gvl);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a string naming a list not loaded is decided without it, the list is fetched once, then it decides', async () => {
    const lists = new VendorLists();
    const fetcher = new VendorListFetcher(lists, { urlTemplate: `${base}/v{{specVersion}}/archives/vendor-list-v{{version}}.json`, timeoutMs: 1000 }, silentLogger);
    const fetches: Array<Promise<void>> = [];
    lists.onMissing = (spec, version) => fetches.push(fetcher.request(spec, version));
    const service = new PrivacyService(structuredClone(defaultConfig.privacy), lists);
    const consent = tcString({ purposes: [1, 2, 4], vendors: [32], specialFeatures: [1] });
    const before = asked.length;
    expect(service.permissionsFor(consent, { id: 'a' }).auction('alpha', 32).allowBidRequest).to.equal(false);
    expect(service.permissionsFor(consent, { id: 'a' }).auction('alpha', 32).allowBidRequest).to.equal(false);
    await Promise.all(fetches);
    expect(asked.slice(before)).to.deep.equal(['/v3/archives/vendor-list-v3.json']);
    expect(lists.find(3, 3)?.vendor(32)?.specialFeatures.has(1)).to.equal(true);
    expect(service.permissionsFor(consent, { id: 'a' }).auction('alpha', 32)).to.deep.equal({ allowBidRequest: true, passGeo: true, passId: true });
  });

  it('a list that cannot be fetched is not asked again for ten minutes', async () => {
    let now = 1_000_000;
    const lists = new VendorLists();
    const fetcher = new VendorListFetcher(lists, { urlTemplate: `${base}/v{{specVersion}}/archives/vendor-list-v{{version}}.json`, timeoutMs: 1000 }, silentLogger, () => now);
    const before = asked.length;
    await fetcher.request(3, 99);
    await fetcher.request(3, 99);
    expect(asked.slice(before)).to.deep.equal(['/v3/archives/vendor-list-v99.json']);
    now += 10 * 60 * 1000 + 1;
    await fetcher.request(3, 99);
    expect(asked.slice(before)).to.have.length(2);
    expect(lists.find(3, 99)).to.equal(undefined);
  });
});
