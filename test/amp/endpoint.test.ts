import { expect } from 'chai';
import { MemoryFetcher } from '../../core/stored/index.js';
import { tcString } from '../support/tcf.js';
import { AmpTestServer, storedAmpRequest } from './support.js';

const PAGE = encodeURIComponent('https://www.publisher.example:8443/amp/story.html');
const TCF2 = tcString({ purposes: [1, 2, 4], vendors: [32] });

describe('GET /openrtb2/amp: the answer', () => {
  let server: AmpTestServer;

  before(async () => {
    server = await AmpTestServer.start({
      bidders: { alpha: 'price=1.25', beta: 'price=2.37' },
      stored: {
        single: storedAmpRequest(),
        pair: storedAmpRequest({}, { ext: { prebid: { bidder: { alpha: {}, beta: {} } } } }),
        low: storedAmpRequest({ ext: { prebid: { targeting: { pricegranularity: 'low' } } } }),
        nullChannel: storedAmpRequest({ ext: { prebid: { channel: null } } }),
        webChannel: storedAmpRequest({ ext: { prebid: { channel: { name: 'web', version: '2' } } } }),
      },
    });
  });
  after(() => server.close());

  it('is text/plain JSON with the winner targeting, the bidder keys, the cache id and hb_env=amp', async () => {
    const answer = await server.get('tag_id=single');
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/plain/);
    expect(answer.json).to.have.all.keys('targeting', 'errors', 'warnings');
    expect(answer.json.errors).to.deep.equal({});
    // As Prebid Server's: no debug was asked for, so the account's debug is not in effect, and the answer says so.
    expect(answer.json.warnings).to.deep.equal({ general: [{ code: 10002, message: 'debug turned off for account' }] });
    expect(answer.json.targeting).to.deep.equal({
      hb_pb: '1.20', hb_pb_alpha: '1.20',
      hb_bidder: 'alpha', hb_bidder_alpha: 'alpha',
      hb_size: '300x250', hb_size_alpha: '300x250',
      hb_env: 'amp', hb_env_alpha: 'amp',
      hb_cache_id: '0', hb_cache_id_alpha: '0',
      hb_cache_host: 'cache.gavel.test', hb_cache_host_alpha: 'cache.gavel.test',
      hb_cache_path: '/cache', hb_cache_path_alpha: '/cache',
    });
  });

  it('caches the winning bid under hb_cache_id', async () => {
    const answer = await server.get('tag_id=single');
    const id = answer.json.targeting.hb_cache_id as string;
    const cached = await fetch(`${server.gavel.url}/cache?uuid=${id}`);
    expect(cached.status).to.equal(200);
    expect(((await cached.json()) as { impid: string }).impid).to.equal('amp-imp');
  });

  it('takes the plain keys from the winner and the suffixed keys from every bidder', async () => {
    const { json } = await server.get('tag_id=pair');
    expect(json.targeting).to.include({ hb_bidder: 'beta', hb_pb: '2.30', hb_pb_beta: '2.30', hb_pb_alpha: '1.20', hb_bidder_alpha: 'alpha' });
    expect(json.targeting.hb_cache_id).to.equal(json.targeting.hb_cache_id_beta);
    expect(json.targeting.hb_cache_id_alpha).to.be.a('string').and.not.equal(json.targeting.hb_cache_id);
  });

  it("keeps the stored request's price granularity", async () => {
    const { json } = await server.get('tag_id=low');
    expect(json.targeting.hb_pb).to.equal('1.00');
  });

  it('always sends imp[0].secure = 1, even over plain http and against the stored value', async () => {
    const insecure = await AmpTestServer.start({ stored: { t: storedAmpRequest({}, { secure: 0 }) } });
    try {
      await insecure.get('tag_id=t');
      expect(insecure.lastBidderRequest().imp[0].secure).to.equal(1);
    } finally {
      await insecure.close();
    }
  });

  it('gives a stored request whose id is {{UUID}} a fresh id per auction', async () => {
    const fresh = await AmpTestServer.start({ stored: { t: storedAmpRequest({ id: '{{UUID}}' }) } });
    try {
      await fresh.get('tag_id=t');
      const first = fresh.lastBidderRequest().id as string;
      await fresh.get('tag_id=t');
      expect(first).to.match(/^[0-9a-f-]{36}$/);
      expect(fresh.lastBidderRequest().id).to.match(/^[0-9a-f-]{36}$/).and.not.equal(first);
    } finally {
      await fresh.close();
    }
  });

  it("with the host's generateRequestId, gives every AMP request a fresh id and new tids, as Prebid Server's generate_request_id", async () => {
    const stored = storedAmpRequest({ source: { tid: 'stored-tid' } }, { ext: { prebid: { bidder: { alpha: {} } }, tid: 'stored-imp-tid' } });
    const generating = await AmpTestServer.start({ stored: { t: stored }, config: { auction: { generateRequestId: true } } });
    try {
      await generating.get('tag_id=t');
      const sent = generating.lastBidderRequest();
      expect([sent.id, sent.source.tid, sent.imp[0].ext.tid]).to.satisfy((ids: string[]) => ids.every((id) => /^[0-9a-f-]{36}$/.test(id)));
    } finally {
      await generating.close();
    }
  });

  it('marks the site as AMP for bidders', async () => {
    await server.get('tag_id=single');
    expect(server.lastBidderRequest().site.ext).to.deep.equal({ amp: 1 });
  });

  it('names the amp channel for bidders, also where the stored request has a null channel; a stored channel stays', async () => {
    await server.get('tag_id=nullChannel');
    expect(server.lastBidderRequest().ext.prebid.channel).to.deep.equal({ name: 'amp', version: '' });
    await server.get('tag_id=webChannel');
    expect(server.lastBidderRequest().ext.prebid.channel).to.deep.equal({ name: 'web', version: '2' });
  });
});

