import { expect } from 'chai';
import { expectAccepted, expectRejected, testDeps, validate, withRequest, type Json } from './support.js';

/** Refused with this one line alone: Prebid Server stops at the first member it cannot decode. */
function expectOnly(request: unknown, message: string): void {
  const result = validate(request);
  expect(result?.action).to.equal('reject');
  expect(result?.invalid).to.deep.equal([message]);
}

describe('gavel.validation: request-level checks', () => {
  it('accepts the baseline request without comment', () => {
    expect(validate(withRequest(() => {}))).to.equal(undefined);
  });

  it('requires the body to be a JSON object', () => {
    expectRejected(['not', 'an', 'object'], 'request body must be a JSON object');
  });

  it('requires an id', () => {
    expectRejected(withRequest((r) => { delete r.id; }), 'request missing required field: "id"');
    expectRejected(withRequest((r) => { r.id = 7; }), 'cannot unmarshal openrtb2.BidRequest.ID: expects " or n, but found 7 (request.id must be a string)');
    expectAccepted(withRequest((r) => { r.id = 'some-id'; }));
  });

  it('requires tmax to be a non-negative integer', () => {
    expectRejected(withRequest((r) => { r.tmax = -1; }), 'request.tmax must be nonnegative. Got -1');
    expectRejected(withRequest((r) => { r.tmax = '500'; }), 'cannot unmarshal openrtb2.BidRequest.TMax: unexpected character: \ufffd (request.tmax must be an integer)');
    expectAccepted(withRequest((r) => { r.tmax = 0; }));
  });

  it('refuses a member its OpenRTB field cannot hold, first in document order, as Prebid Server\'s decoder words it', () => {
    expectOnly(withRequest((r) => { r.site.publisher = 1; r.imp[0].id = ''; }),
      'cannot unmarshal openrtb2.Site.Publisher: expect { or n, but found 1 (request.site.publisher must be an object)');
    expectOnly(withRequest((r) => { r.imp[0].banner.format[0].w = '300'; }),
      'cannot unmarshal openrtb2.Format.W: unexpected character: \ufffd (request.imp[0].banner.format[0].w must be an integer)');
    expectOnly(withRequest((r) => { r.imp[0].bidfloor = '1.5'; }), 'cannot unmarshal openrtb2.Imp.BidFloor: invalid number (request.imp[0].bidfloor must be a number)');
    expectOnly(withRequest((r) => { r.imp[0].secure = 0.5; }), 'cannot unmarshal openrtb2.Imp.Secure: can not decode float as int (request.imp[0].secure must be an integer)');
    expectOnly(withRequest((r) => { r.device = { ua: 1 }; }), 'cannot unmarshal openrtb2.Device.UA: expects " or n, but found 1 (request.device.ua must be a string)');
    expectOnly(withRequest((r) => { r.cur = 'USD'; }), 'cannot unmarshal openrtb2.BidRequest.Cur: decode slice: expect [ or n, but found " (request.cur must be a list of strings)');
    expectOnly(withRequest((r) => { r.bcat = ['IAB1', 2]; }), 'cannot unmarshal []string: expects " or n, but found 2 (request.bcat[1] must be a string)');
    expectOnly(withRequest((r) => { r.imp = [r.imp[0], 1]; }), 'cannot unmarshal []openrtb2.Imp: expect { or n, but found 1 (request.imp[1] must be an object)');
    expectOnly(withRequest((r) => { r.user = { eids: [{ source: 's', uids: [{ id: 5 }] }] }; }),
      'cannot unmarshal openrtb2.UID.ID: expects " or n, but found 5 (request.user.eids[0].uids[0].id must be a string)');
    // Matched ignoring case, as Go matches; null is the zero value; ext members are read where they are used.
    expectOnly(withRequest((r) => { r.site.Page = 5; }), 'cannot unmarshal openrtb2.Site.Page: expects " or n, but found 5 (request.site.Page must be a string)');
    expectAccepted(withRequest((r) => { r.site.publisher = null; r.test = null; r.imp[0].ext.data = { anything: [1, 'x'] }; }));
  });

  it('requires at least one imp', () => {
    expectRejected(withRequest((r) => { r.imp = []; }), 'request.imp must contain at least one element.');
    expectRejected(withRequest((r) => { delete r.imp; }), 'request.imp must contain at least one element.');
  });

  it('keeps the first of several currencies, with Prebid Server\'s warning', () => {
    const result = expectAccepted(withRequest((r) => { r.cur = ['EUR', 'USD']; }));
    expect(result?.request.cur).to.deep.equal(['EUR']);
    expect(result?.warnings?.general).to.deep.equal([{
      code: 0,
      message: 'A prebid request can only process one currency. Taking the first currency in the list, EUR, as the active currency',
    }]);
    expect(validate(withRequest((r) => { r.cur = ['USD']; }))).to.equal(undefined);
  });

  it('rejects wseat and bseat (specification 4.1)', () => {
    expectRejected(withRequest((r) => { r.wseat = ['appnexus']; }),
      'request.wseat is not supported. Remove it: the bidders of each imp are the ones named in request.imp[i].ext.');
    expectRejected(withRequest((r) => { r.bseat = []; }),
      'request.bseat is not supported. Remove it, and leave the bidders you want to block out of request.imp[i].ext.');
  });

  it('requires request.ext, its namespace and its schain to be objects, in the words of Prebid Server\'s decoder', () => {
    expectRejected(withRequest((r) => { r.ext = 'x'; }), 'req.ext is invalid: expect { or n, but found " (request.ext must be an object)');
    expectRejected(withRequest((r) => { r.ext = { svc: 3 }; }), 'req.ext is invalid: expect { or n, but found 3 (request.ext.svc must be an object)');
    expectRejected(withRequest((r) => { r.ext = { prebid: 1 }; }), 'req.ext is invalid: expect { or n, but found 1 (request.ext.prebid must be an object)');
    expectRejected(withRequest((r) => { r.ext = { schain: [] }; }), 'req.ext is invalid: expect { or n, but found [ (request.ext.schain must be an object)');
    expectAccepted(withRequest((r) => { r.ext = { svc: {}, schain: { ver: '1.0' } }; }));
  });

  it('reads the options as Prebid Server\'s ExtRequestPrebid holds them, naming the first member of the wrong JSON type', () => {
    expectRejected(withRequest((r) => { r.ext = { prebid: { aliases: [] } }; }),
      'req.ext is invalid: cannot unmarshal openrtb_ext.ExtRequestPrebid.Aliases: expect { or n, but found [ (in request.ext.prebid)');
    expectRejected(withRequest((r) => { r.ext = { svc: { debug: 'yes', targeting: 1 } }; }),
      'req.ext is invalid: cannot unmarshal openrtb_ext.ExtRequestPrebid.Debug: expect t or f, but found " (in request.ext.svc)');
    expectRejected(withRequest((r) => { r.ext = { prebid: { nosale: 'appnexus' } }; }),
      'req.ext is invalid: cannot unmarshal openrtb_ext.ExtRequestPrebid.NoSale: decode slice: expect [ or n, but found " (in request.ext.prebid)');
    expectAccepted(withRequest((r) => { r.ext = { prebid: { aliases: {}, debug: true, nosale: ['appnexus'], passthrough: 1, unknown: 'x' } }; }));
  });

  it('reads the options Prebid Server validates down to their leaves, naming the first that does not fit', () => {
    const rejected = (prebid: Record<string, unknown>, text: string) =>
      expectRejected(withRequest((r) => { r.ext = { prebid }; }), `req.ext is invalid: ${text} (in request.ext.prebid)`);
    rejected({ targeting: { includewinners: 'yes' } }, 'cannot unmarshal openrtb_ext.ExtRequestTargeting.IncludeWinners: expect t or f, but found "');
    rejected({ targeting: { pricegranularity: 'fine' } }, 'cannot unmarshal openrtb_ext.ExtRequestTargeting.PriceGranularity: expect { or n, but found "');
    rejected({ targeting: { pricegranularity: { precision: 1.5 } } },
      'cannot unmarshal openrtb_ext.ExtRequestTargeting.PriceGranularity: cannot unmarshal openrtb_ext.PriceGranularityRaw.Precision: can not decode float as int');
    rejected({ aliases: { friend: 1 } }, 'cannot unmarshal openrtb_ext.ExtRequestPrebid.Aliases: expects " or n, but found 1');
    rejected({ cache: { bids: 'x' } }, 'cannot unmarshal openrtb_ext.ExtRequestPrebidCache.Bids: expect { or n, but found "');
    rejected({ channel: { name: 1 } }, 'cannot unmarshal openrtb_ext.ExtRequestPrebidChannel.Name: expects " or n, but found 1');
    rejected({ bidadjustmentfactors: { appnexus: '1' } }, 'cannot unmarshal openrtb_ext.ExtRequestPrebid.BidAdjustmentFactors: invalid number');
    rejected({ channel: { name: 'web' }, aliasgvlids: { friend: -1 }, targeting: 1 }, 'cannot unmarshal openrtb_ext.ExtRequestPrebid.AliasGVLIDs: unexpected character: \ufffd');
    expectAccepted(withRequest((r) => {
      r.ext = { prebid: { targeting: { pricegranularity: 'dense', mediatypepricegranularity: { video: { precision: 2, ranges: [{ max: 5, increment: 1 }] } }, includewinners: true, durationrangesec: [15, 30] },
        bidadjustmentfactors: { appnexus: 0.9, mediatypes: { banner: { appnexus: 0.8 } } }, cache: { bids: { returnCreative: false } }, channel: { name: 'web', version: '1' } } };
    }));
  });

  it('decodes source.ext, regs.ext and user.ext as Prebid Server does, naming the member', () => {
    expectRejected(withRequest((r) => { r.source = { ext: 'x' }; }), 'req.source.ext is invalid: expect { or n, but found " (request.source.ext must be an object)');
    expectRejected(withRequest((r) => { r.source = { ext: { schain: 1 } }; }), 'req.source.ext is invalid: expect { or n, but found 1 (request.source.ext.schain must be an object)');
    expectRejected(withRequest((r) => { r.regs = { ext: { dsa: 1 } }; }), 'req.regs.ext is invalid: expect { or n, but found 1 (request.regs.ext.dsa must be an object)');
    expectRejected(withRequest((r) => { r.regs = { ext: { gpc: 1 } }; }), 'req.regs.ext is invalid: expects " or n, but found 1 (request.regs.ext.gpc must be a string)');
    expectRejected(withRequest((r) => { r.user = { ext: { prebid: 1 } }; }), 'req.user.ext is invalid: expect { or n, but found 1 (request.user.ext.prebid must be an object)');
    expectAccepted(withRequest((r) => { r.source = { tid: 't', ext: { schain: { ver: '1.0' } } }; r.regs = { ext: { dsa: { dsarequired: 1 }, gpc: '1' } }; }));
  });

  it('leaves the service namespace of site.ext, source.ext and regs.ext alone, as Prebid Server never decodes it', () => {
    expectAccepted(withRequest((r) => { r.site.ext = { prebid: 1, svc: 'x' }; r.source = { ext: { prebid: [] } }; r.regs = { ext: { prebid: 'x' } }; }));
    expectRejected(withRequest((r) => { r.device = { ext: { prebid: 1 } }; }), 'expect { or n, but found 1 (request.device.ext.prebid must be an object)');
  });

  it('decodes imp.ext as Prebid Server does: its namespace, data, tid and gpid', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext.data = 'x'; }), 'imp[0].imp.ext is invalid: expect { or n, but found " (request.imp[0].ext.data must be an object)');
    expectRejected(withRequest((r) => { r.imp[0].ext.tid = 1; }), 'imp[0].imp.ext is invalid: expects " or n, but found 1 (request.imp[0].ext.tid must be a string)');
    expectRejected(withRequest((r) => { r.imp[0].ext.gpid = {}; }), 'imp[0].imp.ext is invalid: expects " or n, but found { (request.imp[0].ext.gpid must be a string)');
    expectRejected(withRequest((r) => { r.imp[0].ext = 'x'; }), 'imp[0].imp.ext is invalid: expect { or n, but found " (request.imp[0].ext must be an object)');
    expectRejected(withRequest((r) => { r.imp[0].ext.data = { pbadslot: 1 }; }),
      'imp[0].imp.ext is invalid: cannot unmarshal openrtb_ext.ExtImpData.PbAdslot: expects " or n, but found 1 (in request.imp[0].ext.data)');
    expectRejected(withRequest((r) => { r.imp[0].ext.data = { adserver: { name: 'gam', adslot: 5 } }; }),
      'imp[0].imp.ext is invalid: cannot unmarshal openrtb_ext.ExtImpDataAdServer.AdSlot: expects " or n, but found 5 (in request.imp[0].ext.data)');
    expectAccepted(withRequest((r) => { Object.assign(r.imp[0].ext, { data: { pbadslot: 'a' }, tid: 't', gpid: '/1/a' }); }));
  });

  it('reads each imp.ext.prebid first, as Prebid Server does, and refuses with every one it cannot decode alone', () => {
    const result = validate(withRequest((r) => {
      r.tmax = -1;
      r.imp[0].ext.prebid = 'x';
      r.imp.push({ id: 'imp-2', banner: { w: 1, h: 1 }, ext: { prebid: { bidder: { appnexus: { placementId: 1 } }, options: 1 } } });
      r.imp.push({ id: 'imp-3', banner: { w: 1, h: 1 }, ext: { svc: { is_rewarded_inventory: '1' } } });
    }));
    expect(result?.invalid).to.deep.equal([
      'expect { or n, but found x (in request.imp[0].ext.prebid)',
      'cannot unmarshal openrtb_ext.ExtImpPrebid.Options: expect { or n, but found 1 (in request.imp[1].ext.prebid)',
      'cannot unmarshal openrtb_ext.ExtImpPrebid.IsRewardedInventory: unexpected character: \ufffd (in request.imp[2].ext.svc)',
    ]);
    for (const [member, text] of [
      [{ storedrequest: { id: 5 } }, 'cannot unmarshal openrtb_ext.ExtStoredRequest.ID: expects " or n, but found 5'],
      [{ adunitcode: 5 }, 'cannot unmarshal openrtb_ext.ExtImpPrebid.AdUnitCode: expects " or n, but found 5'],
      [{ floors: { floorrulevalue: '1' } }, 'cannot unmarshal openrtb_ext.ExtImpPrebidFloors.FloorRuleValue: invalid number'],
      [{ bidder: [] }, 'cannot unmarshal openrtb_ext.ExtImpPrebid.Bidder: expect { or n, but found ['],
    ] as const) {
      expectRejected(withRequest((r) => { r.imp[0].ext.prebid = member; }), `${text} (in request.imp[0].ext.prebid)`);
    }
  });

  it('reports every problem it finds, one line each', () => {
    const result = validate(withRequest((r) => { r.tmax = -5; r.device = { w: -1 }; r.imp[0].id = ''; }));
    expect(result?.invalid).to.deep.equal([
      'request.tmax must be nonnegative. Got -5',
      'request.device.w must be a positive number',
      'request.imp[0] missing required field: "id"',
    ]);
  });
});

