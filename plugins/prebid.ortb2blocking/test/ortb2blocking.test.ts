import { expect } from 'chai';
import type { AuctionBid, Bid, BidRequest, BidsPayload, HookResult, MediaType } from '../../../core/api/index.js';
import { silentLogger, testAuctionBid, testContext, type TestContext } from '../../../core/api/testing.js';
import blockingModule from '../index.js';

type Json = Record<string, any>;

const deps = { logger: silentLogger, bidders: new Map(), validateBidderParams: () => undefined, cachePut: async () => [] };

function apply<P>(payload: P, result: unknown): P {
  for (const change of (result as HookResult<P> | undefined)?.changes ?? []) payload = (change(payload) as P | undefined) ?? payload;
  return payload;
}

const REQUEST: BidRequest = {
  id: 'r',
  imp: [
    { id: 'b1', banner: { format: [{ w: 300, h: 250 }] } },
    { id: 'v1', video: { mimes: ['video/mp4'] } },
    { id: 'a1', audio: { mimes: ['audio/mp3'] } },
  ],
  site: { page: 'https://publisher.example' },
};

/**
 * Runs one bidder through both hooks with an account config (Prebid Server's shape): what the bidder was sent, and
 * which of its bids survive.
 */
function run(attributes: Json, bidder: string, bids: Array<Partial<Bid> & { type?: MediaType }>, request: BidRequest = REQUEST): { sent: BidRequest; kept: string[]; context: TestContext } {
  const hooks = blockingModule.create!({}, deps);
  const context = testContext({ accountConfig: { attributes } } as never);
  const share = { bidder, adapter: bidder, request: { ...request, imp: [...request.imp] } };
  const sent = apply(share, hooks['bidder-request']!['set-blocks']!(share, context)).request;
  const auctionBids: AuctionBid[] = bids.map(({ type, ...bid }, i) => testAuctionBid(bidder, { id: `bid-${i}`, impid: type === 'video' ? 'v1' : type === 'audio' ? 'a1' : 'b1', price: 1, ...bid } as Bid, { type: type ?? 'banner' }));
  const payload: BidsPayload = { bidder, request: sent, bids: auctionBids };
  const out = apply(payload, hooks['raw-bidder-response']!['enforce-blocks']!(payload, context));
  return { sent, kept: out.bids.map((bid) => bid.bid.id), context };
}