describe('GET /openrtb2/amp: query parameters', () => {
  let server: AmpTestServer;

  before(async () => {
    server = await AmpTestServer.start({
      stored: {
        t: storedAmpRequest(),
        tmax300: storedAmpRequest({ tmax: 300 }),
        tested: storedAmpRequest({ test: 1 }),
        bare: storedAmpRequest({ site: { page: 'https://news.example/' } }),
        consented: storedAmpRequest({ regs: { gdpr: 1 } }),
        nameless: storedAmpRequest({ site: { page: 'https://news.example/', domain: 'stored.example', publisher: { name: 'News' } } }),
        nested: storedAmpRequest({ ext: { prebid: { storedrequest: { id: 'elsewhere' } } } }, { ext: { prebid: { bidder: { alpha: {} }, storedrequest: { id: 'other-imp' } } } }),
      },
      // What the consent parameters become in the bidder's request, not what GDPR then lets through (test/privacy).
      config: { privacy: { gdpr: { enabled: false } } },
    });
  });
  after(() => server.close());

  it('curl sets site.page and site.domain', async () => {
    await server.get(`tag_id=t&curl=${PAGE}`);
    expect(server.lastBidderRequest().site).to.include({ page: 'https://www.publisher.example:8443/amp/story.html', domain: 'www.publisher.example' });
  });

  it("takes the domain as Go's URL parser reads the host: as written, empty without //, unchanged when it cannot parse", async () => {
    const domainOf = async (curl: string) => {
      await server.get(`tag_id=nameless&curl=${encodeURIComponent(curl)}`);
      return server.lastBidderRequest().site.domain;
    };
    expect(await domainOf('https://WWW.Amp.EXAMPLE/p')).to.equal('WWW.Amp.EXAMPLE');
    expect(await domainOf('https://user@bücher.example:8080/')).to.equal('bücher.example');
    // No authority: Prebid Server writes an empty domain, which then goes unsent.
    expect(await domainOf('www.amp.example/path')).to.equal(undefined);
    expect(await domainOf('https://a.example/%zz')).to.equal('stored.example');
  });

  it('slot sets imp[0].tagid', async () => {
    await server.get('tag_id=t&slot=%2F1234%2Fsports');
    expect(server.lastBidderRequest().imp[0].tagid).to.equal('/1234/sports');
  });

  it('targeting is merged into imp[0].ext.data', async () => {
    await server.get(`tag_id=t&targeting=${encodeURIComponent('{"section":"sports","tags":["a","b"]}')}`);
    expect(server.lastBidderRequest().imp[0].ext.data).to.deep.equal({ section: 'sports', tags: ['a', 'b'] });
  });

  it('targeting that is not JSON is a warning (code 2) and the auction goes on; null removes the data', async () => {
    const answer = await server.get('tag_id=t&targeting=%7Bnot-json');
    expect(answer.status, answer.text).to.equal(200);
    // After the account's debug warning, as Prebid Server adds the endpoint's warnings to the exchange's.
    expect(answer.json.warnings.general.map((warning: { code: number }) => warning.code)).to.deep.equal([10002, 2]);
    expect(answer.json.warnings.general[1].message).to.equal('unable to merge imp.ext with targeting data, check targeting data is correct: Invalid JSON Patch');
    expect(server.lastBidderRequest().imp[0].ext.data).to.equal(undefined);
    await server.get('tag_id=t&targeting=null');
    expect(server.lastBidderRequest().imp[0].ext.data).to.equal(undefined);
  });

  it('account names the publisher of a stored request that names none; the unfilled ACCOUNT_ID macro is ignored', async () => {
    // A stored publisher id wins, as in Prebid Server.
    await server.get('tag_id=t&account=pub-42');
    expect(server.lastBidderRequest().site.publisher.id).to.equal('stored-publisher');
    await server.get('tag_id=t&account=ACCOUNT_ID');
    expect(server.lastBidderRequest().site.publisher.id).to.equal('stored-publisher');
    await server.get('tag_id=bare&account=pub-43');
    // The registrable domain of the page joins it, as Prebid Server fills it in.
    expect(server.lastBidderRequest().site.publisher).to.deep.equal({ id: 'pub-43', domain: 'news.example' });
    await server.get('tag_id=nameless&account=pub-44');
    expect(server.lastBidderRequest().site.publisher).to.deep.equal({ name: 'News', id: 'pub-44', domain: 'news.example' });
  });

  it('merges nothing the AMP stored request names in turn (stored request and stored imp references), as Prebid Server', async () => {
    const answer = await server.get('tag_id=nested&w=728&h=90');
    expect(answer.status, answer.text).to.equal(200);
    expect(server.lastBidderRequest().imp[0].banner.format).to.deep.equal([{ w: 728, h: 90 }]);
  });

  it('other unfilled macros (CANONICAL_URL, TIMEOUT, TGT, CONSENT_STRING, CONSENT_METADATA()) are ignored too', async () => {
    const query = 'tag_id=t&curl=CANONICAL_URL&timeout=TIMEOUT&targeting=TGT&consent_string=CONSENT_STRING'
      + '&consent_type=CONSENT_METADATA(consentStringType)&gdpr_applies=CONSENT_METADATA(gdprApplies)&slot=ATTR(data-slot)';
    const answer = await server.get(query);
    expect(answer.status, answer.text).to.equal(200);
    const request = server.lastBidderRequest();
    expect(request.site.page).to.equal('https://news.example/story');
    expect(request.tmax).to.equal(1000);
    expect(request.imp[0].tagid).to.equal(undefined);
    expect(request.imp[0].ext.data).to.equal(undefined);
    expect(request.user).to.equal(undefined);
    expect(request.regs).to.equal(undefined);
  });

  it('consent_type=3 makes the consent string the US privacy string', async () => {
    await server.get('tag_id=t&consent_string=1YNN&consent_type=3');
    const request = server.lastBidderRequest();
    expect(request.regs.ext.us_privacy).to.equal('1YNN');
    expect(request.user).to.equal(undefined);
  });

  it('a TCF v2 string is not written while the host does not enforce GDPR; addtl_consent is', async () => {
    await server.get(`tag_id=t&consent_string=${TCF2}&consent_type=2&addtl_consent=1~7.12.x.35`);
    const request = server.lastBidderRequest();
    expect(request.user.ext).to.deep.equal({
      ConsentedProvidersSettings: { consented_providers: '1~7.12.x.35' },
      consented_providers_settings: { consented_providers: [7, 12, 35] },
    });
    expect(request.regs).to.equal(undefined);
  });

  it('a consent string of an unsupported consent_type is left out with a warning', async () => {
    const answer = await server.get('tag_id=t&consent_string=BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA&consent_type=1');
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.json.warnings.general).to.deep.equal([
      { code: 10002, message: 'debug turned off for account' },
      { code: 10001, message: 'TCF1 consent is deprecated and no longer supported.' },
    ]);
    expect(server.lastBidderRequest().user).to.equal(undefined);
  });

  it('trace asks for the hooks trace: ext.<ns>.trace on the request, modules.trace in the answer', async () => {
    const answer = await server.get('tag_id=t&trace=verbose&debug=1');
    expect(answer.status, answer.text).to.equal(200);
    // This host's default namespace is `prebid`: the request and the answer use it.
    expect(answer.json.debug.resolvedrequest.ext.prebid.trace).to.equal('verbose');
    expect(answer.json.prebid.modules).to.have.property('trace');
    const quiet = await server.get('tag_id=t');
    expect(quiet.json).to.not.have.property('prebid');
  });

  it('a trace asked for where no hook ran has no modules member, as in Prebid Server', async () => {
    const hookless = await AmpTestServer.start({ stored: { t: storedAmpRequest() }, config: { modules: { 'prebid.floors': { enabled: false } } } });
    try {
      const answer = await hookless.get('tag_id=t&trace=verbose');
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.json).to.not.have.property('prebid');
    } finally {
      await hookless.close();
    }
  });

  it('debug=1 sets request.test and answers with debug information', async () => {
    const answer = await server.get('tag_id=t&debug=1');
    expect(server.lastBidderRequest().test).to.equal(1);
    expect(answer.json.debug.httpcalls.alpha).to.have.length(1);
    expect(answer.json.debug.resolvedrequest.imp[0].secure).to.equal(1);
    const quiet = await server.get('tag_id=t');
    expect(quiet.json).to.not.have.property('debug');
  });

  it("a stored request with test 1 is answered with debug information too, as Prebid Server reads the request's test", async () => {
    const answer = await server.get('tag_id=tested');
    expect(answer.json.debug.httpcalls.alpha).to.have.length(1);
  });

  describe('timeout and amp_timeout_adjustment_ms', () => {
    const cases: Array<[string, string, number]> = [
      ['timeout below the AMP default is used', 'tag_id=t&timeout=600', 600],
      ['timeout above the AMP default is capped at 1000', 'tag_id=t&timeout=5000', 1000],
      ['the adjustment is taken off', 'tag_id=t&timeout=600&amp_timeout_adjustment_ms=150', 450],
      ['the adjustment is taken off the capped value', 'tag_id=t&timeout=5000&amp_timeout_adjustment_ms=100', 900],
      ['without timeout the AMP default applies', 'tag_id=t', 1000],
      ['without timeout a stored tmax applies', 'tag_id=tmax300', 300],
      ['timeout overrides a stored tmax', 'tag_id=tmax300&timeout=700', 700],
    ];
    for (const [name, query, tmax] of cases) {
      it(name, async () => {
        const answer = await server.get(query);
        expect(answer.status, answer.text).to.equal(200);
        expect(server.lastBidderRequest().tmax).to.equal(tmax);
      });
    }

    it('the host default adjustment (amp.timeoutAdjustmentMs) applies when the query gives none', async () => {
      const adjusted = await AmpTestServer.start({ stored: { t: storedAmpRequest() }, config: { amp: { timeoutAdjustmentMs: 80 } } });
      try {
        await adjusted.get('tag_id=t&timeout=500');
        expect(adjusted.lastBidderRequest().tmax).to.equal(420);
        await adjusted.get('tag_id=t&timeout=500&amp_timeout_adjustment_ms=0');
        expect(adjusted.lastBidderRequest().tmax).to.equal(500);
      } finally {
        await adjusted.close();
      }
    });

    it('the host maximum lowers it further: a slow bidder times out and the answer still comes in time', async () => {
      const strict = await AmpTestServer.start({
        stored: { t: storedAmpRequest({}, { ext: { prebid: { bidder: { alpha: {}, slow: {} } } } }) },
        bidders: { alpha: 'price=1.25', slow: 'price=9&delayMs=600' },
        config: { auction: { defaultTmaxMs: 200, maxTmaxMs: 200 } },
      });
      try {
        const answer = await strict.get('tag_id=t&timeout=1000');
        expect(answer.status, answer.text).to.equal(200);
        expect(answer.elapsedMs).to.be.below(400);
        expect(answer.json.targeting.hb_bidder).to.equal('alpha');
        expect(answer.json.errors.slow[0].code).to.equal(1);
      } finally {
        await strict.close();
      }
    });
  });
});

