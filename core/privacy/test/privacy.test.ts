import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { AccountSettings, BidderRequest, BidRequest } from '../../api/index.js';
import type { BidderCatalog, BidderEntry } from '../../bidders/catalog.js';
import { defaultConfig, type GavelConfig } from '../../config/index.js';
import { tcString, TEST_GVL_PATH } from '../../../test/support/tcf.js';
import { ActivityControl, decodeTcfConsent, maskIPv4, maskIPv6, parseVendorList, privacyAnalyticsGate, PrivacyEnforcer, PrivacyService, roundCoordinate, TcfPermissions, tcfRules, VendorLists, type RequestPrivacy } from '../index.js';

type Json = Record<string, any>;

function settings(overrides: (privacy: GavelConfig['privacy']) => void = () => undefined): GavelConfig['privacy'] {
  const privacy = structuredClone(defaultConfig.privacy);
  overrides(privacy);
  return privacy;
}

const lists = VendorLists.fromFiles([TEST_GVL_PATH]);
const account: AccountSettings = { id: 'acc' };

function read(request: Json, options: { privacy?: GavelConfig['privacy']; account?: AccountSettings; endpoint?: 'auction' | 'amp' | 'video' } = {}) {
  const warnings: Array<{ code: number; message: string }> = [];
  const service = new PrivacyService(options.privacy ?? settings(), lists);
  const privacy = service.read(request as BidRequest, options.endpoint ?? 'auction', options.account ?? account, 'prebid', (warning) => warnings.push(warning));
  return { privacy, warnings };
}

const catalog: BidderCatalog = {
  entries: new Map(),
  get: (name: string) => ({ name, adapter: name, info: { gvlVendorId: { alpha: 32, beta: 52, gamma: 99 }[name] }, enabled: true, ortbVersion: '2.6' }) as unknown as BidderEntry,
};

/** A full request, and what each bidder receives of it under the request's own privacy signals. */
function enforced(
  extra: Json,
  bidders = ['alpha'],
  options: Parameters<typeof read>[1] = {},
): {
  shares: Map<string, Json>;
  /** The warnings of the read (the endpoint's, under `general`). */
  warnings: Array<{ code: number; message: string }>;
  /** The warnings of the per-bidder step (the exchange's, under the namespace). */
  exchangeWarnings: Array<{ code: number; message: string }>;
  privacy: RequestPrivacy;
  original: Json;
  request: Json;
  objects: Map<string, Json>;
} {
  const request: Json = {
    id: 'r',
    imp: [{ id: 'i', banner: {}, ext: { tid: 'imp-tid' } }],
    site: { page: 'https://p.example' },
    source: { tid: 'source-tid' },
    device: { ip: '203.0.113.77', ipv6: '2001:db8:85a3:1234:5678:8a2e:370:7334', ifa: 'ifa-1', ua: 'UA', geo: { lat: 48.85661, lon: 2.35222, country: 'FRA' } },
    user: { id: 'u', buyeruid: 'b', yob: 1980, gender: 'F', keywords: 'k', data: [{ id: 'd' }], eids: [{ source: 's.example', uids: [{ id: 'e' }] }], geo: { lat: -33.86882, lon: 151.20929 }, ext: { data: { x: 1 }, eids: [{ source: 'x' }] } },
    ...extra,
  };
  const original = structuredClone(request);
  const { privacy, warnings } = read(request, options);
  const aliases: Record<string, string> = request.ext?.prebid?.aliases ?? {};
  const shares: BidderRequest[] = bidders.map((bidder) => ({ bidder, adapter: aliases[bidder] ?? bidder, request: { ...request, imp: request.imp.slice() } as BidRequest }));
  const exchangeWarnings: Array<{ code: number; message: string }> = [];
  new PrivacyEnforcer(catalog, {}).enforce(request as BidRequest, shares, privacy, 'prebid', (warning) => exchangeWarnings.push(warning));
  expect(request, 'the auction request is never changed').to.deep.equal(original);
  const objects = new Map(shares.map((share) => [share.bidder, share.request as Json]));
  return { shares: new Map(shares.map((share) => [share.bidder, JSON.parse(JSON.stringify(share.request))])), warnings, exchangeWarnings, privacy, original, request, objects };
}

const FULL_CONSENT = tcString({ purposes: [1, 2, 3, 4, 7], vendors: [32, 99], specialFeatures: [1] });

