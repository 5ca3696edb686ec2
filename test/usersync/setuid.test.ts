import type { AccountOutcome } from '../../core/accounts/index.js';
import { ErrorCode } from '../../core/api/index.js';
import { expect } from 'chai';
import type { EndpointResponse } from '../../core/auction/endpoint-types.js';
import { handleSetuid, type UserSyncDeps } from '../../core/usersync/index.js';
import { DAY_MS, decodeUids, endpointRequest, handWrittenUids, NOW, parseSetCookie, setUidsValue, userSyncDeps } from './support.js';

describe('GET /setuid', () => {
  let deps: UserSyncDeps;
  before(async () => {
    deps = await userSyncDeps();
  });

  function setuid(query: Record<string, string>, cookie?: string): Promise<EndpointResponse> {
    return handleSetuid(endpointRequest({ path: '/setuid', query, cookie }), deps);
  }

  describe('storing an id', () => {
    it('stores the id under the cookie key of a bidder named by its syncer key', async () => {
      const answer = await setuid({ bidder: 'adnxs', uid: 'an-777' });
      expect(answer.status).to.equal(200);
      // No f: the bidder's sync is a redirect, which lands in an image.
      expect(answer.headers['content-type']).to.equal('image/png');
      expect(decodeUids(setUidsValue(answer)).tempUIDs).to.deep.equal({ adnxs: { uid: 'an-777', expires: '2025-03-15T12:00:00Z' } });
    });

    it('takes a bidder name too, storing under its key (appnexus -> adnxs)', async () => {
      const answer = await setuid({ bidder: 'appnexus', uid: 'an-1' });
      expect(Object.keys(decodeUids(setUidsValue(answer)).tempUIDs)).to.deep.equal(['adnxs']);
    });

    it('keeps the ids already in the cookie and replaces the one it sets', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'old', expires: NOW + DAY_MS }, ix: { uid: 'ix-1', expires: NOW + DAY_MS } });
      const answer = await setuid({ bidder: 'adnxs', uid: 'new' }, `uids=${cookie}`);
      const written = decodeUids(setUidsValue(answer)).tempUIDs;
      expect(written.adnxs!.uid).to.equal('new');
      expect(written.ix).to.deep.equal({ uid: 'ix-1', expires: '2025-03-02T12:00:00Z' });
    });

    it('drops expired ids while writing', async () => {
      const cookie = handWrittenUids({ pubmatic: { uid: 'stale', expires: NOW - 1 } });
      const answer = await setuid({ bidder: 'ix', uid: 'ix-2' }, `uids=${cookie}`);
      expect(Object.keys(decodeUids(setUidsValue(answer)).tempUIDs)).to.deep.equal(['ix']);
    });

    it("sets the cookie with Prebid Server's Path and Expires plus Secure, SameSite=None and HttpOnly, and forbids caching the answer", async () => {
      const answer = await setuid({ bidder: 'ix', uid: 'ix-3' });
      const { name, attributes } = parseSetCookie(answer.headers['set-cookie']!);
      expect(name).to.equal('uids');
      expect(attributes).to.deep.equal({ path: '/', expires: new Date(NOW + 90 * DAY_MS).toUTCString(), secure: '', samesite: 'None', httponly: '' });
      expect(answer.headers['cache-control']).to.equal('no-store');
    });

    it('gives every browser Secure; SameSite=None; HttpOnly, whatever its user agent (Prebid Server only some Chromes)', async () => {
      const headerFor = async (userAgent: string) => (await handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'ix', uid: 'a' }, userAgent }), deps)).headers['set-cookie']!;
      for (const userAgent of ['Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/67.0.3396.99 Safari/537.36', 'Mozilla/5.0 AppleWebKit/537.36 Chrome/66.0.3359.181 Safari/537.36', 'Mozilla/5.0 (Macintosh) Gecko/20100101 Firefox/120.0', '']) {
        expect(await headerFor(userAgent), userAgent).to.match(/; Expires=[^;]+; Secure; SameSite=None; HttpOnly$/);
      }
    });

    it('uses the configured TTLs, domain and size bound', async () => {
      const custom = await userSyncDeps({ userSync: { cookieTtlDays: 30, uidTtlDays: 2, cookieDomain: 'sync.example.com', maxCookieBytes: 300 } });
      const full = handWrittenUids({ ix: { uid: 'i'.repeat(40), expires: NOW + DAY_MS }, openx: { uid: 'o'.repeat(40), expires: NOW + 3 * DAY_MS } });
      const answer = await handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'pubmatic', uid: 'p'.repeat(40) }, cookie: `uids=${full}` }), custom);
      const { value, attributes } = parseSetCookie(answer.headers['set-cookie']!);
      expect(attributes.expires).to.equal(new Date(NOW + 30 * DAY_MS).toUTCString());
      expect(attributes.domain).to.equal('sync.example.com');
      expect(`uids=${value}`.length).to.be.at.most(300);
      const written = decodeUids(value).tempUIDs;
      // ix expires first (1 day), so it made room; the new id (2 days) and openx (3 days) stay.
      expect(Object.keys(written).sort()).to.deep.equal(['openx', 'pubmatic']);
      expect(written.pubmatic!.expires).to.equal('2025-03-03T12:00:00Z');
    });

    it('refuses an id too long to fit in the cookie even alone', async () => {
      const answer = await setuid({ bidder: 'ix', uid: 'x'.repeat(5000) });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal("uid that's trying to be synced is bigger than MaxCookieSize");
      expect(answer.headers['set-cookie']).to.equal(undefined);
    });
  });

  describe('removing an id', () => {
    it('removes the entry when uid is empty, keeping the others', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'a', expires: NOW + DAY_MS }, ix: { uid: 'b', expires: NOW + DAY_MS } });
      const answer = await setuid({ bidder: 'appnexus', uid: '' }, `uids=${cookie}`);
      expect(answer.status).to.equal(200);
      expect(Object.keys(decodeUids(setUidsValue(answer)).tempUIDs)).to.deep.equal(['ix']);
    });

    it('writes the cookie empty once no id is left, as Prebid Server does', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'a', expires: NOW + DAY_MS } });
      const { value, attributes } = parseSetCookie((await setuid({ bidder: 'adnxs' }, `uids=${cookie}`)).headers['set-cookie']!);
      expect(value).to.equal('');
      expect(attributes).to.deep.equal({ path: '/', expires: new Date(NOW + 90 * DAY_MS).toUTCString(), secure: '', samesite: 'None', httponly: '' });
    });
  });

  describe('answer formats', () => {
    it('f=i answers the 1x1 PNG, as Prebid Server does', async () => {
      const answer = await setuid({ bidder: 'adnxs', uid: 'a', f: 'i' });
      expect(answer.headers['content-type']).to.equal('image/png');
      const png = answer.body as Buffer;
      expect(Buffer.isBuffer(png)).to.equal(true);
      expect(png.subarray(0, 8).toString('hex')).to.equal('89504e470d0a1a0a');
      expect(png.subarray(12, 16).toString('latin1')).to.equal('IHDR');
      expect(png.readUInt32BE(16)).to.equal(1);
      expect(png.readUInt32BE(20)).to.equal(1);
      expect(png.subarray(-8, -4).toString('latin1')).to.equal('IEND');
    });

    it('f=b answers empty HTML', async () => {
      const answer = await setuid({ bidder: 'adnxs', uid: 'a', f: 'b' });
      expect(answer.status).to.equal(200);
      expect(answer.headers['content-type']).to.match(/^text\/html/);
      expect(answer.body).to.equal('');
    });

    it('refuses another f, in any case', async () => {
      const answer = await setuid({ bidder: 'adnxs', uid: 'a', f: 'x' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal('"f" query param is invalid. must be "b" or "i"');
      expect((await setuid({ bidder: 'adnxs', uid: 'a', f: 'B' })).headers['content-type']).to.match(/^text\/html/);
    });
  });

  describe('validation', () => {
    it('answers 400 when bidder is missing', async () => {
      const answer = await setuid({ uid: 'a' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal('"bidder" query param is required');
      expect(answer.headers['set-cookie']).to.equal(undefined);
    });

    it('answers 400 naming an unknown bidder', async () => {
      const answer = await setuid({ bidder: 'nosuchbidder', uid: 'a' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal('The bidder name provided is not supported by Prebid Server');
    });

    it('answers 400 for a bidder whose adapter has no user sync', async () => {
      const answer = await setuid({ bidder: 'ortb', uid: 'a' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.contain('The bidder name provided is not supported by Prebid Server');
    });

    it('checks the GDPR params: 0 or 1, and consent when GDPR applies', async () => {
      expect((await setuid({ bidder: 'ix', uid: 'a', gdpr: 'yes' })).body).to.equal('the gdpr query param must be either 0 or 1. You gave yes');
      const noConsent = await setuid({ bidder: 'ix', uid: 'a', gdpr: '1' });
      expect(noConsent.status).to.equal(400);
      expect(noConsent.body).to.equal('GDPR consent is required when gdpr signal equals 1');
      // gpp_sid decides GDPR when it names sections (TCF EU v2 is 2), and the gdpr param is then not read.
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '2,6' })).body).to.equal('GDPR consent is required when gdpr signal equals 1');
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '7', gdpr: 'yes' })).status).to.equal(200);
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '2,x' })).body).to.equal('invalid gpp_sid encoding, must be a csv list of integers');
      // A TCF v2 string whose vendor list this host has not loaded (test/privacy/sync-consent.test.ts has the rest).
      const unreadable = await setuid({ bidder: 'ix', uid: 'a', gdpr: '1', gdpr_consent: 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA' });
      expect([unreadable.status, unreadable.body]).to.deep.equal([400, 'No global vendor list was available to interpret this consent string. If this is a new, valid version, it should become available soon.']);
      expect((await setuid({ bidder: 'ix', uid: 'a', gdpr: '0', gdpr_consent: '' })).status).to.equal(200);
    });
  });

  describe('opt-out', () => {
    it('writes nothing when the uids cookie says optout', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'a', expires: NOW + DAY_MS } }, { optout: true });
      const answer = await setuid({ bidder: 'ix', uid: 'b' }, `uids=${cookie}`);
      expect(answer.status).to.equal(401);
      expect(answer.headers['set-cookie']).to.equal(undefined);
    });

    it('writes nothing when the host opt-out cookie is present', async () => {
      const answer = await setuid({ bidder: 'ix', uid: 'b' }, 'uids-optout=1');
      expect(answer.status).to.equal(401);
      expect(answer.headers['set-cookie']).to.equal(undefined);
    });

    it('matches the configured opt-out cookie name and value', async () => {
      const custom = await userSyncDeps({ userSync: { optOutCookie: { name: 'privacy', value: 'no-sync' } } });
      const call = (cookie: string) => handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'ix', uid: 'b' }, cookie }), custom);
      expect((await call('privacy=no-sync')).status).to.equal(401);
      expect((await call('privacy=ok')).status).to.equal(200);
      expect((await call('uids-optout=1')).status).to.equal(200);
    });
  });

  describe("Prebid Server's order and reading of the GDPR signals", () => {
    const TCF = 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA';
    const NO_GVL = 'No global vendor list was available to interpret this consent string. If this is a new, valid version, it should become available soon.';

    it('with gpp_sid naming sections, gdpr_consent is not read: only the GPP string gives the consent', async () => {
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '2', gdpr_consent: TCF })).body).to.equal('GDPR consent is required when gdpr signal equals 1');
      const fromGpp = await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '2', gpp: `DBABMA~${TCF}` });
      expect([fromGpp.status, fromGpp.body]).to.deep.equal([400, NO_GVL]);
    });

    it('a consent from the GPP string leaves gdpr unread (but it must still be 0 or 1)', async () => {
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp: `DBABMA~${TCF}`, gdpr: '1' })).status).to.equal(200);
      expect((await setuid({ bidder: 'ix', uid: 'a', gdpr_consent: TCF, gdpr: '1' })).body).to.equal(NO_GVL);
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp: `DBABMA~${TCF}`, gdpr: 'yes' })).status).to.equal(400);
    });

    it('a GPP string that does not parse is a 400', async () => {
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp: 'DBAB' })).status).to.equal(400);
    });

    it('reads the account before gpp_sid, and asks the syncUser activity before the GDPR params', async () => {
      const closed: UserSyncDeps = { ...deps, accounts: { load: (id): AccountOutcome => (id === '' ? { account: { id: '' } } : { refusal: { status: 503, code: ErrorCode.AccountDisabled, message: 'disabled' } }) } };
      const refused = await handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'ix', uid: 'a', account: 'x', gpp_sid: 'x' } }), closed);
      expect([refused.status, refused.body]).to.deep.equal([400, 'account is disabled, please reach out to the prebid server host']);
      const denying: UserSyncDeps = { ...deps, accounts: { load: (id) => ({ account: { id, privacy: { allowactivities: { syncUser: { default: false } } } } }) } };
      const denied = await handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'ix', uid: 'a', account: 'x', gdpr: 'yes' } }), denying);
      expect([denied.status, denied.body]).to.deep.equal([451, '']);
    });

    it('refuses a disabled bidder, as one Prebid Server has no syncer for', async () => {
      const withoutIx = await userSyncDeps({ bidders: { ix: { enabled: false } } });
      const answer = await handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'ix', uid: 'a' } }), withoutIx);
      expect([answer.status, answer.body]).to.deep.equal([400, 'The bidder name provided is not supported by Prebid Server']);
    });

    it('answers f=b as an empty text/html page', async () => {
      const answer = await setuid({ bidder: 'ix', uid: 'a', f: 'b' });
      expect([answer.status, answer.headers['content-type'], answer.body]).to.deep.equal([200, 'text/html', '']);
    });
  });
});
