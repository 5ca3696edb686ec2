/**
 * /cookie_sync's chooser as Prebid Server's (usersync/chooser.go, endpoints/cookie_sync.go): the order of its checks,
 * the debug entry of every bidder it leaves out, the account's cookie_sync settings, and the privacy signals it reads.
 */
import { expect } from 'chai';
import type { EndpointResponse } from '../../core/auction/endpoint-types.js';
import { ErrorCode, type AccountSettings } from '../../core/api/index.js';
import { handleCookieSync, type BidderSyncStatus, type CookieSyncResponse, type UserSyncDeps } from '../../core/usersync/index.js';
import { listSyncers } from '../../core/usersync/syncers.js';
import { DAY_MS, endpointRequest, handWrittenUids, NOW, userSyncDeps } from './support.js';

describe("POST /cookie_sync chooses as Prebid Server's chooser", () => {
  let deps: UserSyncDeps;
  let SYNCING_BIDDERS: string[];
  before(async () => {
    deps = await userSyncDeps({ bidders: { ix: { endpoint: 'https://ix.example/pbs' }, anxalias: { aliasOf: 'appnexus' } } });
    SYNCING_BIDDERS = listSyncers(deps.bidders).filter((syncer) => syncer.enabled).map((syncer) => syncer.bidder).sort();
  });

  function withAccount(cookieSync: AccountSettings['cookie_sync']): UserSyncDeps {
    return { ...deps, accounts: { load: (id) => ({ account: { id, cookie_sync: cookieSync } }) } };
  }

  function cookieSync(body: Record<string, unknown>, cookie?: string, using = deps): Promise<EndpointResponse> {
    return handleCookieSync(endpointRequest({ method: 'POST', path: '/cookie_sync', body, cookie }), using);
  }

  async function answer(body: Record<string, unknown>, cookie?: string, using = deps): Promise<CookieSyncResponse> {
    const response = await cookieSync(body, cookie, using);
    expect(response.status, String(response.body)).to.equal(200);
    return response.body as CookieSyncResponse;
  }

  const names = (list: BidderSyncStatus[]) => list.map((status) => status.bidder);

  describe('debug', () => {
    it('lists every bidder left out with its reason, in the order looked at', async () => {
      const withIxOff = await userSyncDeps({ bidders: { ix: { enabled: false }, anxalias: { aliasOf: 'appnexus' } } });
      const cookie = handWrittenUids({ pubmatic: { uid: 'pm-1', expires: NOW + DAY_MS } });
      const body = await answer({
        bidders: ['nosuch', 'ix', 'teads', 'appnexus', 'anxalias', 'pubmatic', 'openx', 'openx'],
        filterSettings: { iframe: { bidders: ['openx'], filter: 'exclude' }, image: { bidders: ['openx'], filter: 'exclude' } },
        debug: true,
      }, `uids=${cookie}`, withIxOff);
      expect(names(body.bidder_status)).to.deep.equal(['appnexus']);
      expect(body.debug).to.deep.equal([
        { bidder: 'nosuch', error: 'Unsupported bidder' },
        { bidder: 'ix', error: 'Unsupported bidder' },
        { bidder: 'teads', error: 'No sync config' },
        { bidder: 'anxalias', error: 'Duplicate bidder synced as adnxs' },
        { bidder: 'pubmatic', error: 'Already in sync' },
        { bidder: 'openx', error: 'Rejected by request filter' },
      ]);
    });

    it('takes the cookie key before the filter and the cookie are looked at: a later bidder sharing it is a duplicate', async () => {
      const body = await answer({ bidders: ['anxalias', 'appnexus'], filterSettings: { iframe: { bidders: '*', filter: 'exclude' }, image: { bidders: ['anxalias'], filter: 'exclude' } }, debug: true });
      expect(body.bidder_status).to.deep.equal([]);
      expect(body.debug).to.deep.equal([
        { bidder: 'anxalias', error: 'Rejected by request filter' },
        { bidder: 'appnexus', error: 'Duplicate bidder synced as adnxs' },
      ]);
    });

    it('is left out when every bidder looked at is synced, and when debug is not asked for', async () => {
      expect(await answer({ bidders: ['appnexus'], debug: true })).to.not.have.property('debug');
      expect(await answer({ bidders: ['nosuch'] })).to.not.have.property('debug');
    });

    it('must be true or false', async () => {
      expect((await cookieSync({ debug: 'yes' })).status).to.equal(400);
    });
  });

  describe('bidders', () => {
    it('an empty list asks about every bidder that can sync', async () => {
      expect(names((await answer({ bidders: [] })).bidder_status).sort()).to.deep.equal(SYNCING_BIDDERS.filter((name) => name !== 'anxalias'));
    });

    it('matches names and filter lists in any case, answering the name as asked', async () => {
      const body = await answer({ bidders: ['AppNexus'], filterSettings: { iframe: { bidders: ['APPNEXUS'], filter: 'exclude' } } });
      expect(body.bidder_status.map((status) => [status.bidder, status.usersync.type])).to.deep.equal([['AppNexus', 'redirect']]);
    });
  });

  describe('limit and the account', () => {
    it('a limit of 0 or less is no cap', async () => {
      expect((await answer({ limit: -1 })).bidder_status).to.have.length(SYNCING_BIDDERS.length - 1);
    });

    it("takes the account's default_limit when the request gives none, and never goes over its max_limit", async () => {
      expect((await answer({ account: 'pub' }, undefined, withAccount({ default_limit: 2 }))).bidder_status).to.have.length(2);
      expect((await answer({ account: 'pub', limit: 3 }, undefined, withAccount({ default_limit: 2 }))).bidder_status).to.have.length(3);
      expect((await answer({ account: 'pub', limit: 3 }, undefined, withAccount({ max_limit: 1 }))).bidder_status).to.have.length(1);
      expect((await answer({ account: 'pub' }, undefined, withAccount({ default_limit: 0, max_limit: 2 }))).bidder_status).to.have.length(2);
    });

    it("takes the account's default_coop_sync when the request does not say, with its priority groups first", async () => {
      const coop = withAccount({ default_coop_sync: true, priority_groups: [['pubmatic'], ['openx']] });
      const list = names((await answer({ account: 'pub', bidders: ['ix'] }, undefined, coop)).bidder_status);
      expect(list.slice(0, 3)).to.deep.equal(['ix', 'pubmatic', 'openx']);
      expect(list).to.have.length(SYNCING_BIDDERS.length - 1);
      expect(names((await answer({ account: 'pub', bidders: ['ix'], coopSync: false }, undefined, coop)).bidder_status)).to.deep.equal(['ix']);
      const only = withAccount({ default_coop_sync: true, priority_groups: [['pubmatic']], priority_groups_only: true });
      expect(names((await answer({ account: 'pub', bidders: ['ix'] }, undefined, only)).bidder_status)).to.deep.equal(['ix', 'pubmatic']);
      // Groups of an account that does not set default_coop_sync are not used.
      const groupsOnly = withAccount({ priority_groups: [['pubmatic']], priority_groups_only: true });
      expect(names((await answer({ account: 'pub', bidders: ['ix'], coopSync: true }, undefined, groupsOnly)).bidder_status)).to.deep.equal(['ix']);
    });

    it("takes iframe syncs from the account's disabled_iframe_bidders ('*' for all)", async () => {
      const some = withAccount({ disabled_iframe_bidders: ['OpenX'] });
      const body = await answer({ account: 'pub', bidders: ['openx', 'ix'] }, undefined, some);
      expect(body.bidder_status.map((status) => [status.bidder, status.usersync.type])).to.deep.equal([['openx', 'redirect'], ['ix', 'iframe']]);
      const all = withAccount({ disabled_iframe_bidders: ['*'] });
      expect((await answer({ account: 'pub', bidders: ['openx', 'ix'] }, undefined, all)).bidder_status.map((status) => status.usersync.type)).to.deep.equal(['redirect', 'redirect']);
    });
  });

  describe('privacy signals', () => {
    const TCF = 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA';

    it('says the GDPR that gpp_sid decides in the sync URLs', async () => {
      const [appnexus] = (await answer({ bidders: ['appnexus'], gpp_sid: '8', gdpr: 1, gdpr_consent: TCF })).bidder_status;
      expect(decodeURIComponent(appnexus!.usersync.url)).to.contain('setuid?bidder=adnxs&gdpr=0&');
    });

    it("takes the consent from the GPP string's TCF EU v2 section over gdpr_consent", async () => {
      const gpp = `DBABMA~${TCF}`;
      expect((await cookieSync({ gdpr: 1, gpp })).status).to.equal(200);
      const [appnexus] = (await answer({ bidders: ['appnexus'], gdpr: 0, gdpr_consent: 'other', gpp })).bidder_status;
      expect(decodeURIComponent(appnexus!.usersync.url)).to.contain(`gdpr_consent=${TCF}&`);
    });

    it('still requires a consent when the GPP string has no TCF EU v2 section', async () => {
      const response = await cookieSync({ gdpr: 1, gpp: 'DBABTA~1YNN' });
      expect([response.status, response.body]).to.deep.equal([400, 'gdpr_consent is required if gdpr=1\n']);
    });

    it('answers 400 for a GPP string that does not parse, and for a gpp_sid that does not, in Go\'s words', async () => {
      expect((await cookieSync({ gpp: 'DBAB' })).status).to.equal(400);
      expect((await cookieSync({ gpp_sid: '2,x' })).body).to.equal('strconv.ParseInt: parsing "x": invalid syntax\n');
      expect((await cookieSync({ gpp_sid: '300' })).body).to.equal('strconv.ParseInt: parsing "300": value out of range\n');
    });

    it("takes the US privacy string from GPP's uspv1 section when gpp_sid names 6; us_privacy must then match it", async () => {
      const mismatch = await cookieSync({ gpp: 'DBABTA~1YNN', gpp_sid: '6', us_privacy: '1YYN' });
      expect([mismatch.status, mismatch.body]).to.deep.equal([400, 'request.us_privacy consent does not match uspv1\n']);
      const [pubmatic] = (await answer({ bidders: ['pubmatic'], gpp: 'DBABTA~1YNN', gpp_sid: '6' })).bidder_status;
      expect(pubmatic!.usersync.url).to.contain('us_privacy=1YNN&');
    });

    it('leaves a us_privacy that does not parse out of the sync URLs', async () => {
      const [pubmatic] = (await answer({ bidders: ['pubmatic'], us_privacy: 'bogus' })).bidder_status;
      expect(pubmatic!.usersync.url).to.contain('us_privacy=&');
    });
  });

  describe('errors', () => {
    it("answers an account's refusal with a 400 in Prebid Server's words, before the request's own problems", async () => {
      const refusing = (code: ErrorCode): UserSyncDeps => ({ ...deps, accounts: { load: () => ({ refusal: { status: 503, code, message: 'why' } }) } });
      const disabled = await cookieSync({ account: 'x', gdpr: 1 }, undefined, refusing(ErrorCode.AccountDisabled));
      expect([disabled.status, disabled.body]).to.deep.equal([400, 'account is disabled, please reach out to the prebid server host\n']);
      expect((await cookieSync({ account: 'x' }, undefined, refusing(ErrorCode.AccountRequired))).body).to.equal('account must be valid if provided, please reach out to the prebid server host\n');
      expect((await cookieSync({ account: 'x' }, undefined, refusing(ErrorCode.AccountMalformed))).body).to.equal('account config is malformed and could not be read\n');
      // No account is Prebid Server's "unknown" publisher, which a host requiring accounts refuses too.
      expect((await cookieSync({}, undefined, refusing(ErrorCode.AccountRequired))).status).to.equal(400);
    });

    it('answers a bad request with the text alone, before looking at the opt-out', async () => {
      const response = await cookieSync({ gdpr: 1 }, `uids=${handWrittenUids({}, { optout: true })}`);
      expect([response.status, response.headers['content-type'], response.body]).to.deep.equal([400, 'text/plain; charset=utf-8', 'gdpr_consent is required if gdpr=1\n']);
    });
  });
});