describe('gavel.validation: site, app and dooh', () => {
  it('requires exactly one of site, app or dooh', () => {
    expectRejected(withRequest((r) => { r.app = { id: 'app' }; }),
      'No more than one of request.site or request.app or request.dooh can be defined');
    expectRejected(withRequest((r) => { delete r.site; }),
      'request.site should include at least one of request.site.id or request.site.page.');
    expectAccepted(withRequest((r) => { delete r.site; r.app = { bundle: 'com.example' }; }));
    expectAccepted(withRequest((r) => { delete r.site; r.dooh = { id: 'screen-9' }; }));
  });

  it('requires site.id or site.page', () => {
    expectRejected(withRequest((r) => { r.site = { domain: 'example.com' }; }),
      'request.site should include at least one of request.site.id or request.site.page.');
    expectAccepted(withRequest((r) => { r.site = { id: 'site-1' }; }));
  });

  it('requires dooh.id or dooh.venuetype', () => {
    expectRejected(withRequest((r) => { delete r.site; r.dooh = { name: 'lobby' }; }),
      'request.dooh should include at least one of request.dooh.id or request.dooh.venuetype.');
    expectAccepted(withRequest((r) => { delete r.site; r.dooh = { venuetype: ['mall'] }; }));
  });

  it('names a site, app or device ext that is no object in the decoder\'s words alone, as Prebid Server reports them', () => {
    expectRejected(withRequest((r) => { r.site.ext = 'x'; }), 'expect { or n, but found " (request.site.ext must be an object)');
    expectRejected(withRequest((r) => { delete r.site; r.app = { id: 'a', ext: [] }; }), 'expect { or n, but found [ (request.app.ext must be an object)');
    expectRejected(withRequest((r) => { delete r.site; r.app = { id: 'a', ext: { prebid: 'x' } }; }), 'expect { or n, but found " (request.app.ext.prebid must be an object)');
    expectRejected(withRequest((r) => { r.device = { ext: 2 }; }), 'expect { or n, but found 2 (request.device.ext must be an object)');
  });

  it('requires app.ext.<ns>.source and version to be strings', () => {
    expectRejected(withRequest((r) => { delete r.site; r.app = { id: 'a', ext: { prebid: { source: { x: 1 } } } }; }),
      'cannot unmarshal openrtb_ext.ExtAppPrebid.Source: expects " or n, but found { (request.app.ext.prebid.source must be a string)');
    expectRejected(withRequest((r) => { delete r.site; r.app = { id: 'a', ext: { svc: { version: 2 } } }; }),
      'cannot unmarshal openrtb_ext.ExtAppPrebid.Version: expects " or n, but found 2 (request.app.ext.svc.version must be a string)');
    expectAccepted(withRequest((r) => { delete r.site; r.app = { id: 'a', ext: { svc: { source: 'sdk', version: '2.1' } } }; }));
  });
});

