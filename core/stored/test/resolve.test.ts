import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { MalformedStoredData, StoredFetchError } from '../fetcher.js';
import { FilesystemFetcher } from '../filesystem-fetcher.js';
import { MemoryFetcher, type StoredDocuments } from '../memory-fetcher.js';
import { impIdError, resolveStoredRequest, type JsonObject, type StoredResolution } from '../resolve.js';

/** Stored data in memory that logs each backend call, to check that ids are fetched in one call per kind. */
class RecordingFetcher extends MemoryFetcher {
  readonly calls: Array<{ kind: 'requests' | 'imps'; ids: string[] }> = [];

  constructor(documents: StoredDocuments) {
    super(documents);
  }

  override fetchRequests(ids: string[]): Promise<Map<string, unknown>> {
    this.calls.push({ kind: 'requests', ids: [...ids] });
    return super.fetchRequests(ids);
  }

  override fetchImps(ids: string[]): Promise<Map<string, unknown>> {
    this.calls.push({ kind: 'imps', ids: [...ids] });
    return super.fetchImps(ids);
  }
}

function resolvedRequest(result: StoredResolution): JsonObject {
  if ('errors' in result) throw new Error(`expected a request, got errors: ${result.errors.join('; ')}`);
  return result.request;
}

function resolveErrors(result: StoredResolution): string[] {
  if (!('errors' in result)) throw new Error(`expected errors, got ${JSON.stringify(result.request)}`);
  return result.errors;
}

const storedRequest = {
  id: 'stored-request-id',
  tmax: 500,
  site: { page: 'https://stored.example', publisher: { id: 'pub-1' } },
  imp: [{ id: 'stored-imp', banner: { w: 300, h: 250 }, ext: { appnexus: { placementId: 1 } } }],
  ext: { prebid: { targeting: { includewinners: true }, cache: { bids: {} } } },
};

const storedImp = {
  id: 'from-store',
  banner: { format: [{ w: 728, h: 90 }] },
  bidfloor: 0.5,
  ext: { appnexus: { placementId: 2 }, rubicon: { accountId: 7 } },
};

