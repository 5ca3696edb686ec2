import { expect } from 'chai';
import {
  cookieAttributes,
  cookieSize,
  encodeUidsCookie,
  fitUidsCookie,
  parseUidsCookie,
  readUidsCookie,
  requestCookie,
  setUid,
  uidsSetCookieHeader,
  type UidsCookie,
} from '../../core/usersync/index.js';
import { parseUidsCookie as auctionReader } from '../../core/auction/buyer-ids.js';
import { DAY_MS, decodeUids, handWrittenUids, NOW, parseSetCookie } from './support.js';

function cookieWith(entries: Record<string, { uid: string; expires: number }>): UidsCookie {
  return { uids: new Map(Object.entries(entries)), optOut: false };
}

describe('uids cookie format', () => {
  it('round-trips ids and expiry dates through encode and read', () => {
    const cookie = cookieWith({ adnxs: { uid: 'an-123', expires: NOW + DAY_MS }, ix: { uid: 'ix/+=é', expires: NOW + 2 * DAY_MS } });
    const read = readUidsCookie(encodeUidsCookie(cookie));
    expect([...read.uids]).to.deep.equal([...cookie.uids]);
    expect(read.optOut).to.equal(false);
  });

  it('writes the documented JSON shape with RFC 3339 expiry dates', () => {
    const encoded = encodeUidsCookie(cookieWith({ adnxs: { uid: 'an-123', expires: Date.parse('2025-03-15T12:00:00Z') } }));
    expect(decodeUids(encoded)).to.deep.equal({ tempUIDs: { adnxs: { uid: 'an-123', expires: '2025-03-15T12:00:00Z' } } });
    // As Go's RFC3339Nano: fractions without their trailing zeros.
    const withMs = encodeUidsCookie(cookieWith({ adnxs: { uid: 'an-123', expires: Date.parse('2025-03-15T12:00:00.120Z') } }));
    expect(decodeUids(withMs).tempUIDs.adnxs!.expires).to.equal('2025-03-15T12:00:00.12Z');
  });

  it('encodes as padded URL-safe base64, which is also a valid cookie value', () => {
    const encoded = encodeUidsCookie(cookieWith({ k: { uid: '>>>???', expires: NOW } }));
    expect(encoded.length % 4).to.equal(0);
    expect(encoded).to.match(/^[A-Za-z0-9_-]+=*$/);
  });

  it('keeps the opt-out flag', () => {
    const read = readUidsCookie(handWrittenUids({}, { optout: true }));
    expect(read.optOut).to.equal(true);
    expect(decodeUids(encodeUidsCookie(read)).optout).to.equal(true);
  });

  it('gives the auction only live ids: expired entries are ignored', () => {
    const value = handWrittenUids({ live: { uid: 'a', expires: NOW + 1 }, expired: { uid: 'b', expires: NOW }, old: { uid: 'c', expires: NOW - DAY_MS } });
    expect(parseUidsCookie(value, NOW)).to.deep.equal({ live: 'a' });
  });

  it('is the reader the auction uses', () => {
    const value = handWrittenUids({ adnxs: { uid: 'a', expires: NOW + DAY_MS } });
    expect(auctionReader(value, NOW)).to.deep.equal({ adnxs: 'a' });
  });

  it('reads a junk cookie as empty and skips malformed entries', () => {
    expect(parseUidsCookie('%%%not-base64', NOW)).to.deep.equal({});
    expect(parseUidsCookie(Buffer.from('[1,2]').toString('base64'), NOW)).to.deep.equal({});
    expect(parseUidsCookie(Buffer.from('{"tempUIDs":"x"}').toString('base64'), NOW)).to.deep.equal({});
    const mixed = Buffer.from(JSON.stringify({
      tempUIDs: { ok: { uid: 'a', expires: '2030-01-01T00:00:00Z' }, noUid: { expires: '2030-01-01T00:00:00Z' }, badDate: { uid: 'b', expires: 'soon' }, empty: { uid: '', expires: '2030-01-01T00:00:00Z' }, nul: null },
    })).toString('base64');
    expect(parseUidsCookie(mixed, NOW)).to.deep.equal({ ok: 'a' });
  });

  it('reads expiry dates with nanoseconds and offsets, as Prebid Server writes them', () => {
    const value = Buffer.from(JSON.stringify({ tempUIDs: { a: { uid: '1', expires: '2025-03-01T13:00:00.123456789+02:00' }, b: { uid: '2', expires: '2025-03-01T12:00:01.000000001Z' } } })).toString('base64');
    // 13:00+02:00 is 11:00Z: already past at NOW (12:00Z).
    expect(parseUidsCookie(value, NOW)).to.deep.equal({ b: '2' });
  });

  it('setUid stores an id live for the configured number of days', () => {
    const cookie = cookieWith({});
    setUid(cookie, 'adnxs', 'x', NOW, 14);
    expect(cookie.uids.get('adnxs')).to.deep.equal({ uid: 'x', expires: NOW + 14 * DAY_MS });
  });
});

