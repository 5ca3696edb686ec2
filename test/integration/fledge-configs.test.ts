/**
 * Protected Audience (FLEDGE) auction configs an adapter returns beside its bids (`MakeBidsResult.fledgeAuctionConfigs`)
 * reach the response's `ext.<ns>.fledge.auctionconfigs`, as Prebid Server collects its adapters'
 * `FledgeAuctionConfigs`: each as `{impid, bidder, adapter, config}`, from every bidder, with or without bids, and
 * whether or not the imp asked for an interest-group auction (`imp.ext.ae`).
 */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import type { RequestData, ResponseData } from '../../core/api/index.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import { postJson, replacing, startGavel, type RunningGavel } from '../support/gavel.js';

const FLEDGE_ADAPTER = fileURLToPath(new URL('./fledge-adapter', import.meta.url));
const REJECTER = fileURLToPath(new URL('./fledge-rejecter', import.meta.url));
const ALIAS_ENDPOINT = 'https://bid.fledger.example/alias';

const sellerConfig = (seller: string) => ({ seller, interestGroupBuyers: ['https://buyer.example'], perBuyerSignals: { 'https://buyer.example': [1, 'two', {}] } });

/** A request offering imp-1 (and imp-2) to the named bidders, in the `prebid` namespace unless told otherwise. */
function request(bidders: string[], options: { namespace?: 'prebid' | 'none'; ae?: number } = {}): Record<string, unknown> {
  const params = Object.fromEntries(bidders.map((name) => [name, {}]));
  const ext = (options.namespace ?? 'prebid') === 'prebid' ? { prebid: { bidder: params } } : params;
  const imp = (id: string) => ({ id, banner: { format: [{ w: 300, h: 250 }] }, ext: { ...ext, ...(options.ae !== undefined && { ae: options.ae }) } });
  return { id: 'req-1', site: { page: 'https://publisher.example/article' }, imp: [imp('imp-1'), imp('imp-2')], tmax: 500 };
}

describe('Protected Audience auction configs in the auction response', () => {
  let gavel: RunningGavel;
  /** What each endpoint answers (the fixture adapter's body format), by URI. */
  const answers = new Map<string, unknown>();
  const transport: BidderTransport = {
    send: async (call: RequestData): Promise<ResponseData> => ({ status: 200, body: JSON.stringify(answers.get(call.uri) ?? {}), headers: {} }),
    close: async () => undefined,
  };

  before(async () => {
    gavel = await startGavel(
      { plugins: [FLEDGE_ADAPTER], bidders: { fledger: {}, fledged: { adapter: 'fledger', endpoint: ALIAS_ENDPOINT } } },
      { configure: replacing({ transport }) },
    );
  });
  after(() => gavel?.close());
  beforeEach(() => answers.clear());

  it('writes each config as {impid, bidder, adapter, config} in ext.prebid.fledge, beside the bids', async () => {
    answers.set('https://bid.fledger.example/openrtb2', { bids: [{ impid: 'imp-1', price: 1.5 }], configs: [{ impId: 'imp-2', config: sellerConfig('https://seller.example') }] });
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, request(['fledger'], { ae: 1 }));
    expect(status).to.equal(200);
    expect(json.seatbid).to.have.length(1);
    expect(json.seatbid[0].bid.map((bid: { impid: string }) => bid.impid)).to.deep.equal(['imp-1']);
    expect(json.ext.prebid.fledge).to.deep.equal({
      auctionconfigs: [{ impid: 'imp-2', bidder: 'fledger', adapter: 'fledger', config: sellerConfig('https://seller.example') }],
    });
  });

  it('keeps the configs of a bidder without bids, under the name it ran as, and collects every bidder', async () => {
    answers.set('https://bid.fledger.example/openrtb2', { configs: [{ impId: 'imp-1', config: sellerConfig('https://one.example') }] });
    answers.set(ALIAS_ENDPOINT, {
      configs: [
        { impId: 'imp-1', config: sellerConfig('https://two.example') },
        { impId: 'imp-2', config: 'opaque' },
      ],
    });
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, request(['fledger', 'fledged']));
    expect(json.seatbid ?? []).to.deep.equal([]);
    const configs = json.ext.prebid.fledge.auctionconfigs as Array<{ bidder: string }>;
    // Bidders answer in any order; each bidder's configs keep theirs.
    expect([...configs].sort((a, b) => a.bidder.localeCompare(b.bidder))).to.deep.equal([
      { impid: 'imp-1', bidder: 'fledged', adapter: 'fledged', config: sellerConfig('https://two.example') },
      { impid: 'imp-2', bidder: 'fledged', adapter: 'fledged', config: 'opaque' },
      { impid: 'imp-1', bidder: 'fledger', adapter: 'fledger', config: sellerConfig('https://one.example') },
    ]);
  });

  it('passes configs for an imp that did not ask for an interest-group auction, as Prebid Server does', async () => {
    answers.set('https://bid.fledger.example/openrtb2', { configs: [{ impId: 'imp-1', config: { seller: 'https://seller.example' } }] });
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, request(['fledger'], { ae: 0 }));
    expect(json.ext.prebid.fledge.auctionconfigs).to.have.length(1);
  });

  it('writes no fledge member when no bidder returned a config (nor for an empty list)', async () => {
    answers.set('https://bid.fledger.example/openrtb2', { bids: [{ impid: 'imp-1', price: 1 }], configs: [] });
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, request(['fledger']));
    expect(status).to.equal(200);
    expect(json.seatbid).to.have.length(1);
    expect(json.ext.prebid?.fledge).to.equal(undefined);
  });

  it("answers in the request's namespace: ext.svc.fledge for a request that names neither", async () => {
    answers.set('https://bid.fledger.example/openrtb2', { configs: [{ impId: 'imp-1', config: { seller: 'https://seller.example' } }] });
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, request(['fledger'], { namespace: 'none' }));
    expect(json.ext.prebid).to.equal(undefined);
    expect(json.ext.svc.fledge.auctionconfigs).to.deep.equal([{ impid: 'imp-1', bidder: 'fledger', adapter: 'fledger', config: { seller: 'https://seller.example' } }]);
  });

  describe('with a module that rejects one bidder\'s answer at raw-bidder-response', () => {
    let guarded: RunningGavel;
    before(async () => {
      guarded = await startGavel(
        {
          plugins: [FLEDGE_ADAPTER, REJECTER],
          modules: { 'acme.fledge-rejecter': { enabled: true } },
          bidders: { fledger: {}, fledged: { adapter: 'fledger', endpoint: ALIAS_ENDPOINT } },
        },
        { configure: replacing({ transport }) },
      );
    });
    after(() => guarded?.close());

    it('drops the configs of the rejected answer with its bids, as Prebid Server does, and keeps the others', async () => {
      answers.set('https://bid.fledger.example/openrtb2', { configs: [{ impId: 'imp-1', config: { seller: 'https://kept.example' } }] });
      answers.set(ALIAS_ENDPOINT, { bids: [{ impid: 'imp-1', price: 2 }], configs: [{ impId: 'imp-1', config: { seller: 'https://dropped.example' } }] });
      const { json } = await postJson(`${guarded.url}/openrtb2/auction`, request(['fledger', 'fledged']));
      expect(json.seatbid ?? []).to.deep.equal([]);
      expect(json.ext.prebid.fledge.auctionconfigs).to.deep.equal([{ impid: 'imp-1', bidder: 'fledger', adapter: 'fledger', config: { seller: 'https://kept.example' } }]);
    });
  });
});
