import { expect } from 'chai';
import type { BidRequest, Capabilities, ModuleDeps } from '../../../core/api/index.js';
import { testContext, type TestContext } from '../../../core/api/testing.js';
import { createImpSplitter } from '../imp-splitter.js';

const everything: Capabilities = { site: { mediaTypes: ['banner', 'video', 'audio', 'native'] }, app: { mediaTypes: ['banner', 'video', 'audio', 'native'] } };
const bannerOnSite: Capabilities = { site: { mediaTypes: ['banner'] }, app: { mediaTypes: ['banner', 'video'] } };

function deps(): ModuleDeps {
  return {
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    bidders: new Map([
      ['alpha', { adapter: 'ortb', capabilities: everything, enabled: true }],
      ['beta', { adapter: 'ortb', capabilities: bannerOnSite, enabled: true }],
      ['off', { adapter: 'ortb', capabilities: everything, enabled: false }],
      ['single', { adapter: 'ortb', capabilities: everything, enabled: true, multiformat: false }],
    ]),
    validateBidderParams: () => undefined,
    cachePut: async (values) => values.map(() => undefined),
  };
}

function context(secure = false, namespace: 'svc' | 'prebid' = 'prebid'): TestContext {
  return testContext({ namespace, secure });
}

function split(request: BidRequest, ctx = context()) {
  const shares = createImpSplitter(deps()).split(request, ctx);
  return { shares, result: ctx };
}

const request = (imps: BidRequest['imp'], extra: Partial<BidRequest> = {}): BidRequest => ({ id: 'r', site: { page: 'p' }, imp: imps, ...extra });

