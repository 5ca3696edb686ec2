import { expect } from 'chai';
import { bannerRequest, postJson, useGavelWithBidders } from '../support/gavel.js';
import { tcString, TEST_GVL_PATH } from '../support/tcf.js';

type Json = Record<string, any>;

/**
 * End to end: what the simulated bidder receives over HTTP for each privacy signal. alpha is GVL vendor 32 (declares
 * purposes 1-4, 7 and special feature 1 in the test GVL), beta vendor 99 (purposes 1, 2, 4; no special feature).
 */
describe('privacy end to end: what each bidder receives', () => {
  const servers = useGavelWithBidders(
    { alpha: 'name=alpha&price=1', beta: 'name=beta&price=0.5' },
    { privacy: { gdpr: { vendorLists: [TEST_GVL_PATH], bidderVendorIds: { alpha: 32, beta: 99 } } } },
  );

  const device = { ua: 'Mozilla/5.0 test', ip: '203.0.113.77', ipv6: '2001:db8:85a3:1234:5678:8a2e:370:7334', ifa: 'ifa-1', geo: { lat: 48.85661, lon: 2.35222, country: 'USA' } };
  const user = { buyeruid: 'buyer-1', id: 'user-1', yob: 1980, eids: [{ source: 'id.example', uids: [{ id: 'e-1' }] }] };

  async function auction(extra: Json): Promise<{ json: Json; received: Map<string, Json> }> {
    const before = servers.bidder.received.length;
    const { status, json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }, { device, user, ...extra }));
    expect(status, JSON.stringify(json)).to.equal(200);
    const received = new Map<string, Json>();
    for (const call of servers.bidder.received.slice(before)) received.set(new URL(call.url, 'http://x').searchParams.get('name')!, call.body);
    return { json, received };
  }

  it('with no signal, every bidder receives the IP, device id, precise geo, buyer id and eids', async () => {
    const { received } = await auction({});
    for (const name of ['alpha', 'beta']) {
      const body = received.get(name)!;
      expect(body.device).to.include({ ip: '203.0.113.77', ifa: 'ifa-1' });
      expect(body.device.geo.lat).to.equal(48.85661);
      expect(body.user).to.include({ buyeruid: 'buyer-1', id: 'user-1' });
      expect(body.user.eids ?? body.user.ext?.eids).to.have.length(1);
    }
  });

  it('GDPR with an invalid consent string: no bidder is asked, and no warning (Prebid Server warns of no TCF string, and reports its exchange warnings only beside a bidder asked)', async () => {
    const { received, json } = await auction({ regs: { gdpr: 1 }, user: { ...user, consent: 'not-a-tc-string' } });
    expect(received.size).to.equal(0);
    expect((json.ext.warnings?.general ?? []).filter((warning: Json) => warning.code !== 10002)).to.deep.equal([]);
    expect(json.ext.warnings?.prebid).to.equal(undefined);
  });

  it('GDPR with consent for alpha and beta: alpha (special feature 1) gets precise geo, beta a masked IP and rounded geo', async () => {
    const consent = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [32, 99], specialFeatures: [1] });
    const { received } = await auction({ regs: { gdpr: 1 }, user: { ...user, consent } });
    const alpha = received.get('alpha')!;
    expect(alpha.device).to.include({ ip: '203.0.113.77', ipv6: '2001:db8:85a3:1234:5678:8a2e:370:7334', ifa: 'ifa-1' });
    expect(alpha.user).to.include({ buyeruid: 'buyer-1' });
    expect(alpha.user.consent ?? alpha.user.ext?.consent).to.equal(consent);
    const beta = received.get('beta')!;
    expect(beta.device).to.include({ ip: '203.0.113.0', ipv6: '2001:db8:85a3:1200::', ifa: 'ifa-1' });
    expect(beta.device.geo).to.deep.equal({ lat: 48.86, lon: 2.35, country: 'USA' });
    expect(beta.user).to.include({ buyeruid: 'buyer-1' });
  });

  it('GDPR by geo (an EEA country, no regs.gdpr) with consent only for beta: alpha is not asked', async () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [99] });
    const { received } = await auction({ device: { ...device, geo: { country: 'FRA' } }, user: { ...user, consent } });
    expect([...received.keys()]).to.deep.equal(['beta']);
  });

  it('US privacy opt-out: no buyer id, user id, device id or eids; IP masked; geo rounded', async () => {
    const { received } = await auction({ regs: { us_privacy: '1YYN' } });
    for (const body of received.values()) {
      expect(body.user ?? {}).to.not.have.any.keys('buyeruid', 'id', 'yob', 'eids');
      expect(body.user?.ext?.eids).to.equal(undefined);
      expect(body.device).to.deep.equal({ ua: 'Mozilla/5.0 test', ip: '203.0.113.0', ipv6: '2001:db8:85a3:1200::', geo: { lat: 48.86, lon: 2.35, country: 'USA' } });
    }
  });

  it('COPPA: ids removed, IP masked, geo cleared', async () => {
    const { received } = await auction({ regs: { coppa: 1 } });
    expect(received.size).to.equal(2);
    for (const body of received.values()) {
      expect(body.device).to.deep.equal({ ua: 'Mozilla/5.0 test', ip: '203.0.113.0', ipv6: '2001:db8:85a3:1200::', geo: {} });
      expect(body.user ?? {}).to.not.have.any.keys('buyeruid', 'id', 'yob', 'eids');
    }
  });

  it('LMT: device ids and user ids removed, IP masked', async () => {
    const { received } = await auction({ device: { ...device, lmt: 1 } });
    for (const body of received.values()) {
      expect(body.device).to.not.have.property('ifa');
      expect(body.device.ip).to.equal('203.0.113.0');
      expect(body.user ?? {}).to.not.have.any.keys('buyeruid', 'eids');
    }
  });
});

describe('privacy end to end: activity controls of the host', () => {
  const servers = useGavelWithBidders(
    { alpha: 'name=alpha&price=1', beta: 'name=beta&price=0.5' },
    { privacy: { allowActivities: { fetchBids: { rules: [{ allow: false, condition: { componentName: ['beta'] } }] }, transmitTids: { default: false } } } },
  );

  it('fetchBids denied: beta is not asked (warning 10017 under the namespace, as Prebid Server reports its exchange warnings); transmitTids denied: no source.tid', async () => {
    const before = servers.bidder.received.length;
    const { json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }, { source: { tid: 'tid-1' }, ext: { prebid: {} } }));
    const calls = servers.bidder.received.slice(before);
    expect(calls.map((call) => new URL(call.url, 'http://x').searchParams.get('name'))).to.deep.equal(['alpha']);
    expect((calls[0]!.body.source as Json | undefined)?.tid).to.equal(undefined);
    expect(json.ext.warnings.prebid).to.deep.equal([{ code: 10017, message: 'bidder "beta" blocked by privacy settings' }]);
    expect(json.ext.warnings.general ?? []).to.not.deep.include({ code: 10017, message: 'bidder "beta" blocked by privacy settings' });
  });
});
