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
      expect(answer.headers['content-type']).to.equal('image/gif');
      expect(decodeUids(setUidsValue(answer)).tempUIDs).to.deep.equal({ adnxs: { uid: 'an-777', expires: new Date(NOW + 14 * DAY_MS).toISOString() } });
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
      expect(written.ix).to.deep.equal({ uid: 'ix-1', expires: new Date(NOW + DAY_MS).toISOString() });
    });

    it('drops expired ids while writing', async () => {
      const cookie = handWrittenUids({ pubmatic: { uid: 'stale', expires: NOW - 1 } });
      const answer = await setuid({ bidder: 'ix', uid: 'ix-2' }, `uids=${cookie}`);
      expect(Object.keys(decodeUids(setUidsValue(answer)).tempUIDs)).to.deep.equal(['ix']);
    });

    it('sets the cookie with its attributes, and forbids caching the answer', async () => {
      const answer = await setuid({ bidder: 'ix', uid: 'ix-3' });
      const { name, attributes } = parseSetCookie(answer.headers['set-cookie']!);
      expect(name).to.equal('uids');
      expect(attributes).to.deep.equal({ path: '/', 'max-age': String(90 * 86400), samesite: 'None', secure: '', httponly: '' });
      expect(answer.headers['cache-control']).to.equal('no-store');
    });

    it('uses the configured TTLs, domain and size bound', async () => {
      const custom = await userSyncDeps({ userSync: { cookieTtlDays: 30, uidTtlDays: 2, cookieDomain: 'sync.example.com', maxCookieBytes: 300 } });
      const full = handWrittenUids({ ix: { uid: 'i'.repeat(40), expires: NOW + DAY_MS }, openx: { uid: 'o'.repeat(40), expires: NOW + 3 * DAY_MS } });
      const answer = await handleSetuid(endpointRequest({ path: '/setuid', query: { bidder: 'pubmatic', uid: 'p'.repeat(40) }, cookie: `uids=${full}` }), custom);
      const { value, attributes } = parseSetCookie(answer.headers['set-cookie']!);
      expect(attributes['max-age']).to.equal(String(30 * 86400));
      expect(attributes.domain).to.equal('sync.example.com');
      expect(`uids=${value}`.length).to.be.at.most(300);
      const written = decodeUids(value).tempUIDs;
      // ix expires first (1 day), so it made room; the new id (2 days) and openx (3 days) stay.
      expect(Object.keys(written).sort()).to.deep.equal(['openx', 'pubmatic']);
      expect(written.pubmatic!.expires).to.equal(new Date(NOW + 2 * DAY_MS).toISOString());
    });

    it('refuses an id too long to fit in the cookie even alone', async () => {
      const answer = await setuid({ bidder: 'ix', uid: 'x'.repeat(5000) });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.match(/"uid" query param is too long/);
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

    it('deletes the cookie (Max-Age=0) once no id is left', async () => {
      const cookie = handWrittenUids({ adnxs: { uid: 'a', expires: NOW + DAY_MS } });
      const { value, attributes } = parseSetCookie((await setuid({ bidder: 'adnxs' }, `uids=${cookie}`)).headers['set-cookie']!);
      expect(value).to.equal('');
      expect(attributes['max-age']).to.equal('0');
      expect(attributes).to.include.keys('samesite', 'secure');
    });
  });

  describe('answer formats', () => {
    it('f=i answers the 1x1 GIF', async () => {
      const answer = await setuid({ bidder: 'adnxs', uid: 'a', f: 'i' });
      expect(answer.headers['content-type']).to.equal('image/gif');
      const gif = answer.body as Buffer;
      expect(Buffer.isBuffer(gif)).to.equal(true);
      expect(gif.subarray(0, 6).toString('latin1')).to.equal('GIF89a');
      expect(gif.readUInt16LE(6)).to.equal(1);
      expect(gif.readUInt16LE(8)).to.equal(1);
      expect(gif[gif.length - 1]).to.equal(0x3b);
      expect(gif.equals(Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64'))).to.equal(true);
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
      expect(answer.body).to.equal('Invalid request: "f" query param is invalid. must be "b" or "i"\n');
      expect((await setuid({ bidder: 'adnxs', uid: 'a', f: 'B' })).headers['content-type']).to.match(/^text\/html/);
    });
  });

  describe('validation', () => {
    it('answers 400 when bidder is missing', async () => {
      const answer = await setuid({ uid: 'a' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal('Invalid request: "bidder" query param is required\n');
      expect(answer.headers['set-cookie']).to.equal(undefined);
    });

    it('answers 400 naming an unknown bidder', async () => {
      const answer = await setuid({ bidder: 'nosuchbidder', uid: 'a' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.equal('Invalid request: The bidder name provided is not supported by Prebid Server\n');
    });

    it('answers 400 for a bidder whose adapter has no user sync', async () => {
      const answer = await setuid({ bidder: 'ortb', uid: 'a' });
      expect(answer.status).to.equal(400);
      expect(answer.body).to.contain('The bidder name provided is not supported by Prebid Server');
    });

    it('checks the GDPR params: 0 or 1, and consent when GDPR applies', async () => {
      expect((await setuid({ bidder: 'ix', uid: 'a', gdpr: 'yes' })).body).to.equal('Invalid request: the gdpr query param must be either 0 or 1. You gave yes\n');
      const noConsent = await setuid({ bidder: 'ix', uid: 'a', gdpr: '1' });
      expect(noConsent.status).to.equal(400);
      expect(noConsent.body).to.equal('Invalid request: GDPR consent is required when gdpr signal equals 1\n');
      // gpp_sid decides GDPR when it names sections (TCF EU v2 is 2), and the gdpr param is then not read.
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '2,6' })).body).to.equal('Invalid request: GDPR consent is required when gdpr signal equals 1\n');
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '7', gdpr: 'yes' })).status).to.equal(200);
      expect((await setuid({ bidder: 'ix', uid: 'a', gpp_sid: '2,x' })).body).to.equal('Invalid request: invalid gpp_sid encoding, must be a csv list of integers\n');
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
});
