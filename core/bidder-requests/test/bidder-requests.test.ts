import { expect } from 'chai';
import type { AccountSettings, BidderRequest, BidRequest } from '../../api/index.js';
import { testContext } from '../../api/testing.js';
import { BidderRequestShaper, type BidderRequestSettings } from '../index.js';

type Json = Record<string, any>;

/** Shares as the built-in splitter makes them: a top-level copy of the request per bidder, its own imps. */
function split(request: Json, bidders: Array<[bidder: string, adapter?: string]>): BidderRequest[] {
  return bidders.map(([bidder, adapter]) => ({
    bidder,
    adapter: adapter ?? bidder,
    request: { ...request, imp: (request.imp as Json[]).map((imp) => ({ ...imp, ext: { ...imp.ext, bidder: { own: bidder } } })) } as BidRequest,
  }));
}

function shape(request: Json, bidders: Array<[string, string?]>, settings: BidderRequestSettings = {}, account: AccountSettings = { id: '' }, endpoint: 'auction' | 'video' = 'auction') {
  const shares = split(request, bidders);
  const errors = new BidderRequestShaper(settings).shape(request as BidRequest, shares, testContext({ namespace: 'prebid', account, endpoint }));
  return { errors, byBidder: Object.fromEntries(shares.map((share) => [share.bidder, share.request as Json])), shares };
}

const base = (ext: Json = {}, extra: Json = {}): Json => ({ id: 'r', site: { page: 'https://p.example' }, imp: [{ id: 'i1', banner: { w: 300, h: 250 }, ext: {} }], ext, ...extra });

describe('what each bidder may see: request ext', () => {
  it("gives each bidder only its own bidderparams entry and its own alias, and nothing of the auction's options", () => {
    const { byBidder, errors } = shape(
      base({
        prebid: {
          bidderparams: { appnexus: { member: 1 }, rubicon: { secret: 2 } },
          aliases: { districtm: 'appnexus' },
          targeting: { pricegranularity: 'med', includewinners: true },
          cache: { bids: {} },
          bidadjustmentfactors: { appnexus: 0.9 },
          floors: { enabled: true },
          schains: [],
        },
        gpp: 'kept',
      }),
      [['appnexus'], ['rubicon'], ['districtm', 'appnexus']],
    );
    expect(errors).to.equal(undefined);
    expect(byBidder.appnexus!.ext).to.deep.equal({ gpp: 'kept', prebid: { bidderparams: { member: 1 } } });
    expect(byBidder.rubicon!.ext).to.deep.equal({ gpp: 'kept', prebid: { bidderparams: { secret: 2 } } });
    expect(byBidder.districtm!.ext).to.deep.equal({ gpp: 'kept', prebid: { aliases: { districtm: 'appnexus' } } });
  });

  it('passes channel, currency, debug, integration, sdk and only includebrandcategory of targeting, as Go writes their structs; leaves ext out when nothing is left', () => {
    const { byBidder } = shape(
      base({ prebid: { channel: { name: 'web', extra: 1 }, currency: { rates: {} }, debug: true, integration: 'x', sdk: { renderers: [{ name: 'r', version: '' }] }, targeting: { includebrandcategory: { primaryadserver: 1, publisher: '' }, includewinners: true } } }),
      [['appnexus']],
    );
    expect(byBidder.appnexus!.ext.prebid).to.deep.equal({
      channel: { name: 'web', version: '' },
      currency: { rates: {}, usepbsrates: null },
      debug: true,
      integration: 'x',
      sdk: { renderers: [{ name: 'r' }] },
      targeting: { includebrandcategory: { primaryadserver: 1, withcategory: false } },
    });
    expect(shape(base({ prebid: { targeting: { includewinners: true }, debug: false, integration: '' } }), [['appnexus']]).byBidder.appnexus!.ext).to.equal(undefined);
  });

  it("narrows alternate bidder codes (the request's, else the account's) and multibid to the bidder", () => {
    const codes = { enabled: true, bidders: { pubmatic: { enabled: true, allowedbiddercodes: ['groupm'] } } };
    const multibid = [{ bidder: 'pubmatic', maxbids: 2 }, { bidders: ['appnexus', 'groupm'], maxbids: 3 }, { bidder: 'rubicon', maxbids: 4 }];
    const { byBidder } = shape(base({ prebid: { alternatebiddercodes: codes, multibid } }), [['pubmatic'], ['appnexus']]);
    expect(byBidder.pubmatic!.ext.prebid).to.deep.equal({
      alternatebiddercodes: { enabled: true, bidders: { pubmatic: { enabled: true, allowedbiddercodes: ['groupm'] } } },
      multibid: [{ bidder: 'pubmatic', maxbids: 2 }, { bidders: ['groupm'], maxbids: 3 }],
    });
    expect(byBidder.appnexus!.ext.prebid).to.deep.equal({ alternatebiddercodes: { enabled: true, bidders: null }, multibid: [{ bidders: ['appnexus'], maxbids: 3 }] });
    const fromAccount = shape(base(), [['pubmatic']], {}, { id: 'a', alternatebiddercodes: codes }).byBidder.pubmatic!;
    expect(fromAccount.ext.prebid.alternatebiddercodes.bidders).to.have.key('pubmatic');
  });

  it("writes the bidder's alternate codes entry as Prebid Server's struct: enabled and allowedbiddercodes (null when not given), nothing else", () => {
    const codes = { enabled: true, bidders: { PubMatic: { enabled: true, note: 'dropped' } } };
    const { byBidder } = shape(base({ prebid: { alternatebiddercodes: codes } }), [['pubmatic']]);
    expect(byBidder.pubmatic!.ext.prebid.alternatebiddercodes).to.deep.equal({ enabled: true, bidders: { pubmatic: { enabled: true, allowedbiddercodes: null } } });
  });

  it('gives a bidder the multibid entries of its allowed codes as Prebid Server matches them: the name lower-cased, the code as written', () => {
    const codes = { enabled: true, bidders: { pubmatic: { enabled: true, allowedbiddercodes: ['GroupM', 'other'] } } };
    const multibid = [{ bidder: 'GroupM', maxbids: 2 }, { bidders: ['OTHER'], maxbids: 3 }];
    const { byBidder } = shape(base({ prebid: { alternatebiddercodes: codes, multibid } }), [['pubmatic']]);
    expect(byBidder.pubmatic!.ext.prebid.multibid).to.deep.equal([{ bidders: ['OTHER'], maxbids: 3 }]);
  });

  it("sends the host's identity as ext.prebid.server in place of the request's own", () => {
    const server = { externalurl: 'https://gavel.example', gvlid: 42, datacenter: 'eu-1' };
    const { byBidder } = shape(base({ prebid: { server: { externalurl: 'spoofed' } } }), [['appnexus']], { server });
    expect(byBidder.appnexus!.ext.prebid).to.deep.equal({ server });
  });
});