describe('privacy: masking', () => {
  it('masks IPv4 to /24 and IPv6 to /56 (configurable), as Go writes them', () => {
    expect(maskIPv4('203.0.113.77', 24)).to.equal('203.0.113.0');
    expect(maskIPv4('203.0.113.77', 16)).to.equal('203.0.0.0');
    expect(maskIPv4('not-an-ip', 24)).to.equal(undefined);
    for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1..2.3', '1.2.3.4.', '1.2.3.1234', ' 1.2.3.4', '1.2.3.-4']) {
      expect(maskIPv4(bad, 24), JSON.stringify(bad)).to.equal(undefined);
    }
    expect(maskIPv4('255.255.255.255', 32)).to.equal('255.255.255.255');
    expect(maskIPv4('10.20.30.40', 0)).to.equal('0.0.0.0');
    expect(maskIPv4('10.20.30.40', 24), 'asked again').to.equal('10.20.30.0');
    expect(maskIPv4('10.20.30.40', 24), 'the same address, the answer remembered').to.equal('10.20.30.0');
    expect(maskIPv4('10.20.31.40', 24), 'another address').to.equal('10.20.31.0');
    expect(maskIPv6('2001:db8:85a3:1234:5678:8a2e:370:7334', 56)).to.equal('2001:db8:85a3:1200::');
    expect(maskIPv6('2001:db8::1', 32)).to.equal('2001:db8::');
    expect(maskIPv6('::ffff:1.2.3.4', 128)).to.equal('::ffff:102:304');
    expect(maskIPv6('2001:db8:::1', 56)).to.equal(undefined);
  });

  it('rounds coordinates to two decimals as Prebid Server does', () => {
    expect(roundCoordinate(48.85661)).to.equal(48.86);
    expect(roundCoordinate(2.35222)).to.equal(2.35);
    expect(roundCoordinate(-33.86882)).to.equal(-33.86);
  });
});

describe('privacy: GDPR applicability', () => {
  it('follows regs.gdpr, else the host default, else the EEA countries of the user geo (account list first)', () => {
    expect(read({ regs: { gdpr: 1 } }).privacy.gdprApplies).to.equal(true);
    expect(read({ regs: { ext: { gdpr: 1 } } }).privacy.gdprApplies).to.equal(true);
    // A null 2.6 field is absent: the 2.5 one counts, as Prebid Server moves it up.
    expect(read({ regs: { gdpr: null, ext: { gdpr: 1 } } }).privacy.gdprApplies).to.equal(true);
    expect(read({ regs: { gdpr: 0, ext: { gdpr: 1 } } }).privacy.gdprApplies).to.equal(false);
    expect(read({ regs: { gdpr: 0 }, user: { geo: { country: 'FRA' } } }).privacy.gdprApplies).to.equal(false);
    expect(read({}).privacy.gdprApplies).to.equal(false);
    expect(read({}, { privacy: settings((p) => (p.gdpr.defaultValue = '1')) }).privacy.gdprApplies).to.equal(true);
    expect(read({ user: { geo: { country: 'FRA' } } }).privacy.gdprApplies).to.equal(true);
    expect(read({ device: { geo: { country: 'deu' } } }).privacy.gdprApplies).to.equal(true);
    expect(read({ user: { geo: { country: 'USA' } } }, { privacy: settings((p) => (p.gdpr.defaultValue = '1')) }).privacy.gdprApplies).to.equal(false);
    expect(read({ user: { geo: { country: 'FRA' } } }, { account: { id: 'a', gdpr: { eea_countries: ['POL'] } } }).privacy.gdprApplies).to.equal(false);
    expect(read({ user: { geo: { country: 'POL' } } }, { account: { id: 'b', gdpr: { eea_countries: ['POL'] } } }).privacy.gdprApplies).to.equal(true);
  });

  it('is switched off by host, account or channel', () => {
    expect(read({ regs: { gdpr: 1 } }, { privacy: settings((p) => (p.gdpr.enabled = false)) }).privacy.gdprApplies).to.equal(false);
    expect(read({ regs: { gdpr: 1 } }, { account: { id: 'c', gdpr: { enabled: false } } }).privacy.gdprApplies).to.equal(false);
    expect(read({ regs: { gdpr: 1 } }, { account: { id: 'd', gdpr: { enabled: false, channel_enabled: { amp: true } } }, endpoint: 'amp' }).privacy.gdprApplies).to.equal(true);
  });

  it('takes gpp_sid over regs.gdpr, with warning 10001 on a conflict', () => {
    const { privacy, warnings } = read({ regs: { gdpr: 0, gpp_sid: [2] } });
    expect(privacy.gdprApplies).to.equal(true);
    expect(warnings).to.deep.equal([{ code: 10001, message: 'regs.gdpr signal conflicts with GPP (regs.gpp_sid) and will be ignored' }]);
    expect(read({ regs: { gdpr: 1, gpp_sid: [7] } }).privacy.gdprApplies).to.equal(false);
  });

  it('warns of a regs.gdpr 1 beside an empty gpp_sid (which says 0), yet lets regs.gdpr decide, as Prebid Server validates and reads it', () => {
    const { privacy, warnings } = read({ regs: { gdpr: 1, gpp_sid: [] } });
    expect(privacy.gdprApplies).to.equal(true);
    expect(warnings).to.deep.equal([{ code: 10001, message: 'regs.gdpr signal conflicts with GPP (regs.gpp_sid) and will be ignored' }]);
    expect(read({ regs: { gdpr: 0, gpp_sid: [] } }).warnings).to.deep.equal([]);
  });

  it("a publisher in privacy.gdpr.nonStandardPublishers gets every permission where GDPR applies, as Prebid Server's gdpr.non_standard_publishers", () => {
    const privacy = settings((p) => (p.gdpr.nonStandardPublishers = ['pub-1']));
    const service = new PrivacyService(privacy, lists);
    const readFor = (publisherId: string) => service.read({ id: 'r', imp: [], regs: { gdpr: 1 } } as BidRequest, 'auction', account, 'prebid', () => undefined, publisherId);
    const standard = readFor('pub-2');
    expect(standard.gdprPermissions('alpha', 32)).to.deep.equal({ allowBidRequest: false, passGeo: false, passId: false });
    const nonStandard = readFor('pub-1');
    expect(nonStandard.gdprApplies).to.equal(true);
    expect(nonStandard.gdprPermissions('alpha', 32)).to.deep.equal({ allowBidRequest: true, passGeo: true, passId: true });
  });

  it('takes a consent string that is not TCF v2 for no string, without a warning, as Prebid Server does', () => {
    const { privacy, warnings } = read({ regs: { gdpr: 1 }, user: { consent: 'BOGUS' } });
    expect(warnings).to.deep.equal([]);
    expect(privacy.gdprPermissions('alpha', 32)).to.deep.equal({ allowBidRequest: false, passGeo: false, passId: false });
  });
});

