import type { AccountOutcome } from '../../core/accounts/index.js';
import { expect } from 'chai';
import type { EndpointResponse } from '../../core/auction/endpoint-types.js';
import { handleCookieSync, handleGetUids, handleOptOut, handleOptOutPage, handleSetuid, type UserSyncDeps } from '../../core/usersync/index.js';
import { DAY_MS, endpointRequest, handWrittenUids, NOW, userSyncDeps } from '../usersync/support.js';
import { tcString, TEST_GVL_PATH } from '../support/tcf.js';

type Json = Record<string, any>;

/** appnexus is GVL vendor 32 in its manifest, and in the test GVL; openx (69), pubmatic (76) and ix (10) are not there. */
describe('user sync under privacy signals', () => {
  let deps: UserSyncDeps;
  let withHostVendor: UserSyncDeps;
  let syncActivity: UserSyncDeps;
  before(async () => {
    deps = await userSyncDeps({ privacy: { gdpr: { vendorLists: [TEST_GVL_PATH] } } });
    withHostVendor = await userSyncDeps({ privacy: { gdpr: { vendorLists: [TEST_GVL_PATH], hostVendorId: 700 } } });
    syncActivity = await userSyncDeps({ privacy: { allowActivities: { syncUser: { rules: [{ allow: false, condition: { componentName: ['appnexus'] } }] } } } });
  });

  const setuid = (query: Record<string, string>, using = deps, cookie?: string): Promise<EndpointResponse> => handleSetuid(endpointRequest({ path: '/setuid', query, cookie }), using);
  const cookieSync = (body: Json, using = deps): Promise<EndpointResponse> => handleCookieSync(endpointRequest({ method: 'POST', path: '/cookie_sync', body }), using);

  describe('GET /setuid', () => {
    it('writes the id when the string gives purpose 1 to the bidder\'s vendor', async () => {
      const answer = await setuid({ bidder: 'appnexus', uid: 'u-1', gdpr: '1', gdpr_consent: tcString({ purposes: [1], vendors: [32] }) });
      expect(answer.status).to.equal(200);
      expect(answer.headers['set-cookie']).to.match(/^uids=/);
    });

    it('refuses with 451 and Prebid Server\'s text without purpose 1, or without the vendor', async () => {
      for (const consent of [tcString({ purposes: [2, 4], vendors: [32] }), tcString({ purposes: [1], vendors: [52] })]) {
        const answer = await setuid({ bidder: 'appnexus', uid: 'u-1', gdpr: '1', gdpr_consent: consent });
        expect([answer.status, answer.body]).to.deep.equal([451, 'The gdpr_consent string prevents cookies from being saved']);
        expect(answer.headers['set-cookie']).to.equal(undefined);
      }
    });

    it('refuses a consent string that is not TCF v2 with a 400 naming it', async () => {
      const answer = await setuid({ bidder: 'appnexus', uid: 'u-1', gdpr: '1', gdpr_consent: 'bogus' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.match(/^gdpr_consent was invalid\. malformed consent string bogus: /);
    });

    it('with a host vendor id, purpose 1 for the host decides', async () => {
      const hostOnly = tcString({ purposes: [1], vendors: [700] });
      expect((await setuid({ bidder: 'appnexus', uid: 'u-1', gdpr: '1', gdpr_consent: hostOnly }, withHostVendor)).status).to.equal(200);
      expect((await setuid({ bidder: 'appnexus', uid: 'u-1', gdpr: '1', gdpr_consent: tcString({ purposes: [1], vendors: [32] }) }, withHostVendor)).status).to.equal(451);
    });

    it('gdpr=0 writes whatever the string; the syncUser activity refuses with a bare 451', async () => {
      expect((await setuid({ bidder: 'appnexus', uid: 'u-1', gdpr: '0', gdpr_consent: 'bogus' })).status).to.equal(200);
      const denied = await setuid({ bidder: 'appnexus', uid: 'u-1' }, syncActivity);
      expect([denied.status, denied.body]).to.deep.equal([451, '']);
      expect((await setuid({ bidder: 'openx', uid: 'u-1' }, syncActivity)).status).to.equal(200);
    });
  });

  describe('the account a sync request names', () => {
    it("is the account's activity controls and GDPR settings that decide; an account that refuses ends the request", async () => {
      const strict: UserSyncDeps = {
        ...deps,
        accounts: {
          // As the account service: no id is the host's defaults (here: none).
          load: (id): AccountOutcome =>
            id === ''
              ? { account: { id: '' } }
              : id === 'closed'
              ? { refusal: { status: 400, code: 'GAVEL_E_ACCOUNT_DISABLED', message: 'Prebid-server has disabled Account ID: closed, please reach out to the prebid server host.' } }
              : { account: { id, privacy: { allowactivities: { syncUser: { default: false } } } } },
        },
      };
      expect((await setuid({ bidder: 'appnexus', uid: 'u-1', account: 'pub-9' }, strict)).status).to.equal(451);
      expect((await setuid({ bidder: 'appnexus', uid: 'u-1' }, strict)).status).to.equal(200);
      const refused = await setuid({ bidder: 'appnexus', uid: 'u-1', account: 'closed' }, strict);
      expect([refused.status, refused.body]).to.deep.equal([400, 'account is disabled, please reach out to the prebid server host']);
      const offered = ((await cookieSync({ bidders: ['appnexus', 'openx'], account: 'pub-9', debug: true }, strict)).body as Json);
      expect(offered.bidder_status).to.deep.equal([]);
      expect(offered.debug).to.have.length(2);
    });
  });

  describe('POST /cookie_sync', () => {
    it('leaves out bidders without purpose 1 consent, and says why in debug', async () => {
      const consent = tcString({ purposes: [1], vendors: [32] });
      const answer = await cookieSync({ bidders: ['appnexus', 'openx', 'pubmatic'], gdpr: 1, gdpr_consent: consent, debug: true });
      const body = answer.body as Json;
      expect(body.bidder_status.map((status: Json) => status.bidder)).to.deep.equal(['appnexus']);
      expect(body.debug).to.deep.equal([
        { bidder: 'openx', error: 'Rejected by privacy' },
        { bidder: 'pubmatic', error: 'Rejected by privacy' },
      ]);
      const quiet = (await cookieSync({ bidders: ['appnexus', 'openx'], gdpr: 1, gdpr_consent: consent })).body as Json;
      expect(quiet).to.not.have.property('debug');
    });

    it("with a host vendor id and no purpose 1 for it, no sync is offered at all (no debug entries), as Prebid Server's chooser checks the host cookie first", async () => {
      const bidderOnly = tcString({ purposes: [1], vendors: [32] });
      const blocked = (await cookieSync({ bidders: ['appnexus'], gdpr: 1, gdpr_consent: bidderOnly, debug: true }, withHostVendor)).body as Json;
      expect(blocked).to.deep.equal({ status: 'no_cookie', bidder_status: [] });
      const hostAndBidder = tcString({ purposes: [1], vendors: [32, 700] });
      const offered = (await cookieSync({ bidders: ['appnexus'], gdpr: 1, gdpr_consent: hostAndBidder }, withHostVendor)).body as Json;
      expect(offered.bidder_status.map((status: Json) => status.bidder)).to.deep.equal(['appnexus']);
    });

    it('a US privacy opt-out of sale offers no sync; the syncUser activity leaves its bidders out', async () => {
      expect(((await cookieSync({ bidders: ['appnexus', 'openx'], us_privacy: '1YYN' })).body as Json).bidder_status).to.deep.equal([]);
      expect(((await cookieSync({ bidders: ['appnexus', 'openx'], us_privacy: '1YNN' })).body as Json).bidder_status).to.have.length(2);
      const statuses = ((await cookieSync({ bidders: ['appnexus', 'openx'] }, syncActivity)).body as Json).bidder_status;
      expect(statuses.map((status: Json) => status.bidder)).to.deep.equal(['openx']);
    });
  });

  describe('GET /getuids and /optout', () => {
    const live = handWrittenUids({ adnxs: { uid: 'an-1', expires: NOW + DAY_MS }, openx: { uid: 'old', expires: NOW - DAY_MS } });

    it('GET /getuids answers every id of the cookie, expired ones too, as Prebid Server does', async () => {
      expect((await handleGetUids(endpointRequest({ path: '/getuids', cookie: `uids=${live}` }), deps)).body).to.deep.equal({ buyeruids: { adnxs: 'an-1', openx: 'old' } });
      expect((await handleGetUids(endpointRequest({ path: '/getuids' }), deps)).body).to.deep.equal({});
    });

    it('POST /optout sets the opt-out cookie (SameSite=None; Secure; HttpOnly) and deletes uids; then no id is written or shown', async () => {
      const answer = await handleOptOut(endpointRequest({ method: 'POST', path: '/optout', body: { optout: true } }), deps);
      expect(answer.status).to.equal(200);
      expect(answer.headers['set-cookie']).to.deep.equal([`uids-optout=1; Path=/; Max-Age=${90 * 86400}; SameSite=None; Secure; HttpOnly`, 'uids=; Path=/; Max-Age=0; SameSite=None; Secure; HttpOnly']);
      const optedOut = `uids-optout=1; uids=${live}`;
      expect((await setuid({ bidder: 'appnexus', uid: 'u-2' }, deps, optedOut)).status).to.equal(401);
      expect((await handleGetUids(endpointRequest({ path: '/getuids', cookie: optedOut }), deps)).body).to.deep.equal({});
      const page = await handleOptOutPage(endpointRequest({ path: '/optout', cookie: optedOut }), deps);
      expect(page.body).to.contain('You have opted out');
      expect((await handleOptOutPage(endpointRequest({ path: '/optout' }), deps)).body).to.contain('You have not opted out');
    });

    it('POST /optout {"optout": false} removes the opt-out cookie; anything else is a 400', async () => {
      const answer = await handleOptOut(endpointRequest({ method: 'POST', path: '/optout', body: { optout: false } }), deps);
      expect(answer.headers['set-cookie']).to.deep.equal(['uids-optout=; Path=/; Max-Age=0; SameSite=None; Secure; HttpOnly']);
      const bad = await handleOptOut(endpointRequest({ method: 'POST', path: '/optout', body: { optout: 'yes' } }), deps);
      expect(bad.status).to.equal(400);
      expect(bad.body).to.contain('"optout" must be true');
    });
  });
});