describe('what each bidder may see: imps', () => {
  it('keeps only is_rewarded_inventory and options of imp.ext.prebid', () => {
    const request = base({}, { imp: [{ id: 'i1', banner: { w: 1, h: 1 }, ext: { prebid: { is_rewarded_inventory: 1, options: { echovideoattrs: true }, passthrough: { a: 1 }, floors: {} }, gpid: 'g' } }] });
    expect(shape(request, [['appnexus']]).byBidder.appnexus!.imp[0].ext).to.deep.equal({ prebid: { is_rewarded_inventory: 1, options: { echovideoattrs: true } }, gpid: 'g', bidder: { own: 'appnexus' } });
  });

  it("merges the imp's first-party data for the bidder into its copy of the imp only", () => {
    const request = base({}, { imp: [{ id: 'i1', banner: { format: [{ w: 300, h: 600 }] }, ext: { prebid: { imp: { appnexus: { id: 'i1-apn', banner: { pos: 1 } } } } } }] });
    const { byBidder, errors } = shape(request, [['appnexus'], ['rubicon']]);
    expect(errors).to.equal(undefined);
    expect(byBidder.appnexus!.imp[0]).to.deep.equal({ id: 'i1-apn', banner: { format: [{ w: 300, h: 600 }], pos: 1 }, ext: { bidder: { own: 'appnexus' } } });
    expect(byBidder.rubicon!.imp[0]).to.deep.equal({ id: 'i1', banner: { format: [{ w: 300, h: 600 }] }, ext: { bidder: { own: 'rubicon' } } });
  });

  it('re-checks each imp first-party data changed, by its place in the request, and refuses the request with the problem in brackets', () => {
    const imps = [
      { id: 'i1', banner: { w: 1, h: 1 }, ext: {} },
      { id: 'i2', banner: { w: 1, h: 1 }, ext: { prebid: { imp: { rubicon: { banner: null } } } } },
      { id: 'i3', banner: { w: 1, h: 1 }, ext: { prebid: { imp: { rubicon: { banner: { w: 2 } } } } } },
    ];
    const request = base({}, { imp: imps });
    const shares = split(request, [['rubicon']]);
    // The bidder's share holds only the imps it bids on: the index is still the auction's.
    shares[0]!.request.imp = shares[0]!.request.imp.slice(1);
    const rechecked: Array<[Json, number]> = [];
    const recheck = (imp: Json, index: number) => {
      rechecked.push([imp, index]);
      return imp.banner ? undefined : `request.imp[${index}] has no banner`;
    };
    const errors = new BidderRequestShaper({}).shape(request as BidRequest, shares, testContext({ namespace: 'prebid' }), recheck);
    expect(rechecked.map(([imp, index]) => [imp.id, imp.banner, index])).to.deep.equal([['i2', undefined, 1], ['i3', { w: 2, h: 1 }, 2]]);
    expect(errors).to.deep.equal(['merging bidder imp first party data for imp i2 results in an invalid imp: [request.imp[1] has no banner]']);
  });

  it('leaves merged imps unchecked when the request validator offers no re-check', () => {
    const request = base({}, { imp: [{ id: 'i1', banner: { w: 1, h: 1 }, ext: { prebid: { imp: { appnexus: { banner: null } } } } }] });
    const { errors, byBidder } = shape(request, [['appnexus']]);
    expect(errors).to.equal(undefined);
    expect(byBidder.appnexus!.imp[0].banner).to.equal(undefined);
  });
});

