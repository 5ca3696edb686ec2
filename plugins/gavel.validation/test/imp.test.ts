import { expect } from 'chai';
import { createRequestValidator } from '../request-validator.js';
import { applyChanges, expectAccepted, expectRejected, validate, withRequest, type Json } from './support.js';

const withImp = (edit: (imp: Json) => void): Json => withRequest((r) => edit(r.imp[0]));

/** A 400 with a line that starts with `message` (the rest points at the spec, or says how to fix it). */
function expectRejectedWith(request: Json, message: string): void {
  const result = validate(request, 'svc');
  expect(result?.action).to.equal('reject');
  expect(result?.invalid?.some((line) => line.startsWith(message)), `${JSON.stringify(result?.invalid)} has a line starting ${message}`).to.equal(true);
}

describe('gavel.validation: imps', () => {
  it('requires each imp to have an id', () => {
    expectRejected(withImp((imp) => { delete imp.id; }), 'request.imp[0] missing required field: "id"');
  });

  it("refuses each imp whose ext.<ns> does not decode as Prebid Server's ExtImpPrebid, first, with the decoder's text", () => {
    const request = withRequest((r) => {
      r.imp[0].ext.svc = { storedrequest: 'rectangle' };
      r.imp.push({ ...structuredClone(r.imp[0]), id: 'imp-2', ext: { ...r.imp[0].ext, svc: { storedauctionresponse: 5, options: { echovideoattrs: 'yes' } } } });
      r.imp.push({ ...structuredClone(r.imp[0]), id: 'imp-3', ext: { ...r.imp[0].ext, svc: { storedrequest: { id: ['x'] } } } });
      r.imp.push({ ...structuredClone(r.imp[0]), id: 'imp-4', ext: { ...r.imp[0].ext, svc: null } });
      r.tmax = -1;
    });
    expect(validate(request)?.invalid).to.deep.equal([
      'cannot unmarshal openrtb_ext.ExtImpPrebid.StoredRequest: expect { or n, but found " (in request.imp[0].ext.svc)',
      'cannot unmarshal openrtb_ext.ExtImpPrebid.StoredAuctionResponse: expect { or n, but found 5 (in request.imp[1].ext.svc)',
      'cannot unmarshal openrtb_ext.ExtStoredRequest.ID: expects " or n, but found [ (in request.imp[2].ext.svc)',
    ]);
  });

  it('requires imp ids to be unique', () => {
    const request = withRequest((r) => { r.imp.push({ ...r.imp[0] }); });
    expectRejected(request, 'request.imp[0].id and request.imp[1].id are both "imp-1". Imp IDs must be unique.');
    request.imp[1].id = 'imp-2';
    expectAccepted(request);
  });

  it('requires imp ids to be unique in a request with many imps too', () => {
    const request = withRequest((r) => {
      for (let index = 1; index < 30; index++) r.imp.push({ ...r.imp[0], id: `imp-${index + 1}` });
    });
    expectAccepted(request);
    request.imp[25].id = 'imp-3';
    expectRejected(request, 'request.imp[2].id and request.imp[25].id are both "imp-3". Imp IDs must be unique.');
  });

  it('requires at least one media type', () => {
    expectRejected(withImp((imp) => { delete imp.banner; }),
      'request.imp[0] must contain at least one of "banner", "video", "audio", or "native"');
    expectAccepted(withImp((imp) => { delete imp.banner; imp.audio = { mimes: ['audio/mp4'] }; }));
  });

  it('rejects deprecated size ranges directly on the imp', () => {
    expectRejected(withImp((imp) => { imp.hmax = 90; }),
      'request.imp[0] uses unsupported property: "hmax". Use the "banner.format" array instead.');
  });

  it('rejects imp.metric', () => {
    expectRejected(withImp((imp) => { imp.metric = [{ type: 'viewability', value: 0.8 }]; }),
      'request.imp[0].metric is not yet supported by prebid-server. Support may be added in the future');
    expectAccepted(withImp((imp) => { imp.metric = []; }));
  });

  it('requires pmp deals to have an id', () => {
    expectRejected(withImp((imp) => { imp.pmp = { deals: [{ id: 'd1' }, { bidfloor: 2 }] }; }),
      'request.imp[0].pmp.deals[1] missing required field: "id"');
    expectAccepted(withImp((imp) => { imp.pmp = { private_auction: 1, deals: [{ id: 'd1' }] }; }));
  });
});