describe('gavel.validation: device', () => {
  for (const field of ['w', 'h', 'ppi']) {
    it(`requires device.${field} to be non-negative`, () => {
      expectRejected(withRequest((r) => { r.device = { [field]: -1 }; }), `request.device.${field} must be a positive number`);
      expectAccepted(withRequest((r) => { r.device = { [field]: 0 }; }));
    });
  }

  it('requires interstitial percentages between 0 and 100', () => {
    expectRejected(withRequest((r) => { r.device = { ext: { svc: { interstitial: { minwidthperc: 120 } } } }; }),
      'request.device.ext.svc.interstitial.minwidthperc must be a number between 0 and 100');
    expectAccepted(withRequest((r) => { r.device = { ext: { svc: { interstitial: { minwidthperc: 50, minheightperc: 40 } } } }; }));
  });

  it('requires both interstitial percentages, as Prebid Server decodes them', () => {
    expectRejected(withRequest((r) => { r.device = { ext: { svc: { interstitial: { minwidthperc: 50 } } } }; }),
      'request.device.ext.svc.interstitial.minheightperc must be a number between 0 and 100');
    expectRejected(withRequest((r) => { r.device = { ext: { svc: { interstitial: {} } } }; }),
      'request.device.ext.svc.interstitial.minwidthperc must be a number between 0 and 100');
  });
});