describe('gavel.imp-splitting', () => {
  it('offers an imp only to the bidders in its ext, each with only its own params', () => {
    const { shares } = split(request([
      { id: 'i1', banner: { w: 1, h: 1 }, ext: { alpha: { a: 1 }, beta: { b: 2 }, gpid: '/slot' } },
      { id: 'i2', banner: { w: 1, h: 1 }, ext: { prebid: { bidder: { alpha: { a: 3 } } } } },
    ]));
    expect(shares.map((share) => [share.bidder, share.request.imp.map((imp) => imp.id)])).to.deep.equal([['alpha', ['i1', 'i2']], ['beta', ['i1']]]);
    expect(shares[0]!.request.imp[0]!.ext).to.deep.equal({ bidder: { a: 1 }, gpid: '/slot' });
    expect(shares[0]!.request.imp[1]!.ext).to.deep.equal({ bidder: { a: 3 } });
    expect(JSON.stringify(shares[1]!.request)).to.not.contain('"a":1');
  });

  it('sends every bidder the imp.ext keys that name no bidder (publisher data), as Prebid Server does', () => {
    const { shares } = split(request([
      { id: 'i1', banner: { w: 1, h: 1 }, ext: { alpha: { a: 1 }, custom: { c: 1 }, off: { o: 1 }, prebid: { bidder: { beta: { b: 2 } } } } },
    ]));
    expect(shares.map((share) => share.bidder)).to.deep.equal(['beta', 'alpha']);
    expect(shares[0]!.request.imp[0]!.ext).to.deep.equal({ custom: { c: 1 }, bidder: { b: 2 } });
    expect(shares[1]!.request.imp[0]!.ext).to.deep.equal({ custom: { c: 1 }, bidder: { a: 1 } });
  });

  it('removes media types a bidder cannot take, with error code 2, and drops an imp left with none', () => {
    const { shares, result } = split(request([
      { id: 'i1', banner: { w: 1, h: 1 }, video: { mimes: ['video/mp4'] }, ext: { beta: {} } },
      { id: 'i2', video: { mimes: ['video/mp4'] }, ext: { beta: {} } },
    ]));
    expect(shares).to.have.length(1);
    expect(shares[0]!.request.imp.map((imp) => imp.id)).to.deep.equal(['i1']);
    expect(shares[0]!.request.imp[0]).to.not.have.property('video');
    expect(result.errors!.beta).to.deep.equal([
      { code: 2, message: "request.imp[0] uses video, but this bidder doesn't support it" },
      { code: 2, message: "request.imp[1] uses video, but this bidder doesn't support it" },
    ]);
  });

  it('sends a bidder without multi-format support only the preferred media type of a multi-format imp', () => {
    const imp = { id: 'i1', banner: { w: 1, h: 1 }, video: { mimes: ['video/mp4'] }, ext: { single: {}, alpha: {} } };
    const typesOf = (shares: ReturnType<typeof split>['shares'], bidder: string) => Object.keys(shares.find((share) => share.bidder === bidder)!.request.imp[0]!).filter((key) => ['banner', 'video'].includes(key));
    const byRequest = split(request([imp], { ext: { prebid: { biddercontrols: { Single: { prefmtype: 'video' }, alpha: { prefmtype: 'video' } } } } })).shares;
    expect(typesOf(byRequest, 'single')).to.deep.equal(['video']);
    expect(typesOf(byRequest, 'alpha'), 'a multi-format bidder takes the imp as it is').to.deep.equal(['banner', 'video']);
    const byAccount = split(request([imp]), testContext({ namespace: 'prebid', account: { id: 'a', preferredmediatype: { single: 'banner' } } })).shares;
    expect(typesOf(byAccount, 'single')).to.deep.equal(['banner']);
    expect(typesOf(split(request([imp])).shares, 'single'), 'without a preference').to.deep.equal(['banner', 'video']);
  });

  it('reads capabilities for the kind of inventory: app requests use the app list', () => {
    const { shares } = split(request([{ id: 'i1', video: { mimes: ['video/mp4'] }, ext: { beta: {} } }], { site: undefined, app: { bundle: 'b' } }));
    expect(shares[0]!.request.imp[0]!.video).to.deep.equal({ mimes: ['video/mp4'] });
  });

  it('sets imp.secure = 1 over https unless the publisher set it', () => {
    const { shares } = split(request([
      { id: 'i1', banner: { w: 1, h: 1 }, ext: { alpha: {} } },
      { id: 'i2', banner: { w: 1, h: 1 }, secure: 0, ext: { alpha: {} } },
    ]), context(true));
    expect(shares[0]!.request.imp.map((imp) => imp.secure)).to.deep.equal([1, 0]);
  });

  it('resolves aliases and bidder names case-insensitively, keeping the name as written for the seat', () => {
    const { shares } = split(request([{ id: 'i1', banner: { w: 1, h: 1 }, ext: { ALPHA: {}, fast: {} } }], { ext: { prebid: { aliases: { fast: 'beta' } } } }));
    expect(shares.map((share) => [share.bidder, share.adapter])).to.deep.equal([['ALPHA', 'alpha'], ['fast', 'beta']]);
  });

  it('skips a disabled bidder with a warning', () => {
    const { shares, result } = split(request([{ id: 'i1', banner: { w: 1, h: 1 }, ext: { off: {}, alpha: {} } }]));
    expect(shares.map((share) => share.bidder)).to.deep.equal(['alpha']);
    expect(result.warnings!.general![0]!.message).to.equal('Bidder "off" has been disabled on this instance of Prebid Server. Please work with the PBS host to enable this bidder again.');
    // Prebid Server's BidderTemporarilyDisabled code.
    expect(result.warnings!.general![0]!.code).to.equal(6);
  });

  it('never changes the request it was given', () => {
    const original = request([{ id: 'i1', banner: { w: 1, h: 1 }, ext: { alpha: { a: 1 } } }], { user: { ext: { prebid: { buyeruids: { alpha: 'u' } } } } });
    const before = JSON.stringify(original);
    split(original, context(true));
    expect(JSON.stringify(original)).to.equal(before);
  });
});
