/**
 * /cookie_sync's chooser as Prebid Server's (usersync/chooser.go, endpoints/cookie_sync.go): the order of its checks,
 * the debug entry of every bidder it leaves out, the account's cookie_sync settings, and the privacy signals it reads.
 */
import { expect } from 'chai';
import type { EndpointResponse } from '../../core/auction/endpoint-types.js';
import type { AccountSettings } from '../../core/api/index.js';
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
});