describe('gavel.validation: regs', () => {
  it('requires regs.ext to be an object', () => {
    expectRejected(withRequest((r) => { r.regs = { ext: 'malformed' }; }),
      'req.regs.ext is invalid: expect { or n, but found " (request.regs.ext must be an object)');
  });

  it('requires gdpr to be 0 or 1, in regs.ext and in regs', () => {
    // regs.ext.gdpr is moved to regs.gdpr, and judged there, as Prebid Server's upgrade to OpenRTB 2.6 moves it.
    expectRejected(withRequest((r) => { r.regs = { ext: { gdpr: 2 } }; }), 'request.regs.gdpr must be either 0 or 1');
    for (const gdpr of ['1', 1.5, true, 300, {}]) {
      expectRejected(withRequest((r) => { r.regs = { ext: { gdpr } }; }), 'req.regs.ext is invalid: gdpr must be an integer (request.regs.ext.gdpr must be 0 or 1)');
    }
    // Beside a regs.gdpr, Prebid Server drops regs.ext.gdpr without judging its value.
    expectAccepted(withRequest((r) => { r.regs = { gdpr: 1, ext: { gdpr: 5 } }; }));
    expectAccepted(withRequest((r) => { r.regs = { ext: { gdpr: null } }; }));
    expectRejected(withRequest((r) => { r.regs = { gdpr: '1' }; }), 'cannot unmarshal openrtb2.Regs.GDPR: unexpected character: \ufffd (request.regs.gdpr must be an integer)');
    expectRejected(withRequest((r) => { r.regs = { gdpr: 3 }; }), 'request.regs.gdpr must be either 0 or 1');
    expectAccepted(withRequest((r) => { r.regs = { gdpr: 0, ext: { gdpr: 1, us_privacy: '1YNN' } }; }));
  });

  it('requires us_privacy to be a string', () => {
    expectRejected(withRequest((r) => { r.regs = { ext: { us_privacy: 1 } }; }),
      'req.regs.ext is invalid: expects " or n, but found 1 (request.regs.ext.us_privacy must be a string)');
  });
});