describe('privacy: TCF v2 per bidder', () => {
  it('with consent for the vendor, purposes and special feature 1, the bidder gets everything', () => {
    const { shares, original } = enforced({ regs: { gdpr: 1 }, user: { ...structuredCloneUser(), consent: FULL_CONSENT } });
    expect(shares.get('alpha')).to.deep.equal({ ...original, user: { ...original.user, consent: FULL_CONSENT } });
  });

  it('a vendor that does not declare special feature 1 gets a masked IP and rounded geo, ids kept', () => {
    const { shares } = enforced({ regs: { gdpr: 1 }, user: { ...structuredCloneUser(), consent: FULL_CONSENT } }, ['gamma']);
    const gamma = shares.get('gamma')!;
    expect(gamma.device.ip).to.equal('203.0.113.0');
    expect(gamma.device.ipv6).to.equal('2001:db8:85a3:1200::');
    expect(gamma.device.geo).to.deep.equal({ lat: 48.86, lon: 2.35, country: 'FRA' });
    expect(gamma.user.geo).to.deep.equal({ lat: -33.86, lon: 151.21 });
    expect(gamma.user.buyeruid).to.equal('b');
    expect(gamma.device.ifa).to.equal('ifa-1');
  });

  it('a vendor without consent is not asked (purpose 2), with warning 10017', () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [99] });
    const { shares, exchangeWarnings } = enforced({ regs: { gdpr: 1 }, user: { consent } }, ['alpha', 'gamma']);
    expect([...shares.keys()]).to.deep.equal(['gamma']);
    expect(exchangeWarnings).to.deep.equal([{ code: 10017, message: 'bidder "alpha" blocked by privacy settings' }]);
  });

  it('reports no blocked bidder when no bidder is left to ask, as Prebid Server writes its exchange warnings beside the bidders asked', () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [99] });
    const { shares, exchangeWarnings } = enforced({ regs: { gdpr: 1 }, user: { consent } }, ['alpha']);
    expect(shares.size).to.equal(0);
    expect(exchangeWarnings).to.deep.equal([]);
  });

  it("reads vendor exceptions and basic enforcement vendors for a request alias under its host bidder's name, as Prebid Server's core bidder", () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [99] });
    const aliases = { ext: { prebid: { aliases: { myalpha: 'alpha' } } } };
    const excepted = settings((p) => (p.gdpr.tcf2.purpose2.vendorExceptions = ['alpha']));
    expect(enforced({ regs: { gdpr: 1 }, user: { consent }, ...aliases }, ['myalpha'], { privacy: excepted }).shares.size).to.equal(1);
    const exceptedAlias = settings((p) => (p.gdpr.tcf2.purpose2.vendorExceptions = ['myalpha']));
    expect(enforced({ regs: { gdpr: 1 }, user: { consent }, ...aliases }, ['myalpha'], { privacy: exceptedAlias }).shares.size).to.equal(0);
  });

  it('legitimate interest for purpose 2 lets a vendor that declares it be asked, and keep ids', () => {
    const consent = tcString({ purposeLegitimateInterests: [2], vendorLegitimateInterests: [52] });
    const { shares } = enforced({ regs: { gdpr: 1 }, user: { ...structuredCloneUser(), consent } }, ['beta', 'alpha']);
    expect([...shares.keys()]).to.deep.equal(['beta']);
    expect(shares.get('beta')!.user.buyeruid).to.equal('b');
    expect(shares.get('beta')!.device.ip).to.equal('203.0.113.0');
  });

  it('ids need a basis for one of purposes 2-10; purpose 4 alone does not let a bidder be asked', () => {
    const limited = tcString({ purposes: [2], vendors: [99] });
    const { shares } = enforced({ regs: { gdpr: 1 }, user: { ...structuredCloneUser(), consent: limited } }, ['gamma']);
    const gamma = shares.get('gamma')!;
    // Purpose 2 with the vendor's consent is itself a basis for ids (Prebid Server checks purposes 2-10).
    expect(gamma.user.buyeruid).to.equal('b');
    const onlyFour = tcString({ purposes: [4], vendors: [32] });
    const blocked = enforced({ regs: { gdpr: 1 }, user: { consent: onlyFour } }, ['alpha']);
    expect([...blocked.shares.keys()]).to.deep.equal([]);
  });

  it('with purpose 2 not enforced, a bidder without consent is asked but gets no ids and no precise geo', () => {
    const privacy = settings((p) => Object.assign(p.gdpr.tcf2.purpose2, { enforcePurpose: false, enforceVendors: false }));
    const { shares } = enforced({ regs: { gdpr: 1 } }, ['alpha'], { privacy });
    const alpha = shares.get('alpha')!;
    expect(alpha.user).to.not.have.any.keys('buyeruid', 'id', 'yob', 'gender', 'eids');
    expect(alpha.user.ext).to.deep.equal({ data: { x: 1 } });
    expect(alpha.device).to.not.have.property('ifa');
    expect(alpha.device.ip).to.equal('203.0.113.0');
    expect(alpha.user.keywords).to.equal('k');
  });

  it("a request alias's GVL id (ext.prebid.aliasgvlids) is the one its consent is read for", () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [99] });
    expect(enforced({ regs: { gdpr: 1 }, user: { consent } }, ['alpha']).shares.size).to.equal(0);
    const aliased = enforced({ regs: { gdpr: 1 }, user: { consent }, ext: { prebid: { aliasgvlids: { alpha: 99 } } } }, ['alpha']);
    expect(aliased.shares.size).to.equal(1);
  });

  it('a publisher restriction (purpose 2 not allowed) blocks a vendor that consented', () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [32], specialFeatures: [1], restrictions: [[2, 0, 32]] });
    const { shares } = enforced({ regs: { gdpr: 1 }, user: { consent } }, ['alpha']);
    expect(shares.size).to.equal(0);
  });

  it("only the core segment of the string is read, as unpadded base64url, as Prebid Server's consent parser reads it", () => {
    const core = tcString({ purposes: [1, 2, 4], vendors: [32], specialFeatures: [1] }).split('.')[0]!;
    expect(enforced({ regs: { gdpr: 1 }, user: { consent: `${core}.A` } }, ['alpha']).shares.size, 'a broken later segment is not read').to.equal(1);
    expect(decodeTcfConsent(`${core}.A`)?.vendorConsent(32)).to.equal(true);
    const oneOver = core.length % 4 === 0 ? `${core}A` : `${core}AAAAA`.slice(0, core.length + ((5 - (core.length % 4)) % 4));
    expect(oneOver.length % 4).to.equal(1);
    expect(decodeTcfConsent(oneOver), 'a length leaving one character over is no base64').to.equal(undefined);
    expect(enforced({ regs: { gdpr: 1 }, user: { consent: oneOver } }, ['alpha']).shares.size).to.equal(0);
  });

  it('a string made with a vendor list the host has not loaded gets only the defaults', () => {
    const consent = tcString({ purposes: [1, 2, 4], vendors: [32], specialFeatures: [1], vendorListVersion: 9 });
    expect(enforced({ regs: { gdpr: 1 }, user: { consent } }, ['alpha']).shares.size).to.equal(0);
  });

  it("a purpose the GVL lists as flexible counts as declared for consent and for legitimate interest, as Prebid Server's vendor list reader has it", () => {
    const json = JSON.parse(readFileSync(TEST_GVL_PATH, 'utf8'));
    const consent = decodeTcfConsent(tcString({ purposes: [2], vendors: [52] }));
    const rules = tcfRules(settings().gdpr.tcf2, undefined);
    const withList = (list: unknown) => {
      const vendorLists = new VendorLists();
      vendorLists.add(parseVendorList(list));
      return new TcfPermissions(rules, consent, vendorLists).auction('beta', 52);
    };
    expect(withList(json).allowBidRequest, 'purpose 2 declared only for legitimate interest').to.equal(false);
    json.vendors['52'].flexiblePurposes = [2];
    expect(withList(json)).to.include({ allowBidRequest: true, passId: true });
  });

  it('basic enforcement reads only the string: a vendor that does not declare purpose 2 is asked when consented', () => {
    const consent = tcString({ purposes: [2], vendors: [52] });
    expect(enforced({ regs: { gdpr: 1 }, user: { consent } }, ['beta']).shares.size).to.equal(0);
    const privacy = settings((p) => (p.gdpr.tcf2.purpose2.enforceAlgo = 'basic'));
    expect(enforced({ regs: { gdpr: 1 }, user: { consent } }, ['beta'], { privacy }).shares.size).to.equal(1);
  });

  it('purpose 1 decides syncs; purpose one treatment follows the host setting', () => {
    const service = new PrivacyService(settings(), lists);
    expect(service.permissionsFor(tcString({ purposes: [1], vendors: [32] }), account).syncAllowed('alpha', 32, false)).to.equal(true);
    expect(service.permissionsFor(tcString({ purposes: [2], vendors: [32] }), account).syncAllowed('alpha', 32, false)).to.equal(false);
    expect(service.permissionsFor(tcString({ purposes: [1], vendors: [99] }), account).syncAllowed('alpha', 32, false)).to.equal(false);
    expect(service.permissionsFor('', account).syncAllowed('alpha', 32, false)).to.equal(false);
    expect(service.permissionsFor(tcString({ purposeOneTreatment: true, vendors: [32] }), account).syncAllowed('alpha', 32, false)).to.equal(true);
  });
});