describe('what each bidder may see: supply chains', () => {
  const chain = (asi: string) => ({ complete: 1, nodes: [{ asi, sid: '1', hp: 1 }], ver: '1.0' });

  it("writes each bidder's own chain, else the wildcard's, and appends the host's node", () => {
    const host = { asi: 'host.example', sid: '9', hp: 1 };
    const request = base({ prebid: { schains: [{ bidders: ['appnexus'], schain: chain('a.example') }, { bidders: ['*'], schain: chain('all.example') }] } });
    const { byBidder } = shape(request, [['appnexus'], ['rubicon']], { hostSchainNode: host });
    expect(byBidder.appnexus!.source).to.deep.equal({ schain: { complete: 1, nodes: [{ asi: 'a.example', sid: '1', hp: 1 }, host], ver: '1.0' } });
    expect(byBidder.rubicon!.source).to.deep.equal({ schain: { complete: 1, nodes: [{ asi: 'all.example', sid: '1', hp: 1 }, host], ver: '1.0' } });
  });

  it("starts a host-only chain, replacing the request's own, when the request names none for the bidder (Prebid Server's schain writer)", () => {
    const host = { asi: 'host.example', sid: '9' };
    expect(shape(base(), [['appnexus']], { hostSchainNode: host }).byBidder.appnexus!.source).to.deep.equal({ schain: { complete: 0, nodes: [host], ver: '1.0' } });
    const own = shape(base({}, { source: { tid: 't', schain: chain('pub.example') } }), [['appnexus']], { hostSchainNode: host }).byBidder.appnexus!;
    expect(own.source).to.deep.equal({ tid: 't', schain: { complete: 0, nodes: [host], ver: '1.0' } });
  });

  it('refuses a request naming one bidder in two chains', () => {
    const request = base({ prebid: { schains: [{ bidders: ['appnexus'], schain: chain('a') }, { bidders: ['rubicon', 'appnexus'], schain: chain('b') }] } });
    expect(shape(request, [['appnexus']]).errors).to.deep.equal(['request.ext.prebid.schains contains multiple schains for bidder appnexus; it must contain no more than one per bidder.']);
  });

  it("matches bidder names exactly, as Prebid Server does: a chain for APPNEXUS is not appnexus's", () => {
    const request = base({ prebid: { schains: [{ bidders: ['APPNEXUS'], schain: chain('upper') }, { bidders: ['appnexus'], schain: chain('lower') }] } });
    const { byBidder, errors } = shape(request, [['appnexus']]);
    expect(errors).to.equal(undefined);
    expect(byBidder.appnexus!.source).to.deep.equal({ schain: chain('lower') });
  });
});

