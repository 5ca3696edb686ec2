import { expect } from 'chai';
import type { StoredDataFetcher } from '../../core/stored/index.js';
import { AmpTestServer, storedAmpRequest } from './support.js';

const twoImps = storedAmpRequest();
(twoImps.imp as unknown[]).push({ id: 'second', banner: { format: [{ w: 728, h: 90 }] }, ext: { prebid: { bidder: { alpha: {} } } } });

describe('GET /openrtb2/amp: loading the stored request (spec 2.18, 7.4)', () => {
  let server: AmpTestServer;

  before(async () => {
    server = await AmpTestServer.start({
      stored: {
        'no-imp': { id: 'x', site: { page: 'https://news.example/' } },
        'empty-imp': { id: 'x', site: { page: 'https://news.example/' }, imp: [] },
        'two-imps': twoImps,
        'with-app': storedAmpRequest({ site: undefined, app: { bundle: 'com.example.news' } }),
        'app-and-site': storedAmpRequest({ app: { bundle: 'com.example.news' } }),
        good: storedAmpRequest(),
      },
    });
  });
  after(() => server.close());

  async function expectInvalid(query: string, message: string): Promise<void> {
    const answer = await server.get(query);
    expect(answer.status).to.equal(400);
    expect(answer.headers.get('content-type')).to.match(/^text\/plain/);
    expect(answer.text).to.equal(`Invalid request: ${message}\n`);
  }

  it('requires tag_id', async () => {
    await expectInvalid('w=300&h=250', 'AMP requests require an AMP tag_id.');
    await expectInvalid('tag_id=', 'AMP requests require an AMP tag_id.');
  });

  it('names a tag_id that has no stored request', async () => {
    await expectInvalid('tag_id=nowhere', 'No AMP config found for tag_id nowhere.');
  });

  it('requires an imp array', async () => {
    await expectInvalid('tag_id=no-imp', 'Data for tag_id no-imp does not define the required imp array.');
    await expectInvalid('tag_id=empty-imp', 'Data for tag_id empty-imp does not define the required imp array.');
  });

  it('allows only one imp', async () => {
    await expectInvalid('tag_id=two-imps', 'Data for tag_id two-imps includes 2 imp elements. Only one is allowed.');
  });

  it('rejects a stored request with app', async () => {
    await expectInvalid('tag_id=with-app', 'request.app must not exist in AMP stored requests.');
    await expectInvalid('tag_id=app-and-site', 'request.app must not exist in AMP stored requests.');
  });

  it('runs the auction for a stored request that follows the rules', async () => {
    const answer = await server.get('tag_id=good');
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.targeting.hb_bidder).to.equal('alpha');
  });

  it('reports a request the auction refuses as a 400 naming the field', async () => {
    const noPage = await AmpTestServer.start({ stored: { bare: storedAmpRequest({ site: { publisher: { id: 'p' } } }) } });
    try {
      const answer = await noPage.get('tag_id=bare');
      expect(answer.status).to.equal(400);
      expect(answer.text).to.match(/^Invalid request: .*site/);
      const fixed = await noPage.get('tag_id=bare&curl=https%3A%2F%2Fnews.example%2Fa');
      expect(fixed.status, fixed.text).to.equal(200);
    } finally {
      await noPage.close();
    }
  });
});

describe('GET /openrtb2/amp: a stored-request backend that fails', () => {
  it('answers 503 naming the stored request, as the other endpoints do (the host is at fault, not the page)', async () => {
    const broken: StoredDataFetcher = {
      fetchRequests: async () => {
        throw new Error('database is down');
      },
      fetchImps: async () => new Map(),
    };
    const server = await AmpTestServer.start({ fetcher: broken });
    try {
      const answer = await server.get('tag_id=any');
      expect(answer.status).to.equal(503);
      expect(answer.text).to.equal('Stored data is unavailable (stored request "any": the backend failed); try again.\n');
    } finally {
      await server.close();
    }
  });
});
