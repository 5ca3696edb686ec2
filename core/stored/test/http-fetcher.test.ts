import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorCode } from '../../api/index.js';
import { HttpFetcher } from '../http-fetcher.js';

type Handler = (url: URL, res: ServerResponse) => void;

const STORED = {
  requests: { 'req-1': { id: 'stored-1' }, 'req-2': { id: 'stored-2' } },
  imps: { 'imp-1': { id: 'imp', video: { mimes: ['video/mp4'] } } },
  accounts: { acct: { id: 'acct' } },
};

/** Answers like a Prebid Server HTTP fetcher endpoint: documents for the ids asked, unknown ids left out. */
const protocolHandler: Handler = (url, res) => {
  const answer: Record<string, Record<string, unknown>> = {};
  const lists = [['request-ids', 'requests'], ['imp-ids', 'imps'], ['account-ids', 'accounts']] as const;
  for (const [param, member] of lists) {
    const raw = url.searchParams.get(param);
    if (raw === null) continue;
    const documents: Record<string, unknown> = STORED[member];
    answer[member] = {};
    for (const id of JSON.parse(raw) as string[]) {
      if (id in documents) answer[member][id] = documents[id];
      else if (id === 'null-entry') answer[member][id] = null;
    }
  }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(answer));
};

describe('HttpFetcher', () => {
  let server: Server;
  let base: string;
  let handler: Handler;
  let seen: URL[];

  before(async () => {
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      seen.push(url);
      handler(url, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    handler = protocolHandler;
    seen = [];
  });

  it('GETs request-ids as a JSON array and reads the "requests" member', async () => {
    const fetcher = new HttpFetcher({ url: `${base}/stored` });
    const found = await fetcher.fetchRequests(['req-1', 'missing', 'req-2', 'req-1']);
    expect(Object.fromEntries(found)).to.deep.equal({ 'req-1': { id: 'stored-1' }, 'req-2': { id: 'stored-2' } });
    expect(seen).to.have.length(1);
    expect(seen[0].pathname).to.equal('/stored');
    expect(seen[0].searchParams.get('request-ids')).to.equal('["req-1","missing","req-2"]');
    expect(seen[0].searchParams.has('imp-ids')).to.equal(false);
  });

  it('GETs imp-ids and reads the "imps" member; a null entry means not found', async () => {
    const fetcher = new HttpFetcher({ url: `${base}/stored` });
    const found = await fetcher.fetchImps(['imp-1', 'null-entry']);
    expect([...found.keys()]).to.deep.equal(['imp-1']);
    expect(seen[0].searchParams.get('imp-ids')).to.equal('["imp-1","null-entry"]');
  });

  it('keeps query parameters already in the configured url', async () => {
    const fetcher = new HttpFetcher({ url: `${base}/stored?source=gavel` });
    await fetcher.fetchRequests(['req-1']);
    expect(seen[0].searchParams.get('source')).to.equal('gavel');
    expect(seen[0].searchParams.get('request-ids')).to.equal('["req-1"]');
  });

  it('fetches accounts with account-ids, from accountsUrl when given', async () => {
    const fetcher = new HttpFetcher({ url: `${base}/stored`, accountsUrl: `${base}/accounts` });
    expect(await fetcher.fetchAccount('acct')).to.deep.equal({ id: 'acct' });
    expect(await fetcher.fetchAccount('other')).to.equal(undefined);
    expect(seen[0].pathname).to.equal('/accounts');
    expect(seen[0].searchParams.get('account-ids')).to.equal('["acct"]');
  });

  it('makes no call for an empty id list', async () => {
    const fetcher = new HttpFetcher({ url: `${base}/stored` });
    expect((await fetcher.fetchImps([])).size).to.equal(0);
    expect(seen).to.have.length(0);
  });

  it('treats an answer without the member as "nothing found"', async () => {
    handler = (_url, res) => res.end('{}');
    const fetcher = new HttpFetcher({ url: `${base}/stored` });
    expect((await fetcher.fetchRequests(['req-1'])).size).to.equal(0);
  });

  const failures: Array<[string, Handler]> = [
    ['a non-2xx status', (_url, res) => { res.statusCode = 503; res.end('{}'); }],
    ['a body that is not JSON', (_url, res) => res.end('<html>')],
    ['a JSON answer that is not an object', (_url, res) => res.end('[1,2]')],
    ['a "requests" member that is not an object', (_url, res) => res.end('{"requests":[1]}')],
  ];
  for (const [what, failingHandler] of failures) {
    it(`throws a coded error for ${what}`, async () => {
      handler = failingHandler;
      const fetcher = new HttpFetcher({ url: `${base}/stored` });
      const error = await fetcher.fetchRequests(['req-1']).then(() => undefined, (err: unknown) => err);
      expect(error).to.have.property('code', ErrorCode.StoredFetchFailed);
    });
  }

  it('throws a coded error when the server is slower than the timeout', async () => {
    handler = (_url, res) => { setTimeout(() => res.end('{}'), 500).unref(); };
    const fetcher = new HttpFetcher({ url: `${base}/stored`, timeoutMs: 50 });
    const error = await fetcher.fetchRequests(['req-1']).then(() => undefined, (err: unknown) => err);
    expect(error).to.have.property('code', ErrorCode.StoredFetchFailed);
  });

  it('throws a coded error when nothing listens', async () => {
    const fetcher = new HttpFetcher({ url: 'http://127.0.0.1:1/stored', timeoutMs: 500 });
    const error = await fetcher.fetchRequests(['req-1']).then(() => undefined, (err: unknown) => err);
    expect(error).to.have.property('code', ErrorCode.StoredFetchFailed);
  });
});
