import { expect } from 'chai';
import { applyChanges, expectAccepted, expectRejected, testDeps, validate, withRequest } from './support.js';
import { WarningCode } from '../checks/report.js';

describe('gavel.validation: imp bidders', () => {
  it('requires at least one bidder per imp', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext = {}; }), 'request.imp[0].ext.prebid.bidder must contain at least one bidder');
    expectRejected(withRequest((r) => { r.imp[0].ext = {}; r.ext = { svc: {} }; }),
      'request.imp[0].ext.svc.bidder must contain at least one bidder');
  });

  it('counts no bidder switched off on this host, and checks none of its params, as Prebid Server removes it', () => {
    const deps = testDeps();
    (deps.bidders.get('rubicon') as { enabled: boolean }).enabled = false;
    const onlyOff = validate(withRequest((r) => { r.imp[0].ext = { prebid: { bidder: { rubicon: { bad: true } } } }; r.ext = { prebid: {} }; }), 'prebid', deps);
    expect(onlyOff?.action).to.equal('reject');
    expect(onlyOff?.invalid).to.deep.equal(['request.imp[0].ext.prebid.bidder must contain at least one bidder']);
    expectAccepted(withRequest((r) => { r.imp[0].ext = { prebid: { bidder: { rubicon: { bad: true }, appnexus: { placementId: 1 } } } }; r.ext = { prebid: {} }; }), 'prebid', deps);
  });

  it('requires imp.ext, as Prebid Server words it', () => {
    expectRejected(withRequest((r) => { delete r.imp[0].ext; }), 'request.imp[0].ext is required');
  });

  it('rejects an explicitly empty bidder map, whatever else imp.ext holds', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext = { prebid: { bidder: {} }, appnexus: { placementId: 1 } }; }),
      'request.imp[0].ext.prebid.bidder must contain at least one bidder', 'prebid');
  });

  it('accepts params in imp.ext.<bidder> and in imp.ext.<ns>.bidder.<bidder>', () => {
    expectAccepted(withRequest((r) => { r.imp[0].ext = { appnexus: { placementId: 1 } }; }));
    expectAccepted(withRequest((r) => { r.imp[0].ext = { svc: { bidder: { appnexus: { placementId: 1 } } } }; }));
    expectAccepted(withRequest((r) => { r.imp[0].ext = { prebid: { bidder: { rubicon: {} } }, appnexus: { placementId: 1 } }; }), 'prebid');
  });

  it('matches bidder names case-insensitively', () => {
    expectAccepted(withRequest((r) => { r.imp[0].ext = { APPNexus: { placementId: 1 } }; }));
  });

  it('rejects an unknown bidder in the bidder map', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext = { prebid: { bidder: { nobody: {} } } }; r.ext = { prebid: {} }; }),
      'request.imp[0].ext.prebid.bidder contains unknown bidder: nobody. Did you forget an alias in request.ext.prebid.aliases?', 'prebid');
  });

  it('warns about an unknown key directly in imp.ext in Prebid Server words, and keeps it as data', () => {
    const request = withRequest((r) => { r.imp[0].ext.mystery = { a: 1 }; r.imp[0].ext.gpid = '/slot/1'; });
    const result = expectAccepted(request);
    expect(result?.warnings?.general).to.deep.equal([{
      code: WarningCode.UnknownImpExtKey,
      message: "request.imp[0].ext contains unknown bidder: 'mystery', ignoring. "
        + 'If it is an alias, declare it in request.ext.svc.aliases.',
    }]);
    const changed = applyChanges(result, request);
    expect(changed.imp[0].ext).to.deep.equal({ svc: { bidder: { appnexus: { placementId: 42 } } }, mystery: { a: 1 }, gpid: '/slot/1' });
  });

  it('moves the bidders of an imp without a bidder map into one, leaving every other member where it is', () => {
    const request = withRequest((r) => { r.imp[0].ext = { appnexus: { placementId: 1 }, mystery: 2, gpid: 'g', svc: { adunitcode: 'top' } }; });
    const changed = applyChanges(expectAccepted(request), request);
    expect(changed.imp[0].ext).to.deep.equal({ svc: { adunitcode: 'top', bidder: { appnexus: { placementId: 1 } } }, mystery: 2, gpid: 'g' });
    const prebid = withRequest((r) => { r.imp[0].ext = { rubicon: {} }; r.ext = { prebid: {} }; });
    expect(applyChanges(expectAccepted(prebid, 'prebid'), prebid).imp[0].ext).to.deep.equal({ prebid: { bidder: { rubicon: {} } } });
  });

  it('leaves direct-form bidders where they are when the imp has a bidder map', () => {
    const request = withRequest((r) => { r.imp[0].ext = { prebid: { bidder: { rubicon: {} } }, appnexus: { placementId: 1 } }; });
    const result = expectAccepted(request, 'prebid');
    expect(result === undefined ? request : applyChanges(result, request)).to.deep.equal(request);
  });

  it('never treats reserved imp.ext keys as bidders', () => {
    const result = expectAccepted(withRequest((r) => {
      Object.assign(r.imp[0].ext, { context: {}, data: {}, gpid: 'g', skadn: {}, tid: 't', ae: 1, igs: {}, bidder: {} });
    }));
    expect(result).to.equal(undefined);
  });

  it('validates bidder params against the bidder schema', () => {
    expectRejected(withRequest((r) => { r.imp[0].ext = { svc: { bidder: { appnexus: { placementId: 'x' } } } }; }),
      'request.imp[0].ext.svc.bidder.appnexus failed validation.\nplacementId: must be a number');
    expectRejected(withRequest((r) => { r.imp[0].ext = { AppNexus: {} }; }),
      'request.imp[0].ext.svc.bidder.AppNexus failed validation.\nplacementId: must be a number');
  });

  it('validates an alias\'s params with its bidder\'s schema', () => {
    expectRejected(withRequest((r) => { r.ext = { svc: { aliases: { districtm: 'appnexus' } } }; r.imp[0].ext.districtm = {}; }),
      'request.imp[0].ext.svc.bidder.districtm failed validation.\nplacementId: must be a number');
    expectAccepted(withRequest((r) => { r.ext = { svc: { aliases: { districtm: 'AppNexus' } } }; r.imp[0].ext.districtm = { placementId: 5 }; }));
  });

  it('knows the bidders of the host it runs on', () => {
    const deps = testDeps(['appnexus', 'hostalias']);
    expectAccepted(withRequest((r) => { r.imp[0].ext.hostalias = {}; }), 'svc', deps);
    expect(validate(withRequest((r) => { r.imp[0].ext = { svc: { bidder: { rubicon: {} } } }; }), 'svc', deps)?.action).to.equal('reject');
  });
});

