import { expect } from 'chai';
import type { EndpointResponse } from '../../core/auction/endpoint-types.js';
import type { BidderCatalog, BidderEntry } from '../../core/bidders/catalog.js';
import { handleCookieSync, type BidderSyncStatus, type UserSyncDeps } from '../../core/usersync/index.js';
import { listSyncers } from '../../core/usersync/syncers.js';
import { DAY_MS, endpointRequest, handWrittenUids, NOW, userSyncDeps } from './support.js';

describe('POST /cookie_sync', () => {
  let deps: UserSyncDeps;
  /** The enabled installed adapters that ship user-sync URLs under the default config. */
  let SYNCING_BIDDERS: string[];
  before(async () => {
    deps = await userSyncDeps();
    SYNCING_BIDDERS = listSyncers(deps.bidders).filter((syncer) => syncer.enabled).map((syncer) => syncer.bidder).sort();
    // The named bidders below must be among them for the cases to mean anything.
    expect(SYNCING_BIDDERS).to.include.members(['appnexus', 'ix', 'openx', 'pubmatic']);
  });

  function cookieSync(body: Record<string, unknown>, cookie?: string, using = deps): Promise<EndpointResponse> {
    return handleCookieSync(endpointRequest({ method: 'POST', path: '/cookie_sync', body, cookie }), using);
  }

  async function statuses(body: Record<string, unknown>, cookie?: string, using = deps): Promise<BidderSyncStatus[]> {
    const answer = await cookieSync(body, cookie, using);
    expect(answer.status, String(answer.body)).to.equal(200);
    return (answer.body as { bidder_status: BidderSyncStatus[] }).bidder_status;
  }

  const names = (list: BidderSyncStatus[]) => list.map((status) => status.bidder);

  describe('which bidders', () => {
    it('offers every enabled bidder with user-sync info when no list is given, and says no_cookie', async () => {
      const answer = await cookieSync({});
      expect(answer.headers['content-type']).to.equal('application/json; charset=utf-8');
      const body = answer.body as { status: string; bidder_status: BidderSyncStatus[] };
      expect(body.status).to.equal('no_cookie');
      expect(names(body.bidder_status).sort()).to.deep.equal(SYNCING_BIDDERS);
      for (const status of body.bidder_status) expect(status.no_cookie).to.equal(true);
    });

    it('offers only the requested bidders, in their order, skipping those with a live id; status ok', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'an-1', expires: NOW + DAY_MS } });
      const answer = await cookieSync({ bidders: ['pubmatic', 'appnexus', 'ix'] }, `uids=${cookie}`);
      const body = answer.body as { status: string; bidder_status: BidderSyncStatus[] };
      expect(body.status).to.equal('ok');
      expect(names(body.bidder_status)).to.deep.equal(['pubmatic', 'ix']);
    });

    it('offers a bidder again once its id expired; status no_cookie when nothing is live', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'an-1', expires: NOW - 1 } });
      const answer = await cookieSync({ bidders: ['appnexus'] }, `uids=${cookie}`);
      expect(answer.body).to.deep.include({ status: 'no_cookie' });
      expect(names((answer.body as { bidder_status: BidderSyncStatus[] }).bidder_status)).to.deep.equal(['appnexus']);
    });

    it('ignores names that are unknown or have no user sync', async () => {
      expect(names(await statuses({ bidders: ['nosuch', 'ortb', 'rubicon', 'openx'] }))).to.deep.equal(['openx']);
    });

    it('caps the list at limit', async () => {
      expect(await statuses({ limit: 2 })).to.have.length(2);
      expect(names(await statuses({ bidders: ['openx', 'ix', 'pubmatic'], limit: 1 }))).to.deep.equal(['openx']);
      expect(await statuses({ limit: 0 })).to.have.length(SYNCING_BIDDERS.length);
    });

    it('with coopSync, adds the other bidders after the requested ones', async () => {
      const list = names(await statuses({ bidders: ['pubmatic'], coopSync: true }));
      expect(list[0]).to.equal('pubmatic');
      expect([...list].sort()).to.deep.equal(SYNCING_BIDDERS);
    });

    it('skips disabled bidders', async () => {
      const withoutIx = await userSyncDeps({ bidders: { ix: { enabled: false } } });
      expect(names(await statuses({}, undefined, withoutIx))).to.not.include('ix');
    });

    it('offers one sync per cookie key when bidders share it (an alias of appnexus)', async () => {
      const withAlias = await userSyncDeps({ bidders: { anxalias: { aliasOf: 'appnexus' } } });
      const list = await statuses({ bidders: ['anxalias', 'appnexus'] }, undefined, withAlias);
      expect(names(list)).to.deep.equal(['anxalias']);
      expect(list[0]!.usersync.url).to.contain('bidder%3Dadnxs');
    });

    it('offers nothing to a user who opted out', async () => {
      const answer = await cookieSync({}, `uids=${handWrittenUids({}, { optout: true })}`);
      expect(answer.status).to.equal(401);
    });
  });

  describe('sync URLs', () => {
    it("fills appnexus's own redirect URL with our /setuid (Prebid Server's redirect_url, gpp and gpp_sid too), query-escaped", async () => {
      // GDPR does not apply here (test/privacy/sync-consent.test.ts has the consent cases): the signals are carried as given.
      const [appnexus] = await statuses({ bidders: ['appnexus'], gdpr: 0, gdpr_consent: 'CPc0nsent' });
      expect(appnexus).to.deep.equal({
        bidder: 'appnexus',
        no_cookie: true,
        usersync: {
          url: 'https://ib.adnxs.com/getuid?https%3A%2F%2Fgavel.example.com%2Fsetuid%3Fbidder%3Dadnxs%26gdpr%3D0%26gdpr_consent%3DCPc0nsent%26gpp%3D%26gpp_sid%3D%26f%3Di%26uid%3D%24UID',
          type: 'redirect',
        },
      });
    });

    it('fills the privacy macros with the request values as given (Prebid Server does not escape them) and leaves no macro behind', async () => {
      // gpp_sid naming sections but not 2 (TCF EU v2) makes gdpr 0, as Prebid Server reads it.
      const [ix] = await statuses({ bidders: ['ix'], gdpr: 0, gdpr_consent: 'CPc-0.x', us_privacy: '1YNN', gpp: 'DBABTA~1YNN', gpp_sid: [6, 8] });
      expect(ix!.usersync.type).to.equal('iframe');
      expect(new URL(ix!.usersync.url).origin).to.equal('https://ssum-sec.casalemedia.com');
      expect(ix!.usersync.url).to.contain('gdpr=0&gdpr_consent=CPc-0.x&us_privacy=1YNN&gpp=DBABTA~1YNN&gppsid=6,8&cb=');
      expect(ix!.usersync.url).to.not.contain('{{');
      // In the query-escaped redirect too the values stand as given; ix appends the id after `uid=`.
      expect(ix!.usersync.url).to.contain('&cb=https%3A%2F%2Fgavel.example.com%2Fsetuid%3Fbidder%3Dix%26gdpr%3D0%26gdpr_consent%3DCPc-0.x%26gpp%3DDBABTA~1YNN%26gpp_sid%3D6,8%26f%3Db%26uid%3D');
    });

    it('query-escapes the redirect as Go does: a space as +, and !*\'() escaped', async () => {
      const odd = await userSyncDeps({ server: { externalUrl: "https://gavel.example.com/a b!*'()" } });
      const [appnexus] = await statuses({ bidders: ['appnexus'] }, undefined, odd);
      expect(appnexus!.usersync.url).to.contain('getuid?https%3A%2F%2Fgavel.example.com%2Fa+b%21%2A%27%28%29%2Fsetuid%3Fbidder%3Dadnxs%26gdpr%3D%26');
    });

    it('leaves unknown signals empty', async () => {
      const [pubmatic] = await statuses({ bidders: ['pubmatic'] });
      expect(pubmatic!.usersync.url).to.match(/^https:\/\/ads\.pubmatic\.com\/AdServer\/js\/user_sync\.html\?gdpr=&gdpr_consent=&us_privacy=&predirect=/);
    });

    it('prefers an iframe sync, and falls back to the redirect when the page filters iframes out', async () => {
      expect((await statuses({ bidders: ['openx'] }))[0]!.usersync.type).to.equal('iframe');
      const filtered = await statuses({ bidders: ['openx', 'appnexus'], filterSettings: { iframe: { bidders: '*', filter: 'exclude' } } });
      expect(filtered.map((status) => status.usersync.type)).to.deep.equal(['redirect', 'redirect']);
      expect(new URL(filtered[0]!.usersync.url).searchParams.get('r')).to.equal('https://gavel.example.com/setuid?bidder=openx&gdpr=&gdpr_consent=&gpp=&gpp_sid=&f=i&uid=${UID}');
    });

    it('drops a bidder no allowed sync type is left for', async () => {
      const settings = { iframe: { bidders: '*', filter: 'exclude' }, image: { bidders: ['openx'], filter: 'include' } };
      expect(names(await statuses({ filterSettings: settings }))).to.deep.equal(['openx']);
    });

    it('answers only url and type, even for an adapter that supports CORS, as Prebid Server does', async () => {
      const appnexus = deps.bidders.get('appnexus')!;
      const corsEntry: BidderEntry = { ...appnexus, name: 'corsbidder', info: { ...appnexus.info, userSync: { ...appnexus.info.userSync, key: 'cors', supportCors: true } } };
      const entries = new Map([['corsbidder', corsEntry]]);
      const catalog: BidderCatalog = { entries, get: (name) => entries.get(name) };
      const [status] = await statuses({}, undefined, { ...deps, bidders: catalog });
      expect(Object.keys(status!.usersync).sort()).to.deep.equal(['type', 'url']);
    });
  });

  describe('bad requests', () => {
    it('answers 400 listing every problem in the body', async () => {
      const answer = await cookieSync({ bidders: 'appnexus', gdpr: 2, limit: 1.5, coopSync: 'yes', us_privacy: 5, filterSettings: { image: { filter: 'maybe' } } });
      expect(answer.status).to.equal(400);
      const lines = String(answer.body).trim().split('\n');
      expect(lines).to.have.length(6);
      for (const text of ['"bidders"', 'GDPR signal should be integer 0 or 1', '"limit"', '"coopSync"', '"us_privacy"', "error parsing filtersettings.image: invalid filter value 'maybe'. must be either 'include' or 'exclude'"]) {
        expect(lines.some((line) => line.includes(text)), text).to.equal(true);
      }
    });

    it("reads filterSettings as Prebid Server does: no defaults, its words", async () => {
      const problem = async (filterSettings: unknown) => String((await cookieSync({ filterSettings })).body).trim();
      expect(await problem({ iframe: { bidders: '*' } })).to.equal("error parsing filtersettings.iframe: invalid filter value ''. must be either 'include' or 'exclude'");
      expect(await problem({ iframe: { filter: 'include', bidders: 'appnexus' } })).to.equal("error parsing filtersettings.iframe: invalid bidders value `appnexus`. must either be '*' or a string array");
      expect(await problem({ image: { filter: 'exclude' } })).to.equal("error parsing filtersettings.image: invalid bidders type. must either be a string '*' or a string array of bidders");
    });

    it('answers 400 when GDPR applies without a consent string, in Prebid Server\'s words', async () => {
      const answer = await cookieSync({ gdpr: 1 });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal('gdpr_consent is required if gdpr=1\n');
      // gpp_sid decides when it names sections: TCF EU v2 (2) applies GDPR, and gdpr is then not read.
      expect((await cookieSync({ gpp_sid: '2', gdpr: 0 })).body).to.equal('gdpr_consent is required if gdpr=1\n');
      expect((await cookieSync({ gpp_sid: '8', gdpr: 7 })).status).to.equal(200);
      // A request that says nothing, on a host that assumes GDPR applies.
      const assuming = await userSyncDeps({ privacy: { gdpr: { defaultValue: '1' } } });
      expect((await cookieSync({}, undefined, assuming)).body).to.equal('gdpr_consent is required. gdpr is not specified and is assumed to be 1 by the server. set gdpr=0 to exempt this request\n');
      expect((await cookieSync({ gdpr: 0 }, undefined, assuming)).status).to.equal(200);
    });
  });

  describe('cookie deprecation', () => {
    const enabled = (settings: Record<string, unknown>) => userSyncDeps({ accounts: { defaults: { privacy: { privacysandbox: { cookiedeprecation: settings } } } } });

    it("asks for the label with a partitioned receive-cookie-deprecation cookie when the account enables it, as Prebid Server's cookie sync", async () => {
      const answer = await cookieSync({}, undefined, await enabled({ enabled: true }));
      expect(answer.status).to.equal(200);
      expect(answer.headers['set-cookie']).to.equal(`receive-cookie-deprecation=1; Path=/; Expires=${new Date(NOW + 604800 * 1000).toUTCString()}; HttpOnly; Secure; SameSite=None; Partitioned;`);
      const shorter = await cookieSync({}, undefined, await enabled({ enabled: true, ttl_sec: 60 }));
      expect(shorter.headers['set-cookie']).to.contain(`Expires=${new Date(NOW + 60 * 1000).toUTCString()};`);
    });

    it('sets no cookie when the browser has it already or the account does not enable it', async () => {
      expect((await cookieSync({}, 'receive-cookie-deprecation=1', await enabled({ enabled: true }))).headers['set-cookie']).to.equal(undefined);
      expect((await cookieSync({})).headers['set-cookie']).to.equal(undefined);
    });
  });
});