describe('what each bidder may see: eids and first-party data', () => {
  const user = { id: 'u', buyeruid: 'from-cookie', eids: [{ source: 'only-rubicon.example', uids: [{ id: '1' }] }, { source: 'open.example', uids: [{ id: '2' }] }], data: [{ id: 'seg' }], ext: { data: { interests: ['x'] } } };

  it('sends an eid with a permission rule only to the bidders it names', () => {
    const request = base({ prebid: { data: { eidpermissions: [{ source: 'only-rubicon.example', bidders: ['Rubicon'] }] } } }, { user });
    const { byBidder } = shape(request, [['appnexus'], ['rubicon']]);
    expect(byBidder.appnexus!.user.eids).to.deep.equal([{ source: 'open.example', uids: [{ id: '2' }] }]);
    expect(byBidder.rubicon!.user.eids).to.deep.equal(user.eids);
  });

  it('gives the global first-party data only to the bidders in data.bidders', () => {
    const request = base({ prebid: { data: { bidders: ['rubicon'] } } }, { user, site: { page: 'https://p.example', content: { data: [{ id: 'c' }], title: 't' }, ext: { data: { section: 's' }, amp: 0 } } });
    const { byBidder } = shape(request, [['appnexus'], ['rubicon']]);
    expect(byBidder.appnexus!.site).to.deep.equal({ page: 'https://p.example', content: { title: 't' }, ext: { amp: 0 } });
    expect(byBidder.appnexus!.user).to.deep.equal({ id: 'u', buyeruid: 'from-cookie', eids: user.eids });
    expect(byBidder.rubicon!.site).to.deep.equal(request.site);
    expect(byBidder.rubicon!.user).to.deep.equal(user);
  });

  it("merges a bidder's config over what it receives, keeping its own buyer id", () => {
    const request = base(
      { prebid: { bidderconfig: [{ bidders: ['appnexus'], config: { ortb2: { site: { page: 'https://fpd.example', ext: { data: { k: 1 } } }, user: { buyeruid: 'fpd', keywords: 'k' }, device: { w: 1 } } } }] } },
      { user: { id: 'u', buyeruid: 'cookie' } },
    );
    const { byBidder } = shape(request, [['appnexus'], ['rubicon']]);
    expect(byBidder.appnexus!.site).to.deep.equal({ page: 'https://fpd.example', ext: { data: { k: 1 } } });
    expect(byBidder.appnexus!.user).to.deep.equal({ id: 'u', buyeruid: 'cookie', keywords: 'k' });
    expect(byBidder.appnexus!.device).to.deep.equal({ w: 1 });
    expect(byBidder.rubicon!.site).to.deep.equal({ page: 'https://p.example' });
  });

  it("refuses contradicting first-party data with Prebid Server's messages", () => {
    const twice = base({ prebid: { bidderconfig: [{ bidders: ['appnexus'], config: {} }, { bidders: ['appnexus'], config: {} }] } });
    expect(shape(twice, [['appnexus']]).errors).to.deep.equal(['multiple First Party Data bidder configs provided for bidder: appnexus']);
    const noApp = base({ prebid: { bidderconfig: [{ bidders: ['appnexus'], config: { ortb2: { app: { id: 'a' } } } }] } });
    expect(shape(noApp, [['appnexus']]).errors).to.deep.equal(['incorrect First Party Data for bidder appnexus: App object is not defined in request, but defined in FPD config']);
  });

  it('leaves first-party data alone on the video endpoint, as Prebid Server does', () => {
    const request = base({ prebid: { data: { bidders: ['rubicon'] } } }, { user });
    expect(shape(request, [['appnexus']], {}, { id: '' }, 'video').byBidder.appnexus!.user).to.deep.equal(user);
  });

  it('leaves first-party data alone for a DOOH request on the auction endpoint, as Prebid Server does (its type is DOOH)', () => {
    const config = [{ bidders: ['appnexus'], config: { ortb2: { user: { yob: 2000 } } } }, { bidders: ['appnexus'], config: {} }];
    const dooh = { id: 'r', dooh: { id: 'screen' }, imp: [{ id: 'i1', banner: { w: 300, h: 250 }, ext: {} }], ext: { prebid: { data: { bidders: ['rubicon'] }, bidderconfig: config } }, user };
    const shaped = shape(dooh, [['appnexus']]);
    // Not resolved at all: neither the list nor the (duplicated) bidder config is read.
    expect(shaped.errors).to.equal(undefined);
    expect(shaped.byBidder.appnexus!.user).to.deep.equal(user);
    // The same request with an app is an app request: its first-party data is resolved.
    const app = { ...dooh, app: { id: 'a' }, ext: { prebid: { data: { bidders: ['rubicon'] } } } };
    expect(shape(app, [['appnexus']]).byBidder.appnexus!.user).to.not.deep.equal(user);
  });
});