describe('privacy: user syncs', () => {
  it("an account's purpose 1 vendor exceptions replace the host's for bidder syncs, as Prebid Server's merged TCF config has them", () => {
    const consent = tcString({ purposes: [2], vendors: [32] });
    const service = new PrivacyService(settings(), lists);
    const excepting: AccountSettings = { id: 'p1-exceptions', gdpr: { purpose1: { vendor_exceptions: ['alpha'] } } };
    expect(service.syncConsent({ gdpr: '1', consent }, account).bidderMaySync('alpha', 32)).to.equal(false);
    expect(service.syncConsent({ gdpr: '1', consent }, excepting).bidderMaySync('alpha', 32)).to.equal(true);
    const hostExcepting = new PrivacyService(settings((p) => (p.gdpr.tcf2.purpose1.vendorExceptions = ['alpha'])), lists);
    expect(hostExcepting.syncConsent({ gdpr: '1', consent }, account).bidderMaySync('alpha', 32)).to.equal(true);
    const emptied: AccountSettings = { id: 'p1-no-exceptions', gdpr: { purpose1: { vendor_exceptions: [] } } };
    expect(hostExcepting.syncConsent({ gdpr: '1', consent }, emptied).bidderMaySync('alpha', 32)).to.equal(false);
  });

  it("GDPR applies to syncs by the host's switch alone, the account's gdpr.enabled unread, as in Prebid Server's sync endpoints", () => {
    const consent = tcString({ purposes: [2], vendors: [32] });
    const accountOff: AccountSettings = { id: 'gdpr-off', gdpr: { enabled: false } };
    const service = new PrivacyService(settings(), lists);
    expect(service.syncConsent({ gdpr: '1', consent }, accountOff).gdprApplies).to.equal(true);
    expect(service.syncConsent({ gdpr: '1', consent }, accountOff).bidderMaySync('alpha', 32)).to.equal(false);
    const hostOff = new PrivacyService(settings((p) => (p.gdpr.enabled = false)), lists);
    const accountOn: AccountSettings = { id: 'gdpr-on', gdpr: { enabled: true } };
    expect(hostOff.syncConsent({ gdpr: '1', consent }, accountOn).gdprApplies).to.equal(false);
  });
});