describe('GET /openrtb2/amp: account refusals, in Prebid Server\'s words', () => {
  it('a disabled account, named by the account param, is a 503', async () => {
    const server = await AmpTestServer.start({ fetcher: new MemoryFetcher({ requests: { t: storedAmpRequest({ site: { page: 'https://news.example/' } }) }, accounts: { off: { disabled: true } } }) });
    try {
      const answer = await server.get('tag_id=t&account=off');
      expect(answer.status).to.equal(503);
      expect(answer.text).to.equal('Invalid request: Prebid-server has disabled Account ID: off, please reach out to the prebid server host.\n');
    } finally {
      await server.close();
    }
  });

  it('with accounts required, a request naming none is a 400', async () => {
    const server = await AmpTestServer.start({ stored: { t: storedAmpRequest({ site: { page: 'https://news.example/' } }) }, config: { accounts: { required: true } } });
    try {
      const answer = await server.get('tag_id=t&account=ACCOUNT_ID');
      expect(answer.status).to.equal(400);
      expect(answer.text).to.match(/^Invalid request: Prebid-server has been configured to discard requests without a valid Account ID\. Please reach out to the prebid server host\./);
      expect((await server.get('tag_id=t&account=pub-1')).status).to.equal(200);
    } finally {
      await server.close();
    }
  });
});

