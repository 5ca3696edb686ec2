import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bannerRequest, postJson, startGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';
import { TEST_GVL_PATH, tcString } from '../support/tcf.js';

/** Analytics under privacy: the reportAnalytics activity and TCF purpose 7 for the host's vendor decide what a module sees. */
describe('analytics behind the privacy gate', function () {
  this.timeout(20_000);
  let bidder: MockBidder;
  let dir: string;

  beforeEach(async () => {
    bidder = await startMockBidder();
    dir = mkdtempSync(join(tmpdir(), 'gavel-analytics-gate-'));
  });
  afterEach(async () => {
    await bidder.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs one auction per request body and returns the ids of the auctions the ndjson module wrote. */
  async function reported(privacy: Record<string, unknown>, bodies: Array<Record<string, unknown>>): Promise<string[]> {
    const file = join(dir, 'analytics.ndjson');
    const gavel = await startGavel({
      privacy,
      modules: { 'analytics.ndjson': { enabled: true, config: { destination: file } } },
      bidders: { alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=2` } },
    });
    try {
      for (const body of bodies) expect((await postJson(`${gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, body))).status).to.equal(200);
    } finally {
      await gavel.close();
    }
    return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).request?.id);
  }

  it('reportAnalytics denied for the module keeps the auction from it; allowed for another component changes nothing', async () => {
    const deny = { reportAnalytics: { rules: [{ allow: false, condition: { componentName: ['analytics.ndjson'] } }] } };
    expect(await reported({ allowActivities: deny }, [{ id: 'a-1' }])).to.deep.equal([]);
    const other = { reportAnalytics: { rules: [{ allow: false, condition: { componentName: ['someone.else'] } }] } };
    expect(await reported({ allowActivities: other }, [{ id: 'a-2' }])).to.deep.equal(['a-2']);
  });

  it('where GDPR applies, purpose 7 for the host vendor decides; without GDPR every auction is reported', async () => {
    const gdpr = { gdpr: { vendorLists: [TEST_GVL_PATH], hostVendorId: 32 } };
    const withPurpose7 = tcString({ purposes: [1, 2, 4, 7], vendors: [32] });
    const withoutPurpose7 = tcString({ purposes: [1, 2, 4], vendors: [32] });
    const ids = await reported(gdpr, [
      { id: 'consented', regs: { gdpr: 1 }, user: { consent: withPurpose7 } },
      { id: 'no-purpose-7', regs: { gdpr: 1 }, user: { consent: withoutPurpose7 } },
      { id: 'not-gdpr', regs: { gdpr: 0 } },
    ]);
    expect(ids).to.deep.equal(['consented', 'not-gdpr']);
  });
});