describe('gavel.validation: user', () => {
  it('requires user.ext.consent to be a string', () => {
    expectRejected(withRequest((r) => { r.user = { ext: { consent: 1 } }; }),
      'req.user.ext is invalid: expects " or n, but found 1 (request.user.ext.consent must be a string)');
    expectAccepted(withRequest((r) => { r.user = { consent: 'CO-abc', ext: { consent: 'CO-abc' } }; }));
  });

  it('reads buyeruids as Prebid Server\'s user ext struct holds it, in its decoder\'s words', () => {
    expectRejected(withRequest((r) => { r.user = { ext: { prebid: { buyeruids: 'x' } } }; }),
      'req.user.ext is invalid: cannot unmarshal openrtb_ext.ExtUserPrebid.BuyerUIDs: expect { or n, but found " '
      + '(request.user.ext.prebid.buyeruids must map bidder names to user id strings)');
    expectRejected(withRequest((r) => { r.user = { ext: { svc: { buyeruids: { appnexus: 'a', rubicon: 7 } } } }; }),
      'req.user.ext is invalid: cannot unmarshal openrtb_ext.ExtUserPrebid.BuyerUIDs: expects " or n, but found 7 '
      + '(request.user.ext.svc.buyeruids must map bidder names to user id strings)');
  });

  it('requires buyeruids keys to be known bidders or aliases, case-insensitively', () => {
    expectRejected(withRequest((r) => { r.user = { ext: { prebid: { buyeruids: { nobody: 'u1' } } } }; }),
      'request.user.ext.nobody is neither a known bidder name nor an alias in request.ext.prebid.aliases', 'prebid');
    expectAccepted(withRequest((r) => {
      r.user = { ext: { svc: { buyeruids: { AppNexus: 'u1', mine: 'u2' } } } };
      r.ext = { svc: { aliases: { mine: 'rubicon' } } };
    }));
  });

  it("takes a buyeruids key for an alias only as the request spells it, and none for a disabled bidder, as Prebid Server's validateUser", () => {
    const rejected = (r: Json) => validate(r)?.invalid;
    expect(rejected(withRequest((r) => {
      r.user = { ext: { svc: { buyeruids: { MINE: 'u2' } } } };
      r.ext = { svc: { aliases: { mine: 'rubicon' } } };
    }))).to.include('request.user.ext.MINE is neither a known bidder name nor an alias in request.ext.svc.aliases');
    const deps = testDeps();
    deps.bidders.get('pubmatic')!.enabled = false;
    const disabled = validate(withRequest((r) => { r.user = { ext: { svc: { buyeruids: { pubmatic: 'u3' } } } }; }), 'svc', deps);
    expect(disabled?.invalid).to.include('request.user.ext.pubmatic is neither a known bidder name nor an alias in request.ext.svc.aliases');
  });

  it('requires user.ext.<ns> to hold buyer ids, as Prebid Server does', () => {
    const message = (ns: string) =>
      `request.user.ext.${ns} requires a "buyeruids" property with at least one ID defined. If none exist, then request.user.ext.${ns} should not be defined.`;
    expectRejected(withRequest((r) => { r.user = { ext: { svc: { buyeruids: {} } } }; }), message('svc'));
    expectRejected(withRequest((r) => { r.user = { ext: { prebid: {} } }; }), message('prebid'), 'prebid');
    expectAccepted(withRequest((r) => { r.user = { ext: { consent: 'CO-abc' } }; }));
  });

  it('requires user.geo.accuracy not to be negative', () => {
    expectRejected(withRequest((r) => { r.user = { geo: { accuracy: -1 } }; }), 'request.user.geo.accuracy must be a positive number');
    expectAccepted(withRequest((r) => { r.user = { geo: { accuracy: 0 } }; }));
  });
});

describe('gavel.validation: device geo and site.ext.amp', () => {
  it('requires device.geo.accuracy not to be negative', () => {
    expectRejected(withRequest((r) => { r.device = { geo: { accuracy: -20 } }; }), 'request.device.geo.accuracy must be a positive number');
    expectAccepted(withRequest((r) => { r.device = { geo: { accuracy: 20 } }; }));
  });

  it('requires site.ext.amp to be 0 or 1', () => {
    expectRejected(withRequest((r) => { r.site.ext = { amp: 2 }; }), 'request.site.ext.amp must be either 1, 0, or undefined');
    expectRejected(withRequest((r) => { r.site.ext = { amp: -1 }; }), 'request.site.ext.amp must be either 1, 0, or undefined');
    expectAccepted(withRequest((r) => { r.site.ext = { amp: 1 }; }));
  });
});