describe('privacy: what an analytics module sees', () => {
  const request = {
    id: 'r',
    imp: [{ id: 'i', banner: {} }],
    device: { ip: '203.0.113.77', ifa: 'ifa-1', geo: { lat: 48.85661, lon: 2.35222 } },
    user: { id: 'u', buyeruid: 'b', keywords: 'k', data: [{ id: 'd' }], ext: { data: { x: 1 }, other: 1 } },
  };
  const recordFor = (allowactivities: Json) => {
    const { privacy } = read(request, { account: { id: 'analytics', privacy: { allowactivities } } as AccountSettings });
    return { type: 'auction' as const, status: 200, receivedAt: 0, request: request as BidRequest, response: {}, privacy };
  };

  it("transmitUfpd or transmitPreciseGeo denied for the module: it sees the request scrubbed as a bidder would, as Prebid Server's analytics evaluateActivities does", () => {
    const gate = privacyAnalyticsGate(undefined);
    const denyUfpd = recordFor({ transmitUfpd: { rules: [{ allow: false, condition: { componentType: ['analytics'] } }] } });
    const seen = gate(denyUfpd, 'analytics.ndjson') as Json;
    expect(seen.request.user).to.deep.equal({ ext: { other: 1 } });
    expect(seen.request.device).to.deep.equal({ ip: '203.0.113.77', geo: { lat: 48.85661, lon: 2.35222 } });
    expect(denyUfpd.request.user?.buyeruid, 'the record itself is untouched').to.equal('b');
    const denyGeo = recordFor({ transmitPreciseGeo: { default: false } });
    expect((gate(denyGeo, 'analytics.ndjson') as Json).request.device).to.deep.equal({ ip: '203.0.113.0', ifa: 'ifa-1', geo: { lat: 48.86, lon: 2.35 } });
    const otherModule = recordFor({ transmitPreciseGeo: { rules: [{ allow: false, condition: { componentName: ['someone.else'] } }] } });
    expect(gate(otherModule, 'analytics.ndjson')).to.equal(otherModule);
  });
});