describe('gavel.validation: banner', () => {
  for (const field of ['wmin', 'wmax', 'hmin', 'hmax']) {
    it(`rejects the deprecated banner.${field}`, () => {
      expectRejected(withImp((imp) => { imp.banner[field] = 50; }),
        `request.imp[0].banner uses unsupported property: "${field}". Use the "format" array instead.`);
    });
  }

  it('requires sizes, unless the imp is interstitial', () => {
    const noSizes = 'request.imp[0].banner has no sizes. Define "w" and "h", or include "format" elements.';
    expectRejected(withImp((imp) => { imp.banner = { h: 250 }; }), noSizes);
    expectRejected(withImp((imp) => { imp.banner = { format: [] }; }), noSizes);
    expectAccepted(withImp((imp) => { imp.banner = { w: 300, h: 250 }; }));
    expectAccepted(withImp((imp) => { imp.banner = {}; imp.instl = 1; }));
  });

  it('requires non-negative banner sizes', () => {
    expectRejected(withImp((imp) => { imp.banner = { w: -300, h: 250 }; }), 'request.imp[0].banner.w must be a positive number');
  });

  it('requires each format to be {w, h} or {wmin, wratio, hratio}, non-zero', () => {
    expectRejected(withImp((imp) => { imp.banner.format = [{ w: 300, h: -1 }]; }),
      'request.imp[0].banner.format[0].h must be a positive number');
    expectRejected(withImp((imp) => { imp.banner.format = [{ w: 300, h: 250 }, { w: 320, h: 0 }]; }),
      'Request imp[0].banner.format[1] must define non-zero "h" and "w" properties.');
    expectRejected(withImp((imp) => { imp.banner.format = [{ w: 300, wratio: 16 }]; }),
      'Request imp[0].banner.format[0] should define *either* {w, h} *or* {wmin, wratio, hratio}, but not both. '
      + 'If both are valid, send two "format" objects in the request.');
    expectRejected(withImp((imp) => { imp.banner.format = [{ wmin: 300, wratio: 16 }]; }),
      'Request imp[0].banner.format[0] must define non-zero "wmin", "wratio", and "hratio" properties.');
    expectRejected(withImp((imp) => { imp.banner.format = [{}]; }),
      'Request imp[0].banner.format[0] should define *either* {w, h} (for static size requirements) *or* '
      + '{wmin, wratio, hratio} (for flexible sizes) to be non-zero.');
    expectAccepted(withImp((imp) => { imp.banner.format = [{ w: 300, h: 250 }, { wmin: 300, wratio: 16, hratio: 9 }]; }));
  });
});

describe('gavel.validation: video and audio', () => {
  it('requires video.mimes', () => {
    expectRejected(withImp((imp) => { imp.video = {}; }), 'request.imp[0].video.mimes must contain at least one supported MIME type');
    expectAccepted(withImp((imp) => { imp.video = { mimes: ['video/mp4'], w: 640, h: 480 }; }));
  });

  it('requires non-negative video counters', () => {
    expectRejected(withImp((imp) => { imp.video = { mimes: ['video/mp4'], minbitrate: -1 }; }),
      'request.imp[0].video.minbitrate must be a positive number');
    expectRejected(withImp((imp) => { imp.video = { mimes: ['video/mp4'], maxbitrate: -1 }; }),
      'request.imp[0].video.maxbitrate must be a positive number');
  });

  it('requires audio.mimes and non-negative audio counters', () => {
    expectRejected(withImp((imp) => { imp.audio = { mimes: [] }; }), 'request.imp[0].audio.mimes must contain at least one supported MIME type');
    expectRejected(withImp((imp) => { imp.audio = { mimes: ['audio/mp4'], sequence: -1 }; }),
      'request.imp[0].audio.sequence must be a positive number');
    expectAccepted(withImp((imp) => { imp.audio = { mimes: ['audio/mp4'], sequence: 1, maxbitrate: 128 }; }));
  });
});