describe('GET /openrtb2/amp: CORS for AMP', () => {
  let server: AmpTestServer;

  before(async () => {
    server = await AmpTestServer.start({ stored: { t: storedAmpRequest() } });
  });
  after(() => server.close());

  it('echoes Origin with credentials and names __amp_source_origin in AMP-Access-Control-Allow-Source-Origin', async () => {
    const answer = await server.get(`tag_id=t&__amp_source_origin=${encodeURIComponent('https://www.publisher.example')}`, {
      origin: 'https://www-publisher-example.cdn.ampproject.org',
    });
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('access-control-allow-origin')).to.equal('https://www-publisher-example.cdn.ampproject.org');
    expect(answer.headers.get('access-control-allow-credentials')).to.equal('true');
    expect(answer.headers.get('amp-access-control-allow-source-origin')).to.equal('https://www.publisher.example');
    expect(answer.headers.get('access-control-expose-headers')).to.equal('AMP-Access-Control-Allow-Source-Origin');
  });

  it('falls back to Origin when the page sent no __amp_source_origin, and answers errors with the headers too', async () => {
    const answer = await server.get('tag_id=unknown', { origin: 'https://www.publisher.example' });
    expect(answer.status).to.equal(400);
    expect(answer.headers.get('amp-access-control-allow-source-origin')).to.equal('https://www.publisher.example');
    expect(answer.headers.get('access-control-allow-credentials')).to.equal('true');
  });

  it('answers the preflight', async () => {
    const response = await fetch(`${server.gavel.url}/openrtb2/amp?tag_id=t`, {
      method: 'OPTIONS',
      headers: { origin: 'https://www.publisher.example', 'access-control-request-method': 'GET' },
    });
    expect(response.status).to.equal(204);
    expect(response.headers.get('access-control-allow-origin')).to.equal('https://www.publisher.example');
  });

  it('names only allow-listed source origins when the host has an allow-list', async () => {
    const listed = await AmpTestServer.start({ stored: { t: storedAmpRequest() }, config: { cors: { allowedOrigins: ['https://www.publisher.example'] } } });
    try {
      const allowed = await listed.get(`tag_id=t&__amp_source_origin=${encodeURIComponent('https://www.publisher.example')}`);
      expect(allowed.headers.get('amp-access-control-allow-source-origin')).to.equal('https://www.publisher.example');
      const other = await listed.get(`tag_id=t&__amp_source_origin=${encodeURIComponent('https://evil.example')}`);
      expect(other.headers.get('amp-access-control-allow-source-origin')).to.equal(null);
    } finally {
      await listed.close();
    }
  });
});