describe('privacy: basic enforcement vendors', () => {
  it('under a basic purpose 1, a basic enforcement vendor needs the purpose but not its own vendor consent to sync, as Prebid Server reads that list for every purpose once the algorithm is basic', () => {
    const privacy = settings((p) => (p.gdpr.tcf2.purpose1.enforceAlgo = 'basic'));
    const service = new PrivacyService(privacy, lists);
    const basicVendor: AccountSettings = { id: 'basic-vendors', gdpr: { basic_enforcement_vendors: ['alpha'] } };
    const consent = tcString({ purposes: [1], vendors: [99] });
    expect(service.permissionsFor(consent, account).syncAllowed('alpha', 32, false)).to.equal(false);
    expect(service.permissionsFor(consent, basicVendor).syncAllowed('alpha', 32, false)).to.equal(true);
    expect(service.permissionsFor(tcString({ purposes: [2], vendors: [99] }), basicVendor).syncAllowed('alpha', 32, false)).to.equal(false);
  });

  it('under the full purpose 1, a basic enforcement vendor is not downgraded: it needs its own consent to sync', () => {
    const service = new PrivacyService(settings(), lists);
    const basicVendor: AccountSettings = { id: 'basic-vendors-full', gdpr: { basic_enforcement_vendors: ['alpha'] } };
    expect(service.permissionsFor(tcString({ purposes: [1], vendors: [99] }), basicVendor).syncAllowed('alpha', 32, false)).to.equal(false);
  });
});

