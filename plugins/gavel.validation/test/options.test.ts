import { expect } from 'chai';
import { applyChanges, expectAccepted, expectRejected, testDeps, validate, withRequest } from './support.js';

const withOptions = (options: Record<string, unknown>, namespace: 'svc' | 'prebid' = 'svc') =>
  withRequest((r) => { r.ext = { [namespace]: options }; });

describe('gavel.validation: targeting', () => {
  it('rejects includewinners and includebidderkeys both false', () => {
    expectRejected(withOptions({ targeting: { includewinners: false, includebidderkeys: false } }),
      'request.ext.svc.targeting: at least one of includewinners or includebidderkeys must be true');
    expectAccepted(withOptions({ targeting: { includewinners: false } }));
  });

  it('accepts both false when includeformat is asked for', () => {
    expectAccepted(withOptions({ targeting: { includewinners: false, includebidderkeys: false, includeformat: true } }));
  });

  it('requires the include flags to be booleans', () => {
    expectRejected(withOptions({ targeting: { includebidderkeys: 'yes' } }), 'request.ext.svc.targeting.includebidderkeys must be a boolean');
  });

  it('accepts the legacy granularity names and rejects others', () => {
    for (const name of ['low', 'med', 'medium', 'high', 'auto', 'dense']) {
      expectAccepted(withOptions({ targeting: { pricegranularity: name } }));
    }
    expectRejected(withOptions({ targeting: { pricegranularity: 'fine' } }),
      'request.ext.svc.targeting.pricegranularity must be one of "low", "med", "medium", "high", "auto", "dense", '
      + 'or an object with "ranges". Got "fine"');
  });

  it('rejects a negative precision, in Prebid Server\'s words first', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { precision: -1, ranges: [{ max: 5, increment: 0.1 }] } } }),
      'Price granularity error: precision must be non-negative (request.ext.svc.targeting.pricegranularity.precision is -1)');
    expectRejected(withOptions({ targeting: { pricegranularity: { precision: 1.5, ranges: [{ max: 5, increment: 0.1 }] } } }),
      'request.ext.svc.targeting.pricegranularity.precision must be a non-negative integer. Got 1.5');
    expectAccepted(withOptions({ targeting: { pricegranularity: { precision: 0, ranges: [{ max: 5, increment: 1 }] } } }));
  });

  it('rejects ranges that do not increase by max', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { ranges: [{ max: 10, increment: 0.5 }, { max: 5, increment: 0.1 }] } } }),
      'Price granularity error: range list must be ordered with increasing "max" '
      + '(request.ext.svc.targeting.pricegranularity.ranges[1].max is 5; it must be a number greater than 10)');
    expectAccepted(withOptions({ targeting: { pricegranularity: { ranges: [{ max: 5, increment: 0.1 }, { max: 10, increment: 0.5 }] } } }));
  });

  it('rejects a non-positive increment', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { ranges: [{ max: 5, increment: 0 }] } } }),
      'Price granularity error: increment must be a nonzero positive number (request.ext.svc.targeting.pricegranularity.ranges[0].increment is 0)');
  });

  it('rejects a precision past what a float holds', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { precision: 16, ranges: [{ max: 5, increment: 0.1 }] } } }),
      'Price granularity error: precision of more than 15 significant figures is not supported (request.ext.svc.targeting.pricegranularity.precision is 16)');
    expectAccepted(withOptions({ targeting: { pricegranularity: { precision: 15, ranges: [{ max: 5, increment: 0.1 }] } } }));
  });

  it('requires at least one range', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { precision: 2 } } }),
      'request.ext.svc.targeting.pricegranularity.ranges must be an array of at least one {max, increment}');
  });

  it('checks per-media-type granularities the same way', () => {
    expectRejected(withOptions({ targeting: { mediatypepricegranularity: { video: { ranges: [{ max: 5, increment: -1 }] } } } }),
      'Price granularity error: increment must be a nonzero positive number (request.ext.svc.targeting.mediatypepricegranularity.video.ranges[0].increment is -1)');
    expectAccepted(withOptions({ targeting: { mediatypepricegranularity: { video: { ranges: [{ max: 50, increment: 1 }] } } } }));
    // A member naming no media type is ignored, as Prebid Server's struct has no field for it.
    expectAccepted(withOptions({ targeting: { mediatypepricegranularity: { foo: 1, video: 'high' } } }));
  });

  it('names the namespace the request used', () => {
    expectRejected(withOptions({ targeting: { includewinners: false, includebidderkeys: false } }, 'prebid'),
      'request.ext.prebid.targeting: at least one of includewinners or includebidderkeys must be true', 'prebid');
  });
});

