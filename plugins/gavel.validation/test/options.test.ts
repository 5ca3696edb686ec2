import { expectAccepted, expectRejected, withRequest } from './support.js';

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

  it('rejects a negative precision', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { precision: -1, ranges: [{ max: 5, increment: 0.1 }] } } }),
      'request.ext.svc.targeting.pricegranularity.precision must be a non-negative integer. Got -1');
    expectAccepted(withOptions({ targeting: { pricegranularity: { precision: 0, ranges: [{ max: 5, increment: 1 }] } } }));
  });

  it('rejects ranges that do not increase by max', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { ranges: [{ max: 10, increment: 0.5 }, { max: 5, increment: 0.1 }] } } }),
      'request.ext.svc.targeting.pricegranularity.ranges[1].max must be a number greater than 10 '
      + '(ranges are listed in increasing order of "max"). Got 5');
    expectAccepted(withOptions({ targeting: { pricegranularity: { ranges: [{ max: 5, increment: 0.1 }, { max: 10, increment: 0.5 }] } } }));
  });

  it('rejects a non-positive increment', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { ranges: [{ max: 5, increment: 0 }] } } }),
      'request.ext.svc.targeting.pricegranularity.ranges[0].increment must be a positive number. Got 0');
  });

  it('requires at least one range', () => {
    expectRejected(withOptions({ targeting: { pricegranularity: { precision: 2 } } }),
      'request.ext.svc.targeting.pricegranularity.ranges must be an array of at least one {max, increment}');
  });

  it('checks per-media-type granularities the same way', () => {
    expectRejected(withOptions({ targeting: { mediatypepricegranularity: { video: { ranges: [{ max: 5, increment: -1 }] } } } }),
      'request.ext.svc.targeting.mediatypepricegranularity.video.ranges[0].increment must be a positive number. Got -1');
    expectAccepted(withOptions({ targeting: { mediatypepricegranularity: { video: { ranges: [{ max: 50, increment: 1 }] } } } }));
  });

  it('names the namespace the request used', () => {
    expectRejected(withOptions({ targeting: { includewinners: false, includebidderkeys: false } }, 'prebid'),
      'request.ext.prebid.targeting: at least one of includewinners or includebidderkeys must be true', 'prebid');
  });
});

describe('gavel.validation: cache', () => {
  it('requires bids or vastxml', () => {
    expectRejected(withOptions({ cache: {} }), 'request.ext.svc.cache requires one of the "bids" or "vastxml" properties');
    expectAccepted(withOptions({ cache: { vastxml: {} } }));
    expectAccepted(withOptions({ cache: { bids: {} } }));
  });
});

describe('gavel.validation: stored requests', () => {
  it('requires the request-level stored request id to be a string', () => {
    expectRejected(withOptions({ storedrequest: { id: 13 } }), 'ext.svc.storedrequest.id must be a string');
    expectAccepted(withOptions({ storedrequest: { id: '13' } }));
  });

  it('requires an imp-level stored request id to be a string', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext.svc = { storedrequest: { id: 4 } }; }),
      'request.imp[0].ext.svc.storedrequest.id must be a string');
    expectAccepted(withRequest((r) => { r.imp[0].ext.svc = { storedrequest: { id: 'imp-4' } }; }));
  });
});