describe('privacy: US privacy, COPPA, LMT', () => {
  it('a US privacy opt-out removes ids, device ids, eids, demographics, masks the IP and rounds geo', () => {
    const { shares } = enforced({ regs: { us_privacy: '1YYN' } });
    const alpha = shares.get('alpha')!;
    expect(alpha.user).to.not.have.any.keys('buyeruid', 'id', 'yob', 'gender', 'eids');
    expect(alpha.user.ext).to.deep.equal({ data: { x: 1 } });
    expect(alpha.user.data).to.deep.equal([{ id: 'd' }]);
    expect(alpha.device).to.deep.equal({ ip: '203.0.113.0', ipv6: '2001:db8:85a3:1200::', ua: 'UA', geo: { lat: 48.86, lon: 2.35, country: 'FRA' } });
  });

  it('ext.prebid.nosale exempts the bidders it names (or all with *); an invalid string is ignored with 10001', () => {
    expect(enforced({ regs: { us_privacy: '1YYN' }, ext: { prebid: { nosale: ['alpha'] } } }).shares.get('alpha')!.user.buyeruid).to.equal('b');
    expect(enforced({ regs: { us_privacy: '1YYN' }, ext: { prebid: { nosale: ['*'] } } }).shares.get('alpha')!.user.buyeruid).to.equal('b');
    expect(enforced({ regs: { us_privacy: '1YNN' } }).shares.get('alpha')!.user.buyeruid).to.equal('b');
    const invalid = enforced({ regs: { us_privacy: '2YYN' } });
    expect(invalid.shares.get('alpha')!.user.buyeruid).to.equal('b');
    expect(invalid.warnings).to.deep.equal([{ code: 10001, message: 'CCPA consent is invalid and will be ignored. (request.regs.ext.us_privacy must specify version 1)' }]);
    expect(invalid.exchangeWarnings).to.deep.equal([{ code: 10001, message: 'request.regs.ext.us_privacy must specify version 1' }]);
  });

  it("a regs.us_privacy that contradicts GPP's uspv1 leaves US privacy unenforced, warned at the read and again beside the bidders, as Prebid Server's extractCCPA", () => {
    const mismatch = { code: 10001, message: 'regs.us_privacy consent does not match uspv1 in GPP, using regs.gpp' };
    const contradicted = enforced({ regs: { us_privacy: '1NNN', gpp: 'DBABTA~1YYN', gpp_sid: [6] } });
    expect(contradicted.shares.get('alpha')!.user.buyeruid).to.equal('b');
    expect(contradicted.warnings).to.deep.equal([mismatch]);
    expect(contradicted.exchangeWarnings).to.deep.equal([mismatch]);
    const agreed = enforced({ regs: { us_privacy: '1YYN', gpp: 'DBABTA~1YYN', gpp_sid: [6] } });
    expect(agreed.shares.get('alpha')!.user).to.not.have.property('buyeruid');
    expect(agreed.warnings).to.deep.equal([]);
    expect(enforced({ regs: { gpp: 'DBABTA~1YYN', gpp_sid: [6] } }).shares.get('alpha')!.user).to.not.have.property('buyeruid');
  });

  it('bidders under the same rules share one scrubbed copy of each branch; a bidder under other rules keeps its own', () => {
    const { shares, objects, request } = enforced({ regs: { us_privacy: '1YYN' }, ext: { prebid: { nosale: ['beta'] } } }, ['alpha', 'beta', 'gamma']);
    const [alpha, beta, gamma] = ['alpha', 'beta', 'gamma'].map((bidder) => objects.get(bidder)!);
    for (const branch of ['user', 'device']) {
      expect(alpha![branch], branch).to.not.equal(request[branch]);
      expect(gamma![branch], branch).to.equal(alpha![branch]);
      expect(beta![branch], branch).to.equal(request[branch]);
    }
    expect(shares.get('beta')!.user.buyeruid).to.equal('b');
    // What gamma receives is what it receives when it is the only bidder.
    expect(shares.get('gamma')).to.deep.equal(enforced({ regs: { us_privacy: '1YYN' }, ext: { prebid: { nosale: ['beta'] } } }, ['gamma']).shares.get('gamma'));
  });

  it('the host or the account switches the US opt-out off', () => {
    expect(enforced({ regs: { us_privacy: '1YYN' } }, ['alpha'], { privacy: settings((p) => (p.ccpa.enforce = false)) }).shares.get('alpha')!.user.buyeruid).to.equal('b');
    expect(enforced({ regs: { us_privacy: '1YYN' } }, ['alpha'], { account: { id: 'e', ccpa: { enabled: false } } }).shares.get('alpha')!.user.buyeruid).to.equal('b');
  });

  it('COPPA clears the geo; LMT rounds it', () => {
    const coppa = enforced({ regs: { coppa: 1 } }).shares.get('alpha')!;
    expect(coppa.device.geo).to.deep.equal({});
    expect(coppa.user.geo).to.deep.equal({});
    expect(coppa.device.ip).to.equal('203.0.113.0');
    expect(coppa.device).to.not.have.property('ifa');
    const lmt = enforced({ device: { lmt: 1, ifa: 'x', ip: '198.51.100.9', geo: { lat: 1.234 } } }).shares.get('alpha')!;
    expect(lmt.device).to.deep.equal({ lmt: 1, ip: '198.51.100.0', geo: { lat: 1.23 } });
    expect(lmt.user).to.not.have.any.keys('buyeruid', 'eids');
    const off = enforced({ device: { lmt: 1, ifa: 'x' } }, ['alpha'], { privacy: settings((p) => (p.lmt.enforce = false)) }).shares.get('alpha')!;
    expect(off.device.ifa).to.equal('x');
  });
});

describe('privacy: GPP', () => {
  it('reads the US privacy section named by gpp_sid, and gives the legacy fields to bidders that do not read GPP', () => {
    const gpp = 'DBABzw~1YYN~CEAQAAAAAABA.QA';
    const { shares } = enforced({ regs: { gpp, gpp_sid: [6] } });
    const alpha = shares.get('alpha')!;
    expect(alpha.user).to.not.have.property('buyeruid');
    expect(alpha.regs).to.deep.equal({ gpp, gpp_sid: [6], gdpr: 0, us_privacy: '1YYN' });
  });

  it("gives a bidder that does not read GPP the TCF EU section as user.consent whatever gpp_sid says, and regs.gdpr only when gpp_sid is given (Prebid Server's downgrade)", () => {
    const tcf = 'CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA';
    const gpp = `DBACNYA~${tcf}~1NYN`;
    const noList = enforced({ regs: { gpp }, device: { ua: 'UA' }, user: { buyeruid: 'b' } }).shares.get('alpha')!;
    expect(noList.user).to.deep.equal({ buyeruid: 'b', consent: tcf });
    expect(noList.regs).to.deep.equal({ gpp });
    const emptyList = enforced({ regs: { gpp, gpp_sid: [] }, device: { ua: 'UA' }, user: { buyeruid: 'b' } }).shares.get('alpha')!;
    expect(emptyList.regs).to.deep.equal({ gpp, gpp_sid: [], gdpr: 0 });
    expect(emptyList.user.consent).to.equal(tcf);
  });

  it('a US national section opting out of sale (in gpp_sid) is enforced as an opt-out', () => {
    expect(enforced({ regs: { gpp: 'DBABzw~1YNN~CEAQAAAAAABA.QA', gpp_sid: [7] } }).shares.get('alpha')!.user).to.not.have.property('buyeruid');
    expect(enforced({ regs: { gpp: 'DBABzw~1YNN~CEAQAAAAAABA.QA', gpp_sid: [8] } }).shares.get('alpha')!.user.buyeruid).to.equal('b');
  });

  it('an unreadable GPP string is ignored with 10001', () => {
    const { warnings } = read({ regs: { gpp: 'garbage' } });
    expect(warnings[0]!.code).to.equal(10001);
    expect(warnings[0]!.message).to.match(/^GPP consent string is invalid and will be ignored/);
  });
});