describe('gavel.validation: cache', () => {
  it('requires bids or vastxml', () => {
    expectRejected(withOptions({ cache: {} }), 'request.ext is invalid: request.ext.svc.cache requires one of the "bids" or "vastxml" properties');
    expectAccepted(withOptions({ cache: { vastxml: {} } }));
    expectAccepted(withOptions({ cache: { bids: {} } }));
  });
});

describe('gavel.validation: stored requests', () => {
  it('requires the request-level stored request id to be a string', () => {
    expectRejected(withOptions({ storedrequest: { id: 13 } }), 'ext.svc.storedrequest.id must be a string');
    expectAccepted(withOptions({ storedrequest: { id: '13' } }));
  });

  it('requires an imp-level stored request id to be a string, in the words of Prebid Server\'s decoder', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext.svc.storedrequest = { id: 4 }; }),
      'cannot unmarshal openrtb_ext.ExtStoredRequest.ID: expects " or n, but found 4 (in request.imp[0].ext.svc)');
    expectAccepted(withRequest((r) => { r.imp[0].ext.svc.storedrequest = { id: 'imp-4' }; }));
  });
});

describe('gavel.validation: multibid', () => {
  it("warns (10006) and normalises multibid entries as Prebid Server does, keeping the ones that stand", () => {
    const request = withOptions({
      multibid: [
        { bidder: 'appnexus' },
        { maxbids: -1, bidder: 'rubicon', targetbiddercodeprefix: 'rubN' },
        { maxbids: 10, bidder: 'pubmatic', targetbiddercodeprefix: 'pm' },
        { maxbids: 4, bidder: 'pubmatic', targetbiddercodeprefix: 'pubM' },
        { maxbids: 5, bidder: 'groupm', bidders: ['someBidder'], targetbiddercodeprefix: 'gm' },
        { maxbids: 6, bidders: ['groupm'] },
        { maxbids: 7, bidders: ['33across'], targetbiddercodeprefix: 'abc' },
        { maxbids: 8, targetbiddercodeprefix: 'xyz' },
      ],
    }, 'prebid');
    const result = expectAccepted(request, 'prebid');
    expect(result?.warnings?.general.map((warning) => `${warning.code} ${warning.message}`)).to.deep.equal([
      '10006 maxBids not defined for {Bidder:appnexus, Bidders:[], MaxBids:<nil>, TargetBidderCodePrefix:}',
      '10006 invalid maxBids value, using minimum 1 limit for {Bidder:rubicon, Bidders:[], MaxBids:-1, TargetBidderCodePrefix:rubN}',
      '10006 invalid maxBids value, using maximum 9 limit for {Bidder:pubmatic, Bidders:[], MaxBids:10, TargetBidderCodePrefix:pm}',
      '10006 multiBid already defined for pubmatic, ignoring this instance {Bidder:pubmatic, Bidders:[], MaxBids:4, TargetBidderCodePrefix:pubM}',
      '10006 ignoring bidders from {Bidder:groupm, Bidders:[someBidder], MaxBids:5, TargetBidderCodePrefix:gm}',
      '10006 multiBid already defined for groupm, ignoring this instance {Bidder:, Bidders:[groupm], MaxBids:6, TargetBidderCodePrefix:}',
      '10006 ignoring targetbiddercodeprefix for {Bidder:, Bidders:[33across], MaxBids:7, TargetBidderCodePrefix:abc}',
      '10006 bidder(s) not specified for {Bidder:, Bidders:[], MaxBids:8, TargetBidderCodePrefix:xyz}',
    ]);
    expect(applyChanges(result, request).ext.prebid.multibid).to.deep.equal([
      { bidder: 'rubicon', maxbids: 1, targetbiddercodeprefix: 'rubN' },
      { bidder: 'pubmatic', maxbids: 9, targetbiddercodeprefix: 'pm' },
      { bidder: 'groupm', maxbids: 5, targetbiddercodeprefix: 'gm' },
      { maxbids: 7, bidders: ['33across'] },
    ]);
  });

  it('leaves a valid multibid as it is, and refuses one that is not a list of objects', () => {
    const valid = withOptions({ multibid: [{ bidder: 'appnexus', maxbids: 3, targetbiddercodeprefix: 'apn' }] });
    const result = expectAccepted(valid);
    expect(result?.warnings).to.equal(undefined);
    expectRejected(withOptions({ multibid: { bidder: 'appnexus' } }), 'request.ext.svc.multibid must be an array of {"bidder" or "bidders", "maxbids", "targetbiddercodeprefix"}');
  });
});

