import { expect } from 'chai';
import type { BidRequest } from '../../core/api/index.js';
import { clientAddress, fillDeviceFacts } from '../../core/privacy/index.js';
import { bannerRequest, postJson, useGavelWithBidders } from '../support/gavel.js';

type Json = Record<string, any>;

describe('device facts from the HTTP request', () => {
  it('takes the socket peer when it is public; never a private or loopback address', () => {
    expect(clientAddress({ headers: {}, remoteAddress: '198.51.100.4' }, false)).to.equal('198.51.100.4');
    expect(clientAddress({ headers: {}, remoteAddress: '::ffff:198.51.100.4' }, false)).to.equal('198.51.100.4');
    expect(clientAddress({ headers: {}, remoteAddress: '2001:db8::5' }, false)).to.equal('2001:db8::5');
    expect(clientAddress({ headers: {}, remoteAddress: '127.0.0.1' }, false)).to.equal(undefined);
    expect(clientAddress({ headers: {}, remoteAddress: '192.168.1.9' }, false)).to.equal(undefined);
  });

  it('reads X-Forwarded-For (first public entry) and X-Real-IP only when the host trusts its proxies', () => {
    const headers = { 'x-forwarded-for': '10.1.2.3, 127.0.0.1, 203.0.113.9, 198.51.100.1', 'x-real-ip': '198.51.100.77' };
    expect(clientAddress({ headers, remoteAddress: '10.0.0.2' }, true)).to.equal('203.0.113.9');
    expect(clientAddress({ headers, remoteAddress: '10.0.0.2' }, false)).to.equal(undefined);
    expect(clientAddress({ headers: { 'x-forwarded-for': '10.1.2.3, ::1', 'x-real-ip': '198.51.100.77' }, remoteAddress: '10.0.0.2' }, true)).to.equal('198.51.100.77');
    expect(clientAddress({ headers: { 'x-real-ip': '172.16.0.5' }, remoteAddress: '198.51.100.8' }, true)).to.equal('198.51.100.8');
  });

  it('fills ua, ip or ipv6, dnt and regs.ext.gpc only where the body leaves them out', () => {
    const empty = { id: 'r', imp: [] } as unknown as BidRequest;
    fillDeviceFacts(empty, { headers: { 'user-agent': 'UA/1', dnt: '1', 'sec-gpc': '1' }, remoteAddress: '2001:db8::5' }, false);
    expect(empty.device).to.deep.equal({ ua: 'UA/1', ipv6: '2001:db8::5', dnt: 1 });
    expect(empty.regs).to.deep.equal({ ext: { gpc: '1' } });
    const given = { id: 'r', imp: [], device: { ua: 'Own', ip: '203.0.113.1', dnt: 0 }, regs: { ext: { gpc: '0' } } } as unknown as BidRequest;
    fillDeviceFacts(given, { headers: { 'user-agent': 'UA/1', dnt: '1', 'sec-gpc': '1' }, remoteAddress: '198.51.100.4' }, false);
    expect(given.device).to.deep.equal({ ua: 'Own', ip: '203.0.113.1', dnt: 0 });
    expect(given.regs).to.deep.equal({ ext: { gpc: '0' } });
  });

  it("drops the body's ip that is no IPv4 address and ipv6 that is no IPv6 address, then fills them as missing ones", () => {
    const request = { id: 'r', imp: [], device: { ip: '999.1.1.1', ipv6: '198.51.100.4', ua: 'Own' } } as unknown as BidRequest;
    fillDeviceFacts(request, { headers: {}, remoteAddress: '203.0.113.7' }, false);
    expect(request.device).to.deep.equal({ ua: 'Own', ip: '203.0.113.7' });
    const swapped = { id: 'r', imp: [], device: { ip: '2001:db8::5', ipv6: 'fe80::1%eth0' } } as unknown as BidRequest;
    fillDeviceFacts(swapped, { headers: {} }, false);
    expect(swapped.device).to.deep.equal({});
    const kept = { id: 'r', imp: [], device: { ip: '203.0.113.1', ipv6: '::ffff:203.0.113.1' } } as unknown as BidRequest;
    fillDeviceFacts(kept, { headers: {}, remoteAddress: '198.51.100.4' }, false);
    expect(kept.device).to.deep.equal({ ip: '203.0.113.1', ipv6: '::ffff:203.0.113.1' });
  });

  it('DNT: 0 gives dnt 0', () => {
    const request = { id: 'r', imp: [] } as unknown as BidRequest;
    fillDeviceFacts(request, { headers: { dnt: '0' } }, false);
    expect(request.device).to.deep.equal({ dnt: 0 });
  });

  it("sets device.lmt of an iOS app from the zero IFA (14.0, 14.1) or the tracking status (14.2 and later)", () => {
    const lmtOf = (device: Record<string, unknown>, app = true): unknown => {
      const request = { id: 'r', imp: [], ...(app ? { app: { id: 'a' } } : { site: { page: 'p' } }), device } as unknown as BidRequest;
      fillDeviceFacts(request, { headers: {} }, false);
      return (request.device as Json).lmt;
    };
    expect(lmtOf({ os: 'iOS', osv: '14.0', ifa: '00000000-0000-0000-0000-000000000000' })).to.equal(1);
    expect(lmtOf({ os: 'ios', osv: '14.1', ifa: 'real-ifa' })).to.equal(0);
    expect(lmtOf({ os: 'ios', osv: '14.2', ext: { atts: 2 } })).to.equal(1);
    expect(lmtOf({ os: 'ios', osv: '17.4.1', ext: { atts: 0 } })).to.equal(1);
    expect(lmtOf({ os: 'ios', osv: '16.0', ext: { atts: 3 }, lmt: 1 })).to.equal(0);
    // Prebid Server's version classification: 14.0 and 14.1 written exactly so; else major.minor[.patch] from 14.2.
    expect(lmtOf({ os: 'ios', osv: '16', ext: { atts: 3 }, lmt: 1 })).to.equal(1);
    expect(lmtOf({ os: 'ios', osv: '14.0.1', ifa: '' })).to.equal(undefined);
    expect(lmtOf({ os: 'ios', osv: '14.x', ifa: '' })).to.equal(undefined);
    expect(lmtOf({ os: 'ios', osv: '15.1.2.3', ext: { atts: 2 } })).to.equal(undefined);
    expect(lmtOf({ os: 'ios', osv: '13.7', ifa: '' })).to.equal(undefined);
    expect(lmtOf({ os: 'android', osv: '14.0' })).to.equal(undefined);
    expect(lmtOf({ os: 'ios', osv: '14.0' }, false)).to.equal(undefined);
  });

  describe('end to end', () => {
    const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1' }, { privacy: { trustProxyHeaders: true } });

    it('a Prebid.js request without device gets the user agent and the forwarded IP; DNT and Sec-GPC', async () => {
      const before = servers.bidder.received.length;
      const { status } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }), {
        'user-agent': 'Mozilla/5.0 (prebid.js page)',
        'x-forwarded-for': '203.0.113.50, 10.0.0.1',
        dnt: '1',
        'sec-gpc': '1',
      });
      expect(status).to.equal(200);
      const body = servers.bidder.received[before]!.body as Json;
      expect(body.device).to.deep.equal({ ua: 'Mozilla/5.0 (prebid.js page)', ip: '203.0.113.50', dnt: 1 });
      expect(body.regs.ext.gpc).to.equal('1');
    });

    it('a loopback client with no forwarded header gets no IP', async () => {
      const before = servers.bidder.received.length;
      await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }), { 'user-agent': 'UA/2' });
      const body = servers.bidder.received[before]!.body as Json;
      expect(body.device).to.deep.equal({ ua: 'UA/2' });
    });
  });
});