describe('gavel.validation: aliases', () => {
  it('rejects an alias of itself', () => {
    expectRejected(withRequest((r) => { r.ext = { prebid: { aliases: { appnexus: 'appnexus' } } }; }),
      'request.ext.prebid.aliases.appnexus defines a no-op alias. Choose a different alias, or remove this entry.', 'prebid');
  });

  it('rejects an alias of an unknown bidder', () => {
    expectRejected(withRequest((r) => { r.ext = { svc: { aliases: { mine: 'nobody' } } }; }),
      'request.ext.svc.aliases.mine refers to unknown bidder: nobody');
    expectRejected(withRequest((r) => { r.ext = { svc: { aliases: { mine: 3 } } }; }),
      'request.ext.svc.aliases.mine must be a string naming a known bidder');
    expectAccepted(withRequest((r) => { r.ext = { svc: { aliases: { mine: 'rubicon' } } }; }));
  });
});

describe('gavel.validation: bid adjustment factors', () => {
  const withFactors = (factors: unknown, aliases?: Record<string, string>) =>
    withRequest((r) => { r.ext = { svc: { bidadjustmentfactors: factors, ...(aliases ? { aliases } : {}) } }; });

  it('requires positive factors', () => {
    expectRejected(withFactors({ appnexus: -2 }), 'request.ext.svc.bidadjustmentfactors.appnexus must be a positive number. Got -2.000000');
    expectRejected(withFactors({ appnexus: 0 }), 'request.ext.svc.bidadjustmentfactors.appnexus must be a positive number. Got 0.000000');
    expectRejected(withFactors({ appnexus: '1' }), 'request.ext.svc.bidadjustmentfactors.appnexus must be a positive number. Got "1"');
    expectAccepted(withFactors({ appnexus: 0.9 }));
  });

  it('requires factors to name known bidders or aliases, case-insensitively', () => {
    expectRejected(withFactors({ nobody: 1.1 }), 'request.ext.svc.bidadjustmentfactors.nobody is not a known bidder or alias');
    expectAccepted(withFactors({ APPNEXUS: 1.1, mine: 0.8 }, { mine: 'rubicon' }));
  });

  it('rejects two entries that differ only by case', () => {
    expectRejected(withFactors({ APPNEXUS: 1.01, Appnexus: 2 }),
      'cannot have multiple bidders that differ only in case style: request.ext.svc.bidadjustmentfactors names "APPNEXUS", "Appnexus". '
      + 'Keep one entry per bidder.');
  });

  it('checks per-media-type factors the same way', () => {
    expectRejected(withFactors({ mediatypes: { banner: { rubicon: -1 } } }),
      'request.ext.svc.bidadjustmentfactors.mediatypes.banner.rubicon must be a positive number. Got -1.000000');
    expectAccepted(withFactors({ appnexus: 1, mediatypes: { video: { rubicon: 0.5 } } }));
  });
});