describe('gavel.validation: brand categories and durations', () => {
  it('requires a known primary ad server when categories are translated', () => {
    expectRejected(withOptions({ targeting: { includebrandcategory: { primaryadserver: 3, withcategory: true } } }),
      'request.ext.svc.targeting.includebrandcategory.primaryadserver 3 not recognized: use 1 (FreeWheel) or 2 (Google Ad Manager), or "translatecategories": false');
    expectAccepted(withOptions({ targeting: { includebrandcategory: { primaryadserver: 3, withcategory: true, translatecategories: false } } }));
    expectAccepted(withOptions({ targeting: { includebrandcategory: { primaryadserver: 1, withcategory: true }, durationrangesec: [15, 30] } }));
  });

  it('requires durations in whole seconds', () => {
    expectRejected(withOptions({ targeting: { durationrangesec: [15, -30] } }), 'request.ext.svc.targeting.durationrangesec must be an array of durations in seconds (positive integers)');
  });
});

describe('gavel.validation: bidder controls', () => {
  it('requires prefmtype to be a media type', () => {
    expectRejected(withOptions({ biddercontrols: { appnexus: { prefmtype: 'print' } } }), 'request.ext.svc.biddercontrols.appnexus.prefmtype must be one of "banner", "video", "audio", "native". Got "print"');
    expectAccepted(withOptions({ biddercontrols: { appnexus: { prefmtype: 'video' } } }));
  });
});