describe('prebid.ortb2blocking', () => {
  describe('badv', () => {
    const badv = { blocked_adomain: ['bad.com'], enforce_blocks: true };

    it('sends badv and drops a bid from a blocked domain (non-bid 355)', () => {
      const { sent, kept, context } = run({ badv }, 'alpha', [{ adomain: ['bad.com'] }, { adomain: ['good.com'] }]);
      expect(sent.badv).to.deep.equal(['bad.com']);
      expect(kept).to.deep.equal(['bid-1']);
      expect(context.rejected.map((entry) => [entry.bid.bid.id, entry.reason])).to.deep.equal([['bid-0', 355]]);
    });

    it('keeps blocked bids when enforce_blocks is off (signalling only)', () => {
      expect(run({ badv: { blocked_adomain: ['bad.com'] } }, 'alpha', [{ adomain: ['bad.com'] }]).kept).to.deep.equal(['bid-0']);
    });

    it('blocks a bid without adomain only with block_unknown_adomain', () => {
      expect(run({ badv }, 'alpha', [{}]).kept).to.deep.equal(['bid-0']);
      expect(run({ badv: { ...badv, block_unknown_adomain: true } }, 'alpha', [{}]).kept).to.deep.equal([]);
    });

    it('allows a blocked domain for deals, by default list and by deal id override', () => {
      expect(run({ badv: { ...badv, allowed_adomain_for_deals: ['bad.com'] } }, 'alpha', [{ adomain: ['bad.com'], dealid: 'd1' }, { adomain: ['bad.com'] }]).kept).to.deep.equal(['bid-0']);
      const overrides = { allowed_adomain_for_deals: [{ conditions: { deal_ids: ['d2'] }, override: ['bad.com'] }] };
      expect(run({ badv: { ...badv, action_overrides: overrides } }, 'alpha', [{ adomain: ['bad.com'], dealid: 'd1' }, { adomain: ['bad.com'], dealid: 'd2' }]).kept).to.deep.equal(['bid-1']);
    });

    it('uses a per-bidder override before an all-bidders one, and warns when several match', () => {
      const action_overrides = {
        blocked_adomain: [
          { conditions: { media_types: ['banner'] }, override: ['all.com'] },
          { conditions: { bidders: ['Alpha'] }, override: ['alpha-only.com'] },
        ],
      };
      const alpha = run({ badv: { ...badv, action_overrides } }, 'alpha', []);
      expect(alpha.sent.badv).to.deep.equal(['alpha-only.com']);
      const beta = run({ badv: { ...badv, action_overrides } }, 'beta', []);
      expect(beta.sent.badv).to.deep.equal(['all.com']);
      const hooks = blockingModule.create!({}, deps);
      const result = hooks['bidder-request']!['set-blocks']!({ bidder: 'alpha', adapter: 'alpha', request: REQUEST }, testContext({ accountConfig: { attributes: { badv: { action_overrides } } } } as never)) as HookResult<unknown>;
      expect(result.messages).to.include('More than one condition matches request. Bidder: alpha, request media types: audio, banner, video');
    });

    it('turns enforcement on for one bidder by an enforce_blocks override', () => {
      const attributes = { badv: { blocked_adomain: ['bad.com'], action_overrides: { enforce_blocks: [{ conditions: { bidders: ['beta'] }, override: true }] } } };
      expect(run(attributes, 'alpha', [{ adomain: ['bad.com'] }]).kept).to.deep.equal(['bid-0']);
      expect(run(attributes, 'beta', [{ adomain: ['bad.com'] }]).kept).to.deep.equal([]);
    });

    it("keeps the request's own badv and enforces it", () => {
      const { sent, kept } = run({ badv }, 'alpha', [{ adomain: ['own.com'] }, { adomain: ['bad.com'] }], { ...REQUEST, badv: ['own.com'] });
      expect(sent.badv).to.deep.equal(['own.com']);
      expect(kept).to.deep.equal(['bid-1']);
    });

    it('reports a condition with neither bidders nor media types and changes nothing', () => {
      const attributes = { badv: { ...badv, action_overrides: { blocked_adomain: [{ conditions: {}, override: ['x.com'] }] } } };
      const hooks = blockingModule.create!({}, deps);
      const result = hooks['bidder-request']!['set-blocks']!({ bidder: 'alpha', adapter: 'alpha', request: REQUEST }, testContext({ accountConfig: { attributes } } as never)) as HookResult<unknown>;
      expect(result.changes).to.equal(undefined);
      expect(result.messages!.join()).to.contain('bidders and media_types absent from conditions, at least one of the fields must be present');
    });
  });

  describe('bcat and cattax', () => {
    const bcat = { blocked_adv_cat: ['IAB25'], enforce_blocks: true, category_taxonomy: 6 };

    it('sends bcat and cattax and drops a bid in a blocked category (non-bid 302)', () => {
      const { sent, kept, context } = run({ bcat }, 'alpha', [{ cat: ['IAB25'] }, { cat: ['IAB1'] }]);
      expect(sent).to.include({ cattax: 6 });
      expect(sent.bcat).to.deep.equal(['IAB25']);
      expect(kept).to.deep.equal(['bid-1']);
      expect(context.rejected[0]!.reason).to.equal(302);
    });

    it('drops a bid naming another taxonomy than the one sent', () => {
      expect(run({ bcat }, 'alpha', [{ cat: ['IAB1'], cattax: 2 }, { cat: ['IAB1'], cattax: 6 }]).kept).to.deep.equal(['bid-1']);
      // Without a configured taxonomy bids are held to IAB Content 1.0 (1).
      expect(run({ bcat: { blocked_adv_cat: ['IAB25'], enforce_blocks: true } }, 'alpha', [{ cattax: 2 }, { cattax: 1 }]).kept).to.deep.equal(['bid-1']);
    });

    it('blocks a bid without categories only with block_unknown_adv_cat', () => {
      expect(run({ bcat: { ...bcat, block_unknown_adv_cat: true } }, 'alpha', [{}]).kept).to.deep.equal([]);
    });
  });

  describe('bapp', () => {
    it('sends bapp and drops a bid for a blocked bundle, except for allowed deals', () => {
      const bapp = { blocked_app: ['com.bad'], enforce_blocks: true, allowed_app_for_deals: ['com.bad'] };
      const { sent, kept } = run({ bapp }, 'alpha', [{ bundle: 'com.bad' }, { bundle: 'com.bad', dealid: 'd' }, { bundle: 'com.good' }]);
      expect(sent.bapp).to.deep.equal(['com.bad']);
      expect(kept).to.deep.equal(['bid-1', 'bid-2']);
    });
  });

  describe('btype', () => {
    it('sends banner.btype to banner imps only, and keeps an imp’s own', () => {
      const request: BidRequest = { ...REQUEST, imp: [...REQUEST.imp, { id: 'b2', banner: { btype: [4] } }] };
      const { sent } = run({ btype: { blocked_banner_type: [1, 3] } }, 'alpha', [], request);
      expect(sent.imp.map((imp) => imp.banner?.btype)).to.deep.equal([[1, 3], undefined, undefined, [4]]);
    });

    it('overrides btype per media type of the imp', () => {
      const btype = { blocked_banner_type: [1], action_overrides: { blocked_banner_type: [{ conditions: { bidders: ['alpha'] }, override: [2] }] } };
      expect(run({ btype }, 'alpha', []).sent.imp[0]!.banner!.btype).to.deep.equal([2]);
      expect(run({ btype }, 'beta', []).sent.imp[0]!.banner!.btype).to.deep.equal([1]);
    });
  });

  describe('battr', () => {
    const battr = { blocked_banner_attr: [1], blocked_video_attr: [2], blocked_audio_attr: [3], enforce_blocks: true };

    it('sends battr per media type', () => {
      const { sent } = run({ battr }, 'alpha', []);
      expect(sent.imp[0]!.banner!.battr).to.deep.equal([1]);
      expect(sent.imp[1]!.video!.battr).to.deep.equal([2]);
      expect(sent.imp[2]!.audio!.battr).to.deep.equal([3]);
    });

    it("drops a bid with an attribute blocked for its media type (non-bid 350), per media type's deal exceptions", () => {
      const { kept, context } = run({ battr: { ...battr, allowed_video_attr_for_deals: [2] } }, 'alpha', [
        { attr: [1] },
        { attr: [2] },
        { type: 'video', attr: [2] },
        { type: 'video', attr: [2], dealid: 'd' },
        { type: 'audio', attr: [3] },
        { type: 'audio', attr: [1] },
      ]);
      expect(kept).to.deep.equal(['bid-1', 'bid-3', 'bid-5']);
      expect(context.rejected.map((entry) => entry.reason)).to.deep.equal([350, 350, 350]);
    });

    it('overrides battr by media type condition', () => {
      const overrides = { blocked_banner_attr: [{ conditions: { media_types: ['banner'], bidders: ['alpha'] }, override: [7, 8] }] };
      expect(run({ battr: { ...battr, action_overrides: overrides } }, 'alpha', []).sent.imp[0]!.banner!.battr).to.deep.equal([7, 8]);
    });
  });

  it('uses the host config when the account has none, and changes nothing with neither', () => {
    const hostHooks = blockingModule.create!({ attributes: { badv: { blocked_adomain: ['host.com'], enforce_blocks: true } } }, deps);
    const share = { bidder: 'alpha', adapter: 'alpha', request: REQUEST };
    expect(apply(share, hostHooks['bidder-request']!['set-blocks']!(share, testContext())).request.badv).to.deep.equal(['host.com']);
    const bare = blockingModule.create!({}, deps);
    expect(bare['bidder-request']!['set-blocks']!(share, testContext())).to.equal(undefined);
  });
});