describe('resolveStoredRequest', () => {
  let fetcher: RecordingFetcher;

  beforeEach(() => {
    fetcher = new RecordingFetcher({
      requests: { 'base-request': structuredClone(storedRequest), 'not-an-object': [1, 2] },
      imps: { 'leaderboard': structuredClone(storedImp), 'other': { id: 'other', video: { mimes: ['video/mp4'] } } },
    });
  });

  it('returns a request without references unchanged, fetching nothing', async () => {
    const body = { id: 'r', imp: [{ id: '1', banner: { w: 1, h: 1 }, ext: { prebid: { bidder: { appnexus: {} } } } }] };
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher));
    expect(request).to.deep.equal(body);
    expect(fetcher.calls).to.deep.equal([]);
  });

  it('merges the body over the stored request (RFC 7386), keeping the reference as Prebid Server does', async () => {
    const body = {
      id: 'body-id',
      tmax: null,
      site: { page: 'https://body.example' },
      ext: { prebid: { storedrequest: { id: 'base-request' }, targeting: { includebidderkeys: false } } },
    };
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher));
    expect(request).to.deep.equal({
      id: 'body-id',
      site: { page: 'https://body.example', publisher: { id: 'pub-1' } },
      imp: [{ id: 'stored-imp', banner: { w: 300, h: 250 }, ext: { appnexus: { placementId: 1 } } }],
      ext: { prebid: { storedrequest: { id: 'base-request' }, targeting: { includewinners: true, includebidderkeys: false }, cache: { bids: {} } } },
    });
    expect(fetcher.calls).to.deep.equal([{ kind: 'requests', ids: ['base-request'] }]);
  });

  it('lays a stored request whose id is {{UUID}} over the body, with a fresh id, as Prebid Server does', async () => {
    fetcher = new RecordingFetcher({ requests: { fresh: { id: '{{UUID}}', tmax: 300, site: { page: 'https://stored.example' } } } });
    const body = { id: 'body-id', tmax: 900, app: { bundle: 'b' }, ext: { prebid: { storedrequest: { id: 'fresh' } } } };
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher));
    expect(request.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect({ ...request, id: undefined }).to.deep.equal({
      id: undefined, tmax: 300, app: { bundle: 'b' }, site: { page: 'https://stored.example' }, ext: { prebid: { storedrequest: { id: 'fresh' } } },
    });
  });

  it("with generateRequestId, lays the stored request of an app's body over it with a fresh id; a site's is the base as ever", async () => {
    fetcher = new RecordingFetcher({ requests: { base: { id: 'stored-id', tmax: 300 } } });
    const app = { id: 'body-id', tmax: 900, app: { bundle: 'b' }, ext: { prebid: { storedrequest: { id: 'base' } } } };
    const request = resolvedRequest(await resolveStoredRequest(app, 'prebid', fetcher, undefined, { generateRequestId: true }));
    expect(request.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(request.tmax).to.equal(300);
    const site = { id: 'body-id', tmax: 900, site: { page: 'https://p.example' }, ext: { prebid: { storedrequest: { id: 'base' } } } };
    expect(resolvedRequest(await resolveStoredRequest(site, 'prebid', fetcher, undefined, { generateRequestId: true }))).to.include({ id: 'body-id', tmax: 900 });
    expect(resolvedRequest(await resolveStoredRequest(app, 'prebid', fetcher))).to.include({ id: 'body-id', tmax: 900 });
  });

  it('replaces the stored imp array whole when the body has one', async () => {
    const body = { imp: [{ id: 'inline', native: { request: '{}' } }], ext: { prebid: { storedrequest: { id: 'base-request' } } } };
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher));
    expect(request.imp).to.deep.equal([{ id: 'inline', native: { request: '{}' } }]);
  });

  it('merges each inline imp over its stored imp, keeping the reference', async () => {
    const body = {
      id: 'r',
      imp: [
        { id: 'a', ext: { prebid: { storedrequest: { id: 'leaderboard' } }, rubicon: null } },
        { id: 'b', bidfloor: 2, ext: { prebid: { storedrequest: { id: 'leaderboard' }, is_rewarded_inventory: 1 } } },
        { id: 'c', banner: { w: 320, h: 50 }, ext: { appnexus: { placementId: 3 } } },
      ],
    };
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher));
    expect(request.imp).to.deep.equal([
      { id: 'a', banner: { format: [{ w: 728, h: 90 }] }, bidfloor: 0.5, ext: { appnexus: { placementId: 2 }, prebid: { storedrequest: { id: 'leaderboard' } } } },
      {
        id: 'b',
        banner: { format: [{ w: 728, h: 90 }] },
        bidfloor: 2,
        ext: { appnexus: { placementId: 2 }, rubicon: { accountId: 7 }, prebid: { storedrequest: { id: 'leaderboard' }, is_rewarded_inventory: 1 } },
      },
      { id: 'c', banner: { w: 320, h: 50 }, ext: { appnexus: { placementId: 3 } } },
    ]);
    expect(fetcher.calls).to.deep.equal([{ kind: 'imps', ids: ['leaderboard'] }]);
  });

  it('fetches the stored request and the stored imps in one call each, reading only the body\'s imps for references', async () => {
    fetcher = new RecordingFetcher({
      requests: { base: { imp: [{ id: 'x', ext: { svc: { storedrequest: { id: 'other' } } } }] } },
      imps: { leaderboard: structuredClone(storedImp), other: { video: { mimes: ['video/mp4'] } } },
    });
    const withImps = { id: 'r', imp: [{ id: 'a', ext: { svc: { storedrequest: { id: 'leaderboard' } } } }], ext: { svc: { storedrequest: { id: 'base' } } } };
    expect(resolvedRequest(await resolveStoredRequest(withImps, 'svc', fetcher)).imp).to.deep.equal([
      { id: 'a', banner: { format: [{ w: 728, h: 90 }] }, bidfloor: 0.5, ext: { appnexus: { placementId: 2 }, rubicon: { accountId: 7 }, svc: { storedrequest: { id: 'leaderboard' } } } },
    ]);
    expect(fetcher.calls).to.deep.equal([
      { kind: 'requests', ids: ['base'] },
      { kind: 'imps', ids: ['leaderboard'] },
    ]);
    // A body without imps takes the stored request's as they are, as Prebid Server's processStoredRequests does.
    fetcher.calls.length = 0;
    const withoutImps = { id: 'r', ext: { svc: { storedrequest: { id: 'base' } } } };
    expect(resolvedRequest(await resolveStoredRequest(withoutImps, 'svc', fetcher)).imp).to.deep.equal([{ id: 'x', ext: { svc: { storedrequest: { id: 'other' } } } }]);
    expect(fetcher.calls).to.deep.equal([{ kind: 'requests', ids: ['base'] }]);
  });

  it('reads references only under the namespace it is given', async () => {
    const body = { id: 'r', imp: [{ id: 'a', ext: { prebid: { storedrequest: { id: 'leaderboard' } } } }] };
    const request = resolvedRequest(await resolveStoredRequest(body, 'svc', fetcher));
    expect(request).to.deep.equal(body);
  });

  it('rejects a request-level id that is not a string, naming the path', async () => {
    const body = { id: 'r', ext: { prebid: { storedrequest: { id: 13 } } } };
    expect(resolveErrors(await resolveStoredRequest(body, 'prebid', fetcher))).to.deep.equal([
      'ext.prebid.storedrequest.id must be a string',
    ]);
    const svcBody = { id: 'r', ext: { svc: { storedrequest: { id: null } } } };
    expect(resolveErrors(await resolveStoredRequest(svcBody, 'svc', fetcher))).to.deep.equal([
      'ext.svc.storedrequest.id must be a string',
    ]);
    expect(fetcher.calls).to.deep.equal([]);
  });

  it('takes a request-level reference without an id for none, as Prebid Server\'s getStoredRequestId does', async () => {
    for (const storedrequest of [{}, 'base-request', [{ id: 'base-request' }]]) {
      const body = { id: 'r', ext: { prebid: { storedrequest } } };
      expect(resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher))).to.deep.equal(body);
    }
    expect(fetcher.calls).to.deep.equal([]);
  });

  it('tells an imp whose id, once merged, is missing or not a string, as Prebid Server\'s processStoredRequests reads it', async () => {
    fetcher = new RecordingFetcher({ imps: { anonymous: { banner: { w: 1, h: 1 } }, numbered: { id: 7 } } });
    const problem = async (body: JsonObject) => {
      const resolved = await resolveStoredRequest(body, 'prebid', fetcher);
      return 'request' in resolved ? resolved.impIdProblem : resolved.errors;
    };
    expect(await problem({ imp: [{ id: 'a', banner: { w: 1, h: 1 } }, { ext: { prebid: { storedrequest: { id: 'anonymous' } } } }] })).to.equal('Key path not found');
    expect(await problem({ imp: [{ ext: { prebid: { storedrequest: { id: 'numbered' } } } }] })).to.equal('Value is not a string: 7');
    expect(await problem({ imp: [{ id: 'a', ext: { prebid: { storedrequest: { id: 'anonymous' } } } }, { banner: { w: 1, h: 1 } }] })).to.equal('request.imp[1] missing required field: "id"');
    expect(await problem({ imp: [{ id: 'a', ext: { prebid: { storedrequest: { id: 'anonymous' } } } }] })).to.equal(undefined);
    expect(impIdError([{ id: 'a' }, { id: null }])).to.equal('Value is not a string: null');
    expect(impIdError([{ id: 'a' }, 5])).to.equal('request.imp[1] missing required field: "id"');
    expect(impIdError([{ id: '' }])).to.equal(undefined);
  });

  it('names a stored request that is not found', async () => {
    const body = { id: 'r', ext: { prebid: { storedrequest: { id: 'nope' } } } };
    expect(resolveErrors(await resolveStoredRequest(body, 'prebid', fetcher))).to.deep.equal([
      'Stored Request with ID="nope" not found.',
    ]);
  });

  it('names every id not found, the stored request\'s first, fetching both kinds at once', async () => {
    const body = { imp: [{ id: 'a', ext: { prebid: { storedrequest: { id: 'gone' } } } }], ext: { prebid: { storedrequest: { id: 'nope' } } } };
    expect(resolveErrors(await resolveStoredRequest(body, 'prebid', fetcher))).to.deep.equal([
      'Stored Request with ID="nope" not found.',
      'Stored Imp with ID="gone" not found.',
    ]);
  });

  it('names each stored imp that is not found, once', async () => {
    const body = {
      imp: [
        { id: 'a', ext: { prebid: { storedrequest: { id: 'gone' } } } },
        { id: 'b', ext: { prebid: { storedrequest: { id: 'leaderboard' } } } },
        { id: 'c', ext: { prebid: { storedrequest: { id: 'gone' } } } },
        { id: 'd', ext: { prebid: { storedrequest: { id: 'also-gone' } } } },
      ],
    };
    expect(resolveErrors(await resolveStoredRequest(body, 'prebid', fetcher))).to.deep.equal([
      'Stored Imp with ID="gone" not found.',
      'Stored Imp with ID="also-gone" not found.',
    ]);
  });

  it('takes an empty stored imp id for no reference, as Prebid Server fetches only a non-empty one', async () => {
    const body = { imp: [{ id: 'a', banner: { w: 1, h: 1 }, ext: { prebid: { storedrequest: { id: '' } } } }] };
    const resolved = resolvedRequest(await resolveStoredRequest(structuredClone(body), 'prebid', fetcher));
    expect(resolved.imp).to.deep.equal(body.imp);
    expect(fetcher.calls).to.deep.equal([]);
  });

  it('rejects stored data that is not a JSON object', async () => {
    const body = { ext: { prebid: { storedrequest: { id: 'not-an-object' } } } };
    expect(resolveErrors(await resolveStoredRequest(body, 'prebid', fetcher))).to.deep.equal([
      'Stored Request with ID="not-an-object" is not a JSON object.',
    ]);
  });

  it("words a stored request that is not valid JSON as Prebid Server's client reads it, then names it", async () => {
    const malformed = new RecordingFetcher({});
    malformed.fetchRequests = async () => {
      throw new MalformedStoredData('request', 'broken', new SyntaxError('Unexpected token'));
    };
    const body = { id: 'r', ext: { prebid: { storedrequest: { id: 'broken' } } } };
    expect(resolveErrors(await resolveStoredRequest(body, 'prebid', malformed))).to.deep.equal([
      'expect { or n, but found \u0000 (stored request with id "broken" is not valid JSON; the host must correct it)',
    ]);
  });

  it('lets a backend failure through as thrown', async () => {
    const failing = new RecordingFetcher({});
    failing.fetchImps = async () => {
      throw new StoredFetchError('database down');
    };
    const body = { imp: [{ id: 'a', ext: { prebid: { storedrequest: { id: 'x' } } } }] };
    const failure = await resolveStoredRequest(body, 'prebid', failing).then(() => undefined, (err: unknown) => err);
    expect(failure).to.be.instanceOf(StoredFetchError);
  });

  it('never changes the stored documents or the body, and gives each imp its own copy', async () => {
    const body = {
      ext: { prebid: { storedrequest: { id: 'base-request' } } },
      imp: [
        { id: 'a', ext: { prebid: { storedrequest: { id: 'leaderboard' } } } },
        { id: 'b', ext: { prebid: { storedrequest: { id: 'leaderboard' } } } },
      ],
    };
    const bodyBefore = structuredClone(body);
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', fetcher));
    const imps = request.imp as Array<{ banner: { format: Array<{ w: number }> } }>;
    expect(imps[0].banner).to.not.equal(imps[1].banner);
    imps[0].banner.format[0].w = 1;
    (request.site as { publisher: { id: string } }).publisher.id = 'changed';

    expect(body).to.deep.equal(bodyBefore);
    expect((await fetcher.fetchImps(['leaderboard'])).get('leaderboard')).to.deep.equal(storedImp);
    expect((await fetcher.fetchRequests(['base-request'])).get('base-request')).to.deep.equal(storedRequest);
  });

  it('resolves a stored request and its stored imps from files', async () => {
    const files = new FilesystemFetcher(fileURLToPath(new URL('./data/', import.meta.url)));
    const body = {
      ext: { prebid: { storedrequest: { id: 'amp-tag-7' } } },
      site: { page: 'https://news.example/other' },
      imp: [{ id: 'slot-1', ext: { prebid: { storedrequest: { id: 'rectangle-bidders' } } } }],
    };
    const request = resolvedRequest(await resolveStoredRequest(body, 'prebid', files));
    expect(request).to.deep.equal({
      id: 'amp-tag-7',
      site: { page: 'https://news.example/other' },
      imp: [
        {
          id: 'slot-1',
          banner: { format: [{ w: 300, h: 250 }, { w: 300, h: 600 }] },
          ext: { appnexus: { placementId: 12883451 }, prebid: { options: { keep: true }, storedrequest: { id: 'rectangle-bidders' } } },
        },
      ],
      ext: { prebid: { storedrequest: { id: 'amp-tag-7' }, targeting: { pricegranularity: 'med' } } },
    });
  });
});