describe('gavel.validation: aliasgvlids, eidpermissions and channel, in Prebid Server\'s words', () => {
  it('requires each aliasgvlids entry to name a request alias and a vendor id of at least 1', () => {
    expectRejected(withOptions({ aliasgvlids: { foo: 10 } }), 'request.ext.svc.aliasgvlids. vendorId 10 refers to unknown bidder alias: foo');
    expectRejected(withOptions({ aliases: { foo: 'appnexus' }, aliasgvlids: { foo: 0 } }),
      'request.ext.svc.aliasgvlids. Invalid vendorId 0 for alias: foo. Choose a different vendorId, or remove this entry.');
    expectAccepted(withOptions({ aliases: { foo: 'appnexus' }, aliasgvlids: { foo: 32 } }));
  });

  it('requires each eidpermissions rule to name a new source and known bidders, or "*" alone', () => {
    const rule = (eidpermissions: unknown) => withOptions({ data: { eidpermissions } });
    expectRejected(rule([{ bidders: ['appnexus'] }]), 'request.ext.svc.data.eidpermissions[0] missing required field: "source"');
    expectRejected(rule([{ source: 'a.com', bidders: ['appnexus'] }, { source: 'a.com', bidders: ['*'] }]),
      'request.ext.svc.data.eidpermissions[1] duplicate entry with field: "source"');
    expectRejected(rule([{ source: 'a.com', bidders: [] }]), 'request.ext.svc.data.eidpermissions[0] missing or empty required field: "bidders"');
    expectRejected(rule([{ source: 'a.com', bidders: ['nosuchbidder'] }]), 'request.ext.svc.data.eidpermissions[0] contains unrecognized bidder "nosuchbidder"');
    expectRejected(rule([{ source: 'a.com', bidders: ['*', 'appnexus'] }]),
      'request.ext.svc.data.eidpermissions[0] contains bidder wildcard "*" mixed with specific bidders');
    expectAccepted(rule([{ source: 'a.com', bidders: ['*'] }, { source: 'b.com', bidders: ['AppNexus'] }]));
    expectAccepted(withOptions({ aliases: { foo: 'appnexus' }, data: { eidpermissions: [{ source: 'a.com', bidders: ['foo'] }] } }));
  });

  it('takes request aliases in eidpermissions only as spelt, and no host bidder that is switched off, as Prebid Server does', () => {
    expectRejected(withOptions({ aliases: { MyAlias: 'appnexus' }, data: { eidpermissions: [{ source: 'a.com', bidders: ['myalias'] }] } }),
      'request.ext.svc.data.eidpermissions[0] contains unrecognized bidder "myalias"');
    const base = testDeps();
    const deps = { ...base, bidders: new Map([...base.bidders].map(([name, entry]) => [name, name === 'rubicon' ? { ...entry, enabled: false } : entry])) };
    const result = validate(withOptions({ data: { eidpermissions: [{ source: 'a.com', bidders: ['rubicon'] }] } }), 'svc', deps);
    expect(result?.invalid).to.include('request.ext.svc.data.eidpermissions[0] contains unrecognized bidder "rubicon"');
  });

  it('requires a channel the request names to have a name', () => {
    expectRejected(withOptions({ channel: { name: '', version: '1.0' } }), "ext.svc.channel.name can't be empty");
    expectRejected(withOptions({ channel: { version: '1.0' } }), "ext.svc.channel.name can't be empty");
    expectAccepted(withOptions({ channel: { name: 'web', version: '' } }));
  });
});

describe('gavel.validation: nosale, as Prebid Server\'s CCPA policy reads it', () => {
  it('accepts "*" alone, and bidders or request aliases', () => {
    expectAccepted(withOptions({ nosale: ['*'] }));
    expectAccepted(withOptions({ nosale: ['appnexus', 'friend'], aliases: { friend: 'rubicon' } }));
  });

  it('rejects "*" beside bidders', () => {
    expectRejected(withOptions({ nosale: ['*', 'appnexus'] }, 'prebid'),
      'request.ext.prebid.nosale is invalid: can only specify all bidders if no other bidders are provided');
  });

  it('rejects a name that is neither a host bidder nor a request alias, the first problem met', () => {
    expectRejected(withOptions({ nosale: ['appnexus', 'nobody', '*'] }, 'prebid'), "request.ext.prebid.nosale is invalid: unrecognized bidder 'nobody'");
    expectRejected(withOptions({ nosale: ['friend'], aliases: { Friend: 'rubicon' } }, 'prebid'), "request.ext.prebid.nosale is invalid: unrecognized bidder 'friend'");
  });

  it('does not look at the list when the US privacy string cannot be read (that is a warning first)', () => {
    expectAccepted(withRequest((r) => { r.ext = { prebid: { nosale: ['nobody'] } }; r.regs = { us_privacy: '2YYN' }; }));
    expectRejected(withRequest((r) => { r.ext = { prebid: { nosale: ['nobody'] } }; r.regs = { us_privacy: '1YYN' }; }), "request.ext.prebid.nosale is invalid: unrecognized bidder 'nobody'");
  });
});