describe('gavel.validation: native', () => {
  const nativeImp = (request: unknown): (imp: Json) => void => (imp) => {
    delete imp.banner;
    imp.native = { ver: '1.2', request: typeof request === 'string' ? request : JSON.stringify(request) };
  };

  it('requires native.request', () => {
    expectRejected(withImp((imp) => { delete imp.banner; imp.native = {}; }), 'request.imp[0].native missing required property "request"');
  });

  it('reads native.request as Prebid Server decodes it, in its decoder\'s words', () => {
    expectRejected(withImp(nativeImp({ context: '1', assets: [{ title: { len: 90 } }] })),
      'cannot unmarshal request.Request.Context: unexpected character: \ufffd (in request.imp[0].native.request)');
    expectRejected(withImp(nativeImp({ assets: 'x' })),
      'cannot unmarshal request.Request.Assets: decode slice: expect [ or n, but found " (in request.imp[0].native.request)');
    expectRejected(withImp(nativeImp({ assets: [{ title: { len: 90 } }, { video: { mimes: ['v'], protocols: ['2'] } }] })),
      'cannot unmarshal []adcom1.MediaCreativeSubtype: unexpected character: \ufffd (in request.imp[0].native.request)');
    expectRejected(withImp(nativeImp({ ver: 1.2, assets: [{ title: { len: 90 } }] })),
      'cannot unmarshal request.Request.Ver: expects " or n, but found 1 (in request.imp[0].native.request)');
  });

  it('requires native.request to be a JSON object string', () => {
    expectRejected(withImp(nativeImp('{not json')),
      'request.imp[0].native.request must be a JSON encoded string conforming to the openrtb 1.2 Native spec');
  });

  it('requires at least one asset, each of exactly one kind', () => {
    expectRejected(withImp(nativeImp({ assets: [] })),
      'request.imp[0].native.request.assets must be an array containing at least one object');
    expectRejected(withImp(nativeImp({ assets: [{ title: { len: 90 }, img: { type: 3 } }] })),
      'request.imp[0].native.request.assets[0] must define exactly one of {title, img, video, data}');
  });

  it('checks each asset kind as it meets it, and the asset before its id, as Prebid Server does', () => {
    expectRejected(withImp(nativeImp({ assets: [{ title: {}, img: { type: 3 } }] })),
      'request.imp[0].native.request.assets[0].title.len must be a positive number');
    expectRejected(withImp(nativeImp({ assets: [{ img: { w: -1 }, video: {} }] })),
      'request.imp[0].native.request.assets[0].img.w must be a positive integer');
    expectRejected(withImp(nativeImp({ assets: [{ id: 1, title: { len: 9 } }, { id: 1, title: {} }] })),
      'request.imp[0].native.request.assets[1].title.len must be a positive number');
  });

  it('keeps the asset ids a request gives (Prebid.js numbers assets 1..n), numbering only assets without one', () => {
    const prebidJs = withImp(nativeImp({ assets: [1, 2, 3, 4, 5, 6].map((id) => ({ id, required: 1, data: { type: id } })) }));
    const kept = applyChanges(expectAccepted(prebidJs), prebidJs);
    expect(JSON.parse(kept.imp[0].native.request).assets.map((asset: Json) => asset.id)).to.deep.equal([1, 2, 3, 4, 5, 6]);

    const mixed = withImp(nativeImp({ assets: [{ title: { len: 90 } }, { id: 0, img: { type: 3 } }, { data: { type: 2 } }] }));
    const numbered = applyChanges(expectAccepted(mixed), mixed);
    // The first asset's own index (0) is taken by the second: it gets the next free number.
    expect(JSON.parse(numbered.imp[0].native.request).assets.map((asset: Json) => asset.id)).to.deep.equal([1, 0, 2]);
  });

  it('refuses duplicate and non-integer asset ids, naming the field', () => {
    expectRejected(withImp(nativeImp({ assets: [{ id: 7, title: { len: 90 } }, { id: 7, img: { type: 3 } }] })),
      'request.imp[0].native.request.assets[1].id is already being used by another asset. Each asset ID must be unique.');
    expectRejectedWith(withImp(nativeImp({ assets: [{ id: '1', title: { len: 90 } }] })), 'request.imp[0].native.request.assets[0].id must be an integer');
    expectRejectedWith(withImp(nativeImp({ assets: [{ id: 1.5, title: { len: 90 } }] })), 'request.imp[0].native.request.assets[0].id must be an integer');
  });

  it("checks context, placement, assets and event trackers as Prebid Server does", () => {
    const cases: Array<[unknown, string]> = [
      [{ context: 4, assets: [{ title: { len: 1 } }] }, 'request.imp[0].native.request.context is invalid'],
      [{ context: 1, contextsubtype: -1, assets: [{ title: { len: 1 } }] }, "request.imp[0].native.request.contextsubtype value can't be less than 0"],
      [{ context: 2, contextsubtype: 10, assets: [{ title: { len: 1 } }] }, 'request.imp[0].native.request.context is 2, but contextsubtype is 10. This is an invalid combination.'],
      [{ context: 1, contextsubtype: 40, assets: [{ title: { len: 1 } }] }, 'request.imp[0].native.request.contextsubtype is invalid'],
      [{ plcmttype: 5, assets: [{ title: { len: 1 } }] }, 'request.imp[0].native.request.plcmttype is invalid'],
      [{ assets: [{ title: {} }] }, 'request.imp[0].native.request.assets[0].title.len must be a positive number'],
      [{ assets: [{ img: { hmin: -1 } }] }, 'request.imp[0].native.request.assets[0].img.hmin must be a positive integer'],
      [{ assets: [{ video: { mimes: ['video/mp4'], maxduration: 30, protocols: [2] } }] }, 'request.imp[0].native.request.assets[0].video.minduration must be a positive integer'],
      [{ assets: [{ video: { mimes: ['video/mp4'], minduration: 5, maxduration: 30, protocols: [] } }] }, 'request.imp[0].native.request.assets[0].video.protocols must be an array with at least one element'],
      [{ assets: [{ data: { type: 13 } }] }, 'request.imp[0].native.request.assets[0].data.type is invalid'],
      [{ assets: [{ title: { len: 1 } }], eventtrackers: [{ event: 5, methods: [1] }] }, 'request.imp[0].native.request.eventtrackers[0].event is invalid'],
      [{ assets: [{ title: { len: 1 } }], eventtrackers: [{ event: 1, methods: [3] }] }, 'request.imp[0].native.request.eventtrackers[0].methods[0] is invalid'],
    ];
    for (const [native, message] of cases) expectRejectedWith(withImp(nativeImp(native)), message);
    // Exchange-specific values (500 and up) are valid wherever the spec lists types.
    expectAccepted(withImp(nativeImp({ context: 500, contextsubtype: 501, plcmttype: 500, assets: [{ data: { type: 500 } }], eventtrackers: [{ event: 500, methods: [500] }] })));
    expectAccepted(withImp(nativeImp({ context: 2, contextsubtype: 21, plcmttype: 4, assets: [{ data: { type: 12 } }], eventtrackers: [{ event: 4, methods: [1, 2] }] })));
  });

  it('numbers the assets by index and re-serialises the request', () => {
    const request = withImp(nativeImp({ context: 1, assets: [{ title: { len: 90 } }, { img: { type: 3, w: 300 } }] }));
    const result = expectAccepted(request);
    expect(result?.action).to.equal('update');
    const changed = applyChanges(result, request);
    expect(JSON.parse(changed.imp[0].native.request)).to.deep.equal({
      context: 1, assets: [{ id: 0, title: { len: 90 } }, { id: 1, img: { type: 3, w: 300 } }],
    });
    expect(request.imp[0].native.request, 'the hook itself never edits the payload').to.not.include('"id"');
  });

  it('keeps the Native 1.0 wrapper when numbering assets', () => {
    const request = withImp(nativeImp({ native: { assets: [{ data: { type: 1 } }] } }));
    const changed = applyChanges(expectAccepted(request), request);
    expect(JSON.parse(changed.imp[0].native.request)).to.deep.equal({ native: { assets: [{ id: 0, data: { type: 1 } }] } });
  });
});

