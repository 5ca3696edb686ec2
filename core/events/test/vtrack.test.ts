import { expect } from 'chai';
import type { EndpointRequest } from '../../auction/endpoint-types.js';
import type { BidderCatalog, BidderEntry } from '../../bidders/catalog.js';
import type { CacheClient, CachePut } from '../../cache/index.js';
import { handleVtrack } from '../index.js';

const VAST = '<VAST version="3.0"><Ad><InLine><Impression></Impression></InLine></Ad></VAST>';

describe('POST /vtrack (core/events)', () => {
  const cached: CachePut[][] = [];
  const cache: CacheClient = {
    async put(values) {
      cached.push(values);
      return values.map((_, i) => `uuid-${i}`);
    },
  };
  const entry = (name: string, modifyingVastXmlAllowed: boolean) => ({ name, enabled: true, info: { modifyingVastXmlAllowed } }) as unknown as BidderEntry;
  const known = new Map([['allowing', entry('allowing', true)], ['refusing', entry('refusing', false)]]);
  const bidders: BidderCatalog = { entries: known, get: (name) => known.get(name.toLowerCase()) };
  const services = {
    cache,
    bidders,
    loadAccount: (id: string) => ({ account: { id } }) as never,
    externalUrl: 'https://gavel.example',
    timeoutMs: 100,
    allowUnknownBidder: false,
    now: Date.now,
  };
  const post = (body: unknown, query: Record<string, string> = { a: 'acct' }): EndpointRequest =>
    ({ method: 'POST', path: '/vtrack', headers: {}, query, body, secure: true, receivedAt: Date.now() }) as EndpointRequest;
  beforeEach(() => {
    cached.length = 0;
  });

  it('answers a body without puts with no uuid, as Prebid Server\'s cache client puts nothing', async () => {
    for (const body of [{}, { puts: null }, { puts: [] }]) {
      const answer = await handleVtrack(post(body), services);
      expect([answer.status, answer.body]).to.deep.equal([200, { responses: [] }]);
    }
    expect(cached).to.deep.equal([]);
  });

  it("words a body that does not decode as Prebid Server's BidCacheRequest does", async () => {
    const notSlice = await handleVtrack(post({ puts: {} }), services);
    expect([notSlice.status, notSlice.body]).to.deep.equal([400, 'Invalid request: cannot unmarshal events.BidCacheRequest.Puts: decode slice: expect [ or n, but found {\n']);
    const numberId = await handleVtrack(post({ puts: [{ bidid: 5, bidder: 'allowing', type: 'xml', value: VAST }] }), services);
    expect([numberId.status, numberId.body]).to.deep.equal([400, 'Invalid request: cannot unmarshal prebid_cache_client.Cacheable.BidID: expects " or n, but found 5\n']);
  });

  it('checks every put for its bid id and bidder before anything else the bid cache needs, and reads fields ignoring case', async () => {
    const answer = await handleVtrack(post({ puts: [{ bidid: 'b1', bidder: 'allowing', type: 'html' }, { BIDID: 'b2', type: 'xml' }] }), services);
    expect([answer.status, answer.body]).to.deep.equal([400, "Invalid request: 'bidder' is required field and can't be empty\n"]);
    const nullPut = await handleVtrack(post({ puts: [null] }), services);
    expect(nullPut.body).to.equal("Invalid request: 'bidid' is required field and can't be empty\n");
    const cased = await handleVtrack(post({ puts: [{ BidId: 'b1', Bidder: 'allowing', Type: 'xml', Value: VAST, TTLSeconds: 60 }] }), services);
    expect(cased.status).to.equal(200);
    expect(cached[0]).to.deep.equal([{ type: 'xml', ttlseconds: 60, value: VAST.replace('<Impression>', '<Impression><![CDATA[https://gavel.example/event?t=imp&b=b1&a=acct&bidder=allowing&f=b]]>') }]);
  });

  it('tracks the VAST of a bidder that allows it whatever the put\'s type, and leaves a ttlseconds of 0 to the cache default', async () => {
    const answer = await handleVtrack(post({ puts: [{ bidid: 'b1', bidder: 'allowing', type: 'json', value: VAST, ttlseconds: 0 }, { bidid: 'b2', bidder: 'refusing', type: 'xml', value: VAST }] }), services);
    expect([answer.status, answer.body]).to.deep.equal([200, { responses: [{ uuid: 'uuid-0' }, { uuid: 'uuid-1' }] }]);
    expect(cached[0]).to.deep.equal([
      { type: 'json', value: VAST.replace('<Impression>', '<Impression><![CDATA[https://gavel.example/event?t=imp&b=b1&a=acct&bidder=allowing&f=b]]>') },
      { type: 'xml', value: VAST },
    ]);
  });
});