describe('privacy: activity controls', () => {
  const facts = { gppSids: [7], geo: ['USA', 'USA.CA'] };

  it('the first matching rule decides, else the default, else allowed', () => {
    const control = ActivityControl.from(
      {
        fetchBids: { default: false, rules: [{ allow: true, condition: { componentName: ['Alpha'] } }, { allow: false, condition: { componentType: ['bidder'] } }] },
        transmitUfpd: { rules: [{ allow: false, condition: { gppSid: [7], geo: ['USA.CA'] } }] },
      },
      undefined,
    );
    expect(control.allows('fetchBids', { type: 'bidder', name: 'alpha' }, facts)).to.equal(true);
    expect(control.allows('fetchBids', { type: 'bidder', name: 'beta' }, facts)).to.equal(false);
    expect(control.allows('fetchBids', { type: 'analytics', name: 'a' }, facts)).to.equal(false);
    expect(control.allows('transmitUfpd', { type: 'bidder', name: 'beta' }, facts)).to.equal(false);
    expect(control.allows('transmitUfpd', { type: 'bidder', name: 'beta' }, { gppSids: [7], geo: ['USA', 'USA.NY'] })).to.equal(true);
    expect(control.allows('syncUser', { type: 'bidder', name: 'beta' }, facts)).to.equal(true);
  });

  it("an account's activity replaces the host's", () => {
    const control = ActivityControl.from({ fetchBids: { default: false } }, { allowactivities: { fetchBids: { default: true } } });
    expect(control.allows('fetchBids', { type: 'bidder', name: 'x' }, facts)).to.equal(true);
  });

  it('per bidder: fetchBids, transmitUfpd, transmitPreciseGeo, transmitTids, transmitEids', () => {
    const account: AccountSettings = {
      id: 'act',
      privacy: {
        allowactivities: {
          fetchBids: { rules: [{ allow: false, condition: { componentName: ['beta'] } }] },
          transmitUfpd: { rules: [{ allow: false, condition: { componentName: ['alpha'] } }] },
          transmitPreciseGeo: { default: false },
          transmitTid: { default: false },
          transmitEids: { rules: [{ allow: false, condition: { componentName: ['gamma'] } }] },
        },
      },
    };
    const { shares, exchangeWarnings } = enforced({}, ['alpha', 'beta', 'gamma'], { account });
    expect([...shares.keys()]).to.deep.equal(['alpha', 'gamma']);
    expect(exchangeWarnings).to.deep.equal([{ code: 10017, message: 'bidder "beta" blocked by privacy settings' }]);
    const alpha = shares.get('alpha')!;
    // user.ext lost its data and eids: left empty, it goes, as Prebid Server writes an edited empty ext as none.
    expect(alpha.user).to.deep.equal({ geo: { lat: -33.86, lon: 151.21 } });
    expect(alpha.device).to.not.have.property('ifa');
    expect(alpha.source).to.deep.equal({});
    expect(alpha.imp[0].ext).to.deep.equal({});
    const gamma = shares.get('gamma')!;
    expect(gamma.user).to.not.have.property('eids');
    expect(gamma.user.ext).to.deep.equal({ data: { x: 1 } });
    expect(gamma.user.buyeruid).to.equal('b');
    expect(gamma.device.ip).to.equal('203.0.113.0');
  });
});

function structuredCloneUser(): Json {
  return { id: 'u', buyeruid: 'b', yob: 1980, gender: 'F', keywords: 'k', data: [{ id: 'd' }], eids: [{ source: 's.example', uids: [{ id: 'e' }] }], geo: { lat: -33.86882, lon: 151.20929 }, ext: { data: { x: 1 }, eids: [{ source: 'x' }] } };
}