describe('gavel.validation: interstitial sizes', () => {
  const interstitialRequest = (banner: Json, device: Json): Json => withRequest((r) => {
    r.imp[0].instl = 1;
    r.imp[0].banner = banner;
    r.device = { ...device, ext: { svc: { interstitial: { minwidthperc: 50, minheightperc: 60 } } } };
  });

  it('fills the banner with the standard sizes between the minimum share and the device size', () => {
    const request = interstitialRequest({}, { w: 400, h: 700 });
    const changed = applyChanges(expectAccepted(request), request);
    const formats: Array<{ w: number; h: number }> = changed.imp[0].banner.format;
    expect(formats).to.deep.include({ w: 320, h: 480 });
    expect(formats.length).to.be.within(1, 10);
    for (const { w, h } of formats) {
      expect(w).to.be.within(200, 400);
      expect(h).to.be.within(420, 700);
    }
  });

  it("offers Prebid Server's interstitial sizes in its order, the first 10 that fit", () => {
    const request = interstitialRequest({ format: [{ w: 1, h: 1 }] }, { w: 400, h: 700 });
    const changed = applyChanges(expectAccepted(request), request);
    expect(changed.imp[0].banner.format).to.deep.equal([
      { w: 300, h: 600 }, { w: 320, h: 480 }, { w: 250, h: 600 }, { w: 360, h: 640 }, { w: 320, h: 640 },
      { w: 300, h: 480 }, { w: 336, h: 544 }, { w: 303, h: 603 }, { w: 320, h: 568 }, { w: 301, h: 601 },
    ]);
  });

  it('takes the largest size from the first format when there is one', () => {
    const request = interstitialRequest({ format: [{ w: 300, h: 250 }] }, { w: 1024, h: 768 });
    const changed = applyChanges(validate(request), request);
    expect(changed.imp[0].banner.format[0]).to.deep.equal({ w: 300, h: 250 });
  });

  it('rejects an interstitial imp for which no size fits', () => {
    expectRejected(interstitialRequest({}, {}),
      'Unable to set interstitial size list for Imp id=imp-1 (No valid sizes between 0x0 and 0x0)');
  });

  it('sets the sizes before the banner is validated, as Prebid Server: the formats replaced are not judged', () => {
    const zero = interstitialRequest({ format: [{ w: 0, h: 0 }] }, { w: 400, h: 700 });
    expect(applyChanges(expectAccepted(zero), zero).imp[0].banner.format).to.have.length(10);
    const withBadSecond = interstitialRequest({ format: [{ w: 300, h: 250 }, { w: 0, h: 50 }] }, { w: 400, h: 700 });
    expect(applyChanges(expectAccepted(withBadSecond), withBadSecond).imp[0].banner.format[0]).to.deep.equal({ w: 300, h: 250 });
    // A negative size is read as Prebid Server's int64 holds it, Go's integer division truncating toward zero.
    expectRejected(interstitialRequest({ format: [{ w: -301, h: 250 }] }, {}),
      'Unable to set interstitial size list for Imp id=imp-1 (No valid sizes between -150x150 and -301x250)');
    expectRejected(interstitialRequest({ w: -5, format: [{ w: 300, h: 250 }] }, {}), 'request.imp[0].banner.w must be a positive number');
  });

  it("requires both shares, whole numbers from 0 to 100, as Prebid Server's ExtDeviceInt decoder does", () => {
    const withShares = (interstitial: unknown): Json => withRequest((r) => {
      r.imp[0].instl = 1;
      r.device = { w: 400, h: 700, ext: { svc: { interstitial } } };
    });
    const path = 'request.device.ext.svc.interstitial';
    expectRejected(withShares({ minwidthperc: 50 }), `${path}.minheightperc must be a number between 0 and 100`);
    expectRejected(withShares({}), `${path}.minwidthperc must be a number between 0 and 100`);
    expectRejected(withShares('50'), `${path}.minwidthperc must be a number between 0 and 100`);
    expectRejected(withShares({ minwidthperc: 50, minheightperc: 100.5 }), `${path}.minheightperc must be a number between 0 and 100`);
    expectAccepted(withShares(null));
    expectAccepted(withShares({ minwidthperc: 0, minheightperc: 100 }));
  });
});