describe('gavel.validation: bidders the host switched off', () => {
  const switchedOff = (): ReturnType<typeof testDeps> => {
    const deps = testDeps();
    (deps.bidders as Map<string, { adapter: string; capabilities: object; enabled: boolean }>).get('rubicon')!.enabled = false;
    return deps;
  };
  const disabledWarning = {
    code: 6,
    message: 'Bidder "rubicon" has been disabled on this instance of Prebid Server. Please work with the PBS host to enable this bidder again.',
  };

  it('drops them from the imp with Prebid Server\'s warning, in either form', () => {
    for (const ext of [{ appnexus: { placementId: 1 }, rubicon: {} }, { svc: { bidder: { appnexus: { placementId: 1 }, rubicon: {} } } }]) {
      const request = withRequest((r) => { r.imp[0].ext = ext; });
      const result = expectAccepted(request, 'svc', switchedOff());
      expect(result?.warnings?.general).to.deep.equal([disabledWarning]);
      expect(applyChanges(result, request).imp[0].ext).to.deep.equal({ svc: { bidder: { appnexus: { placementId: 1 } } } });
    }
  });

  it('refuses an imp left without a bidder', () => {
    const result = validate(withRequest((r) => { r.imp[0].ext = { prebid: { bidder: { rubicon: {} } } }; }), 'svc', switchedOff());
    expect(result?.invalid).to.deep.equal(['request.imp[0].ext.prebid.bidder must contain at least one bidder']);
    expect(result?.warnings?.general).to.deep.equal([disabledWarning]);
  });
});

describe('gavel.validation: bidders Prebid Server no longer has', () => {
  const removed = { code: 6, message: 'Bidder "groupm" is no longer available in Prebid Server. Please update your configuration.' };

  it('drops them from the imp with Prebid Server\'s message, in either form', () => {
    for (const ext of [{ appnexus: { placementId: 1 }, groupm: {} }, { svc: { bidder: { appnexus: { placementId: 1 }, groupm: {} } } }]) {
      const request = withRequest((r) => { r.imp[0].ext = ext; });
      const result = expectAccepted(request);
      expect(result?.warnings?.general).to.deep.equal([removed]);
      expect(applyChanges(result, request).imp[0].ext).to.deep.equal({ svc: { bidder: { appnexus: { placementId: 1 } } } });
    }
  });

  it('refuses an imp left without a bidder, and tells how to rename one', () => {
    const result = validate(withRequest((r) => { r.imp[0].ext = { yssp: {} }; }));
    expect(result?.invalid).to.deep.equal(['request.imp[0].ext.prebid.bidder must contain at least one bidder']);
    expect(result?.warnings?.general).to.deep.equal([{
      code: 6,
      message: 'Bidder "yssp" is no longer available in Prebid Server. If you\'re looking to use the Yahoo SSP adapter, please rename it to "yahooAds" in your configuration.',
    }]);
  });
});