describe('GET /openrtb2/amp: consent parameters, as Prebid Server reads them', () => {
  let server: AmpTestServer;

  before(async () => {
    server = await AmpTestServer.start({
      stored: { t: storedAmpRequest(), consented: storedAmpRequest({ regs: { gdpr: 1 } }) },
      // The request as the query leaves it (debug's resolved request), before GDPR decides what each bidder receives.
      config: { privacy: { gdpr: { enabled: true } } },
    });
  });
  after(() => server.close());

  /** The resolved request of an auction with these query parameters, and the answer's general warnings. */
  async function resolved(query: string): Promise<{ request: any; warnings: unknown[] }> {
    const answer = await server.get(`tag_id=t&debug=1&${query}`);
    expect(answer.status, answer.text).to.equal(200);
    return { request: answer.json.debug.resolvedrequest, warnings: (answer.json.warnings?.general ?? []).filter((w: any) => w.code === 10001) };
  }

  function consentOf(request: any): unknown {
    return request.user?.consent ?? request.user?.ext?.consent;
  }

  function gdprOf(request: any): unknown {
    return request.regs?.gdpr ?? request.regs?.ext?.gdpr;
  }

  function usPrivacyOf(request: any): unknown {
    return request.regs?.us_privacy ?? request.regs?.ext?.us_privacy;
  }

  it('consent_type=2: the TCF v2 string under GDPR, unless gdpr_applies=false', async () => {
    let { request, warnings } = await resolved(`consent_string=${TCF2}&consent_type=2`);
    expect([consentOf(request), gdprOf(request), warnings]).to.deep.equal([TCF2, 1, []]);
    ({ request } = await resolved(`consent_string=${TCF2}&consent_type=2&gdpr_applies=false`));
    expect([consentOf(request), gdprOf(request)]).to.deep.equal([TCF2, 0]);
  });

  it("reads gdpr_applies as Go's strconv.ParseBool does (0 and F are false), as Prebid Server does", async () => {
    for (const no of ['0', 'F', 'FALSE']) {
      const { request } = await resolved(`consent_string=${TCF2}&consent_type=2&gdpr_applies=${no}`);
      expect(gdprOf(request), no).to.equal(0);
    }
    const { request } = await resolved(`consent_string=${TCF2}&consent_type=2&gdpr_applies=no`);
    expect(gdprOf(request)).to.equal(1);
  });

  it('gdpr_consent is the older name of consent_string; gdpr_applies=false overrides a stored gdpr', async () => {
    const answer = await server.get(`tag_id=consented&debug=1&gdpr_consent=${TCF2}&gdpr_applies=false`);
    const request = answer.json.debug.resolvedrequest;
    expect([consentOf(request), gdprOf(request)]).to.deep.equal([TCF2, 0]);
  });

  it('consent_type=2 with a string that is not TCF v2: a warning, and nothing written', async () => {
    const { request, warnings } = await resolved('consent_string=BOGUS&consent_type=2&gdpr_applies=true');
    expect(warnings).to.deep.equal([{ code: 10001, message: "Consent string 'BOGUS' is not a valid TCF2 consent string." }]);
    expect([consentOf(request), gdprOf(request)]).to.deep.equal([undefined, undefined]);
  });

  it('consent_type=3: the US privacy string; an invalid one or gdpr_applies=true is a warning and writes nothing', async () => {
    let { request, warnings } = await resolved('consent_string=1YYN&consent_type=3');
    expect([usPrivacyOf(request), gdprOf(request), warnings]).to.deep.equal(['1YYN', undefined, []]);
    ({ request, warnings } = await resolved('consent_string=2YYN&consent_type=3'));
    expect(warnings).to.deep.equal([{ code: 10001, message: "Consent string '2YYN' is not a valid CCPA consent string." }]);
    expect(usPrivacyOf(request)).to.equal(undefined);
    ({ request, warnings } = await resolved('consent_string=1YYN&consent_type=3&gdpr_applies=true'));
    expect(warnings).to.deep.equal([{ code: 10001, message: 'AMP request gdpr_applies value was ignored because provided consent string is a CCPA consent string' }]);
    expect([usPrivacyOf(request), gdprOf(request)]).to.deep.equal([undefined, undefined]);
  });

  it('without consent_type: a US privacy string, else a TCF v2 string, else a warning', async () => {
    let { request, warnings } = await resolved('consent_string=1NYN');
    expect([usPrivacyOf(request), consentOf(request), warnings]).to.deep.equal(['1NYN', undefined, []]);
    ({ request, warnings } = await resolved(`consent_string=${TCF2}`));
    expect([consentOf(request), gdprOf(request), usPrivacyOf(request), warnings]).to.deep.equal([TCF2, 1, undefined, []]);
    ({ request, warnings } = await resolved('consent_string=neither'));
    expect(warnings).to.deep.equal([{ code: 10001, message: "Consent string 'neither' is not recognized as one of the supported formats CCPA or TCF2." }]);
    expect([consentOf(request), usPrivacyOf(request)]).to.deep.equal([undefined, undefined]);
  });

  it('consent_type=4: the consent string is the GPP string, in regs.gpp, whatever gdpr_applies says; gpp_sid goes in regs.gpp_sid', async () => {
    let { request, warnings } = await resolved('consent_string=DBABTA~1YYN&consent_type=4&gpp_sid=6&gdpr_applies=true');
    expect([request.regs?.gpp, request.regs?.gpp_sid, gdprOf(request), consentOf(request), usPrivacyOf(request), warnings]).to.deep.equal(['DBABTA~1YYN', [6], undefined, undefined, undefined, []]);
    ({ request, warnings } = await resolved('gpp=DBABTA~1YYN&gpp_sid=2,6'));
    expect([request.regs?.gpp, request.regs?.gpp_sid, warnings]).to.deep.equal(['DBABTA~1YYN', [2, 6], []]);
  });

  it('a gpp_sid that is not a csv list of small integers is left out with a warning; the rest of the consent still applies', async () => {
    for (const bad of ['2,x', '2,,6', '128', ' 2']) {
      const { request, warnings } = await resolved(`gpp_sid=${encodeURIComponent(bad)}&consent_string=1YYN&consent_type=3`);
      expect(warnings, bad).to.deep.equal([{ code: 10001, message: 'invalid gpp_sid encoding, must be a csv list of integers' }]);
      expect([request.regs?.gpp_sid, usPrivacyOf(request)], bad).to.deep.equal([undefined, '1YYN']);
    }
  });

  it('attl_consent, the other spelling in use, is the additional consent string as addtl_consent is', async () => {
    const { request } = await resolved('attl_consent=1~7.12');
    expect(request.user?.ext?.ConsentedProvidersSettings).to.deep.equal({ consented_providers: '1~7.12' });
    expect(request.user?.ext?.consented_providers_settings).to.deep.equal({ consented_providers: [7, 12] });
  });

  it('gdpr_applies without a consent string writes nothing', async () => {
    const { request } = await resolved('gdpr_applies=true');
    expect(gdprOf(request)).to.equal(undefined);
  });
});