describe('gavel.validation: an imp re-checked after first-party data', () => {
  const validator = createRequestValidator({ bidders: { get: () => undefined, names: () => [] } as never, validateBidderParams: () => undefined });
  const recheck = (imp: Json, index = 2) => validator.validateImp!(imp as never, index, undefined as never);

  it("gives Prebid Server's first problem, in its order: id, metric, media types, banner, video, audio, deals", () => {
    expect(recheck({ banner: { w: 1, h: 1 } })).to.equal('request.imp[2] missing required field: "id"');
    expect(recheck({ id: 'i', metric: [{ type: 'x' }] })).to.equal('request.imp[2].metric is not yet supported by prebid-server. Support may be added in the future');
    expect(recheck({ id: 'i', banner: null })).to.equal('request.imp[2] must contain at least one of "banner", "video", "audio", or "native"');
    expect(recheck({ id: 'i', banner: { format: [{ w: 1, h: 1 }, { w: -2, h: 2 }] }, video: { mimes: [] } })).to.equal('request.imp[2].banner.format[1].w must be a positive number');
    expect(recheck({ id: 'i', banner: {} })).to.match(/^request\.imp\[2\]\.banner has no sizes/);
    expect(recheck({ id: 'i', video: { mimes: [] } })).to.equal('request.imp[2].video.mimes must contain at least one supported MIME type');
    expect(recheck({ id: 'i', audio: { mimes: ['audio/mp4'], sequence: -1 } })).to.equal('request.imp[2].audio.sequence must be a positive number');
    expect(recheck({ id: 'i', native: { request: '' }, pmp: { deals: [{ id: '' }] } })).to.equal('request.imp[2].pmp.deals[0] missing required field: "id"');
  });

  it('skips native markup and bidder params, as Prebid Server does for merged imps', () => {
    expect(recheck({ id: 'i', native: {}, ext: { prebid: { bidder: { appnexus: { placementId: [] } } } } })).to.equal(undefined);
  });
});