describe('uids cookie writing: expiry and size bound', () => {
  it('drops expired entries on write', () => {
    const cookie = cookieWith({ live: { uid: 'a', expires: NOW + DAY_MS }, expired: { uid: 'b', expires: NOW - 1 } });
    const encoded = fitUidsCookie(cookie, NOW, 4000);
    expect(Object.keys(decodeUids(encoded).tempUIDs)).to.deep.equal(['live']);
  });

  it('drops the entries that expire first until the cookie fits', () => {
    const long = 'u'.repeat(100);
    const cookie = cookieWith({
      third: { uid: long, expires: NOW + 3 * DAY_MS },
      first: { uid: long, expires: NOW + 1 * DAY_MS },
      fourth: { uid: long, expires: NOW + 4 * DAY_MS },
      second: { uid: long, expires: NOW + 2 * DAY_MS },
    });
    const twoEntries = cookieSize(encodeUidsCookie(cookieWith({ third: cookie.uids.get('third')!, fourth: cookie.uids.get('fourth')! })));
    const encoded = fitUidsCookie(cookie, NOW, twoEntries);
    expect(Object.keys(decodeUids(encoded).tempUIDs).sort()).to.deep.equal(['fourth', 'third']);
    expect(cookieSize(encoded)).to.be.at.most(twoEntries);
  });

  it('leaves a cookie that fits untouched', () => {
    const cookie = cookieWith({ a: { uid: '1', expires: NOW + DAY_MS }, b: { uid: '2', expires: NOW + 2 * DAY_MS } });
    expect(Object.keys(decodeUids(fitUidsCookie(cookie, NOW, 4000)).tempUIDs)).to.have.length(2);
  });

  it('counts the cookie name in its size', () => {
    expect(cookieSize('abcd')).to.equal('uids=abcd'.length);
  });
});

describe('uids Set-Cookie attributes', () => {
  it('are Path=/, Max-Age from cookieTtlDays, SameSite=None, Secure, HttpOnly, and no Domain by default', () => {
    const header = uidsSetCookieHeader('VALUE', cookieAttributes({ cookieTtlDays: 90 }));
    expect(header).to.equal('uids=VALUE; Path=/; Max-Age=7776000; SameSite=None; Secure; HttpOnly');
  });

  it('carry Domain when userSync.cookieDomain is configured', () => {
    const { attributes } = parseSetCookie(uidsSetCookieHeader('V', cookieAttributes({ cookieTtlDays: 1, cookieDomain: 'gavel.example.com' })));
    expect(attributes).to.deep.equal({ path: '/', 'max-age': '86400', domain: 'gavel.example.com', samesite: 'None', secure: '', httponly: '' });
  });
});

describe('request cookies', () => {
  it('finds one cookie by exact name, unquoting it', () => {
    expect(requestCookie('a=1; uids-optout=yes; uids=xyz', 'uids-optout')).to.equal('yes');
    expect(requestCookie('x-uids-optout=1; b="quoted"', 'b')).to.equal('quoted');
    expect(requestCookie('x-uids-optout=1', 'uids-optout')).to.equal(undefined);
    expect(requestCookie(undefined, 'uids')).to.equal(undefined);
  });
});
