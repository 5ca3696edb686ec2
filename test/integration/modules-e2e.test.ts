import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { bannerRequest, postJson, startGavel, type RunningGavel } from '../support/gavel.js';

const guardPackage = fileURLToPath(new URL('../fixtures/modules/acme-guard/', import.meta.url));

describe('a third-party module loaded from an npm package', () => {
  let bidder: MockBidder;
  let gavel: RunningGavel;

  before(async () => {
    bidder = await startMockBidder();
    gavel = await startGavel({
      plugins: [guardPackage],
      modules: { 'acme.guard': { enabled: true, config: { blockedBidders: ['beta'], rejectPages: ['https://blocked.example/'] } } },
      bidders: {
        alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1` },
        beta: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=beta&price=2` },
      },
    });
  });
  after(async () => {
    await gavel?.close();
    await bidder?.close();
  });

  it('runs at its stages: a rejected bidder is skipped, the response is updated', async () => {
    bidder.received.length = 0;
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }));
    expect(json.seatbid.map((seat: any) => seat.seat)).to.deep.equal(['alpha']);
    expect(json.ext.errors.beta[0].code).to.equal(2);
    expect(bidder.received.some((call) => call.url.includes('name=beta'))).to.equal(false);
    expect(json.ext.guarded).to.equal(true);
  });

  it('a reject at a request stage ends the auction with 200 {id, nbr}', async () => {
    const { status, json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { site: { page: 'https://blocked.example/' } }));
    expect(status).to.equal(200);
    expect(json).to.deep.equal({ id: 'req-1', nbr: 8 });
  });

  it('returns a trace of what ran when the request asks for one', async () => {
    const { json } = await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }, { ext: { prebid: { trace: 'verbose' } } }));
    const trace = json.ext.prebid.modules.trace as Array<{ stage: string; module: string; hook: string; status: string; messages?: string[] }>;
    const blocked = trace.find((entry) => entry.hook === 'block-bidders' && entry.status === 'rejected')!;
    expect(blocked.module).to.equal('acme.guard');
    expect(blocked.messages).to.deep.equal(['blocked beta']);
    expect(trace.map((entry) => [entry.stage, entry.module])).to.deep.include.members([
      ['processed-auction-request', 'acme.guard'],
      ['bidder-request', 'acme.guard'],
      ['auction-response', 'acme.guard'],
    ]);
  });

  it('a module config that fails its schema stops boot naming the module', async () => {
    let error: (Error & { code?: string }) | undefined;
    try {
      await startGavel({ plugins: [guardPackage], modules: { 'acme.guard': { enabled: true, config: { blockedBidders: 'beta' } } } });
    } catch (err) {
      error = err as Error & { code?: string };
    }
    expect(error?.code).to.equal('GAVEL_E_CONFIG_INVALID');
    expect(error?.message).to.contain('modules.acme.guard.config');
  });
});
