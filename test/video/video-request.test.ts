import { expect } from 'chai';
import { checkVideoRequest, type VideoRequestCheck } from '../../core/video/video-request.js';

type Json = Record<string, any>;

/** A valid video request; each test breaks one thing. */
function validRequest(): Json {
  return {
    podconfig: {
      durationrangesec: [15, 30],
      requireexactduration: false,
      pods: [
        { podid: 1, adpoddurationsec: 60, configid: 'pod-config-a' },
        { podid: 2, adpoddurationsec: 30, configid: 'pod-config-b' },
      ],
    },
    site: { page: 'https://video.example/watch', publisher: { id: 'pub-1' } },
    video: { w: 640, h: 360, mimes: ['video/mp4'], protocols: [2, 3, 7] },
  };
}

function invalidMessages(check: VideoRequestCheck): string[] {
  expect(check.kind, JSON.stringify(check)).to.equal('invalid');
  return (check as { messages: string[] }).messages;
}

function expectInvalid(edit: (request: Json) => void, message: string): void {
  const request = validRequest();
  edit(request);
  expect(invalidMessages(checkVideoRequest(request))).to.include(message);
}

describe('video request validation', () => {
  it('accepts the valid request with every pod usable', () => {
    const check = checkVideoRequest(validRequest());
    expect(check.kind).to.equal('valid');
    if (check.kind !== 'valid') return;
    expect(check.usablePods.map((pod) => pod.podid)).to.deep.equal([1, 2]);
    expect(check.rejectedPods).to.deep.equal([]);
  });

  it('names both required pod settings when podconfig is absent', () => {
    const messages = invalidMessages(checkVideoRequest({ ...validRequest(), podconfig: undefined }));
    expect(messages).to.deep.equal([
      'request missing required field: PodConfig.DurationRangeSec',
      'request missing required field: PodConfig.Pods',
    ]);
  });

  it('treats an empty duration list or pod list as missing', () => {
    expectInvalid((r) => { r.podconfig.durationrangesec = []; }, 'request missing required field: PodConfig.DurationRangeSec');
    expectInvalid((r) => { r.podconfig.pods = []; }, 'request missing required field: PodConfig.Pods');
  });

  it('refuses zero or negative allowed durations, once however many there are', () => {
    const request = validRequest();
    request.podconfig.durationrangesec = [0, 15, -30];
    expect(invalidMessages(checkVideoRequest(request))).to.deep.equal(['duration array cannot contain negative or zero values']);
  });

  it('requires exactly one of site and app', () => {
    expectInvalid((r) => { delete r.site; }, 'request missing required field: site or app');
    expectInvalid((r) => { r.app = { domain: 'app.example', publisher: { id: 'pub-1' } }; }, 'request.site or request.app must be defined, but not both');
  });

  it('accepts an app instead of a site', () => {
    const request = validRequest();
    delete request.site;
    request.app = { domain: 'app.example', bundle: 'com.example.tv', publisher: { id: 'pub-1' } };
    expect(checkVideoRequest(request).kind).to.equal('valid');
  });

  it('requires the site page and publisher id, and the app domain and publisher id', () => {
    expectInvalid((r) => { delete r.site.page; r.site.id = 'site-1'; }, 'request missing required field: Site.Page');
    expectInvalid((r) => { delete r.site.page; }, 'request.site missing required field: id or page');
    expectInvalid((r) => { delete r.site.publisher.id; }, 'request missing required field: Site.Publisher.Id');
    expectInvalid((r) => { delete r.site; r.app = { publisher: { id: 'p' } }; }, 'request missing required field: App.Domain');
    expectInvalid((r) => { delete r.site; r.app = { domain: 'app.example' }; }, 'request missing required field: App.Publisher');
  });

  it('requires an app to be named by its id or its bundle, in Prebid Server\'s words', () => {
    expectInvalid((r) => { delete r.site; r.app = { domain: 'app.example', publisher: { id: 'p' } }; }, 'request.app missing required field: id or bundle');
    expectInvalid((r) => { delete r.site; r.app = { id: '', bundle: '', domain: 'app.example', publisher: { id: 'p' } }; }, 'request.app missing required field: id or bundle');
    for (const named of [{ id: 'app-1' }, { bundle: 'com.example.tv' }]) {
      const request = validRequest();
      delete request.site;
      request.app = { domain: 'app.example', publisher: { id: 'pub-1' }, ...named };
      expect(checkVideoRequest(request).kind).to.equal('valid');
    }
  });

  it('requires video mimes and protocols', () => {
    expectInvalid((r) => { delete r.video; }, 'request missing required field: Video');
    expectInvalid((r) => { delete r.video.mimes; }, 'request missing required field: Video.Mimes');
    expectInvalid((r) => { r.video.protocols = []; }, 'request missing required field: Video.Protocols');
  });

  it('drops empty mime strings, and refuses mimes that are nothing else in Prebid Server\'s words', () => {
    const request = validRequest();
    request.video.mimes = ['', 'video/mp4', ''];
    expect(checkVideoRequest(request).kind).to.equal('valid');
    expect(request.video.mimes).to.deep.equal(['video/mp4']);
    const onlyEmpty = validRequest();
    onlyEmpty.video.mimes = ['', ''];
    expect(invalidMessages(checkVideoRequest(onlyEmpty))).to.deep.equal(['request missing required field: Video.Mimes, mime types contains empty strings only']);
  });

  it('takes any protocol integers, later VAST versions too (Prebid Server checks only that there are some)', () => {
    const request = validRequest();
    request.video.protocols = [2, 11, 12];
    expect(checkVideoRequest(request).kind).to.equal('valid');
    expectInvalid((r) => { r.video.protocols = ['VAST 4']; }, 'request field Video.Protocols must be an integer');
  });

  it("lists the request's problems in the order Prebid Server checks them", () => {
    expect(invalidMessages(checkVideoRequest({}))).to.deep.equal([
      'request missing required field: PodConfig.DurationRangeSec',
      'request missing required field: PodConfig.Pods',
      'request missing required field: site or app',
      'request missing required field: Video',
    ]);
    const request = validRequest();
    delete request.site;
    request.podconfig.durationrangesec = [-15];
    delete request.podconfig.pods;
    request.video.mimes = [''];
    expect(invalidMessages(checkVideoRequest(request))).to.deep.equal([
      'duration array cannot contain negative or zero values',
      'request missing required field: PodConfig.Pods',
      'request missing required field: site or app',
      'request missing required field: Video.Mimes, mime types contains empty strings only',
    ]);
  });

  it('takes a legacy price granularity name as well as a custom one', () => {
    const request = validRequest();
    request.pricegranularity = 'high';
    expect(checkVideoRequest(request).kind).to.equal('valid');
    expectInvalid((r) => { r.pricegranularity = 5; }, 'request field PriceGranularity must be an object or a string');
  });

  it('needs no primary ad server when categories are not translated', () => {
    const request = validRequest();
    request.includebrandcategory = { translatecategories: false };
    request.appendbiddernames = true;
    expect(checkVideoRequest(request).kind).to.equal('valid');
    expectInvalid((r) => { r.includebrandcategory = { primaryadserver: 3, translatecategories: true }; }, 'request field IncludeBrandCategory.PrimaryAdServer must be 1 (FreeWheel) or 2 (Google Ad Manager)');
    expectInvalid((r) => { r.appendbiddernames = 'yes'; }, 'request field AppendBidderNames must be a boolean');
  });

  it('checks the types of optional fields and names them', () => {
    expectInvalid((r) => { r.video.w = '640'; }, 'request field Video.W must be an integer');
    expectInvalid((r) => { r.podconfig.requireexactduration = 'yes'; }, 'request field PodConfig.RequireExactDuration must be a boolean');
    expectInvalid((r) => { r.includebrandcategory = { primaryadserver: 3 }; }, 'request field IncludeBrandCategory.PrimaryAdServer must be 1 (FreeWheel) or 2 (Google Ad Manager)');
    expectInvalid((r) => { r.includebrandcategory = {}; }, 'request missing required field: IncludeBrandCategory.PrimaryAdServer');
    expectInvalid((r) => { r.pricegranularity = { ranges: [{ max: '20', increment: 1 }] }; }, 'request field PriceGranularity.Ranges.Max must be a number');
  });

  it("refuses a custom price granularity's values in Prebid Server's words (validatePriceGranularity)", () => {
    const ranges = [{ max: 5, increment: 0.5 }];
    expectInvalid((r) => { r.pricegranularity = { precision: -1, ranges }; }, 'Price granularity error: precision must be non-negative');
    expectInvalid((r) => { r.pricegranularity = { precision: 16, ranges }; }, 'Price granularity error: precision of more than 15 significant figures is not supported');
    expectInvalid((r) => { r.pricegranularity = { ranges: [{ max: 5, increment: 0.5 }, { max: 5, increment: 1 }] }; }, 'Price granularity error: range list must be ordered with increasing "max"');
    expectInvalid((r) => { r.pricegranularity = { ranges: [{ increment: 1 }] }; }, 'Price granularity error: range list must be ordered with increasing "max"');
    expectInvalid((r) => { r.pricegranularity = { precision: 2, ranges: [{ max: 20 }] }; }, 'Price granularity error: increment must be a nonzero positive number');
    expectInvalid((r) => { r.pricegranularity = { precision: 2, ranges: [{ max: 20, increment: -0.1 }] }; }, 'Price granularity error: increment must be a nonzero positive number');
    const request = validRequest();
    request.pricegranularity = { ranges: [{ max: 5, increment: 0.05 }, { max: 20, increment: 0.5 }] };
    expect(checkVideoRequest(request).kind).to.equal('valid');
  });

  it('checks the granularity only once the rest of the request passed, as Prebid Server does', () => {
    const request = validRequest();
    request.pricegranularity = { precision: -1, ranges: [{ max: 5, increment: 0.5 }] };
    delete request.video.mimes;
    expect(checkVideoRequest(request)).to.deep.equal({ kind: 'invalid', messages: ['request missing required field: Video.Mimes'] });
  });

  describe('pods', () => {
    function podCheck(pods: unknown[]) {
      const request = validRequest();
      request.podconfig.pods = pods;
      const check = checkVideoRequest(request);
      expect(check.kind).to.equal('valid');
      return check as Extract<VideoRequestCheck, { kind: 'valid' }>;
    }

    it('drops a pod with a missing field and keeps the others', () => {
      const check = podCheck([{ podid: 1, adpoddurationsec: 30 }, { podid: 2, adpoddurationsec: 30, configid: 'b' }]);
      expect(check.usablePods.map((pod) => pod.podid)).to.deep.equal([2]);
      expect(check.rejectedPods).to.deep.equal([{ index: 0, podid: 1, messages: ['request missing or incorrect required field: PodConfig.Pods.ConfigId, Pod index: 0'] }]);
    });

    it('drops a pod whose id repeats an earlier one', () => {
      const check = podCheck([{ podid: 1, adpoddurationsec: 30, configid: 'a' }, { podid: 1, adpoddurationsec: 60, configid: 'b' }]);
      expect(check.usablePods.map((pod) => pod.configid)).to.deep.equal(['a']);
      expect(check.rejectedPods[0]!.messages).to.deep.equal(['request duplicated required field: PodConfig.Pods.PodId, Pod id: 1']);
    });

    it("drops pods with a non-positive id or duration, in Prebid Server's words", () => {
      const check = podCheck([
        { podid: 0, adpoddurationsec: 30, configid: 'a' },
        { podid: 2, adpoddurationsec: -30, configid: 'b' },
        { podid: 4, adpoddurationsec: 0, configid: 'd' },
        { podid: 3, adpoddurationsec: 30, configid: 'c' },
      ]);
      expect(check.usablePods.map((pod) => pod.podid)).to.deep.equal([3]);
      expect(check.rejectedPods.map((pod) => pod.messages)).to.deep.equal([
        ['request missing required field: PodConfig.Pods.PodId, Pod index: 0'],
        ['request incorrect required field: PodConfig.Pods.AdPodDurationSec is negative, Pod index: 1'],
        ['request missing or incorrect required field: PodConfig.Pods.AdPodDurationSec, Pod index: 2'],
      ]);
    });

    it("checks each pod as Prebid Server does: a repeated id first, an absent id counting as 0", () => {
      const check = podCheck([{ adpoddurationsec: 30, configid: 'a' }, { configid: '' }, { podid: 7, adpoddurationsec: 30, configid: 'c' }]);
      expect(check.usablePods.map((pod) => pod.podid)).to.deep.equal([7]);
      expect(check.rejectedPods.map((pod) => pod.messages)).to.deep.equal([
        ['request missing required field: PodConfig.Pods.PodId, Pod index: 0'],
        [
          'request duplicated required field: PodConfig.Pods.PodId, Pod id: 0',
          'request missing required field: PodConfig.Pods.PodId, Pod index: 1',
          'request missing or incorrect required field: PodConfig.Pods.AdPodDurationSec, Pod index: 1',
          'request missing or incorrect required field: PodConfig.Pods.ConfigId, Pod index: 1',
        ],
      ]);
    });

    it('drops a pod that is not an object without failing', () => {
      const check = podCheck([null, 'pod', { podid: 5, adpoddurationsec: 30, configid: 'e' }]);
      expect(check.usablePods.map((pod) => pod.podid)).to.deep.equal([5]);
      expect(check.rejectedPods.map((pod) => pod.messages[0])).to.deep.equal([
        'request field PodConfig.Pods must be an object, Pod index: 0',
        'request field PodConfig.Pods must be an object, Pod index: 1',
      ]);
    });
  });

  it('never throws on bodies of the wrong shape', () => {
    for (const body of [{}, { podconfig: 'x', video: [] }, { podconfig: { pods: [1, 2], durationrangesec: ['a'] }, site: null }]) {
      expect(checkVideoRequest(body as Json).kind).to.equal('invalid');
    }
  });
});
