import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STAGES, type Stage } from '../../core/api/index.js';
import { bannerRequest, getJson, postJson, useGavelWithBidders } from '../support/gavel.js';
import { calls } from '../fixtures/modules/stage-recorder/index.js';

const recorderPackage = fileURLToPath(new URL('../fixtures/modules/stage-recorder/', import.meta.url));
const PER_BIDDER: ReadonlySet<Stage> = new Set<Stage>(['bidder-request', 'raw-bidder-response']);

const storedDir = mkdtempSync(join(tmpdir(), 'gavel-matrix-'));
mkdirSync(join(storedDir, 'requests'));
mkdirSync(join(storedDir, 'imps'));
writeFileSync(join(storedDir, 'requests', 'amp-slot.json'), JSON.stringify({ id: 'amp', site: { page: 'https://p.example/' }, imp: [{ id: 'i', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {}, beta: {} } }] }));
writeFileSync(join(storedDir, 'imps', 'pod.json'), JSON.stringify({ ext: { alpha: {}, beta: {} } }));

/** The stages in the order a request passed them, per-bidder stages folded to one entry each. */
function stagesSeen(): Stage[] {
  const seen: Stage[] = [];
  for (const call of calls) if (seen[seen.length - 1] !== call.stage) seen.push(call.stage);
  return seen.filter((stage, index) => !PER_BIDDER.has(stage) || seen.indexOf(stage) === index);
}

describe('the call matrix: every stage runs, in the closed order, at every endpoint', () => {
  const servers = useGavelWithBidders(
    { alpha: 'name=alpha&price=1&mtype=2&dur=15&adm=%3CVAST%2F%3E', beta: 'name=beta&price=2&mtype=2&dur=15&adm=%3CVAST%2F%3E' },
    { plugins: [recorderPackage], modules: { 'acme.stage-recorder': { enabled: true } }, storedRequests: { filesystem: { dir: storedDir } } },
  );
  beforeEach(() => {
    calls.length = 0;
  });

  it('auction: all 8 stages in order, the per-bidder ones once for each bidder', async () => {
    expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {}, beta: {} }))).status).to.equal(200);
    expect(stagesSeen()).to.deep.equal([...STAGES]);
    for (const stage of PER_BIDDER) {
      expect(calls.filter((call) => call.stage === stage).map((call) => call.bidder).sort(), stage).to.deep.equal(['alpha', 'beta']);
    }
    expect(new Set(calls.map((call) => call.endpoint))).to.deep.equal(new Set(['auction']));
  });

  it('AMP: the same stages, run under the amp plans', async () => {
    expect((await getJson(`${servers.gavel.url}/openrtb2/amp?tag_id=amp-slot`)).status).to.equal(200);
    expect(stagesSeen()).to.deep.equal([...STAGES]);
    expect(new Set(calls.map((call) => call.endpoint))).to.deep.equal(new Set(['amp']));
  });

  it('video: the same stages, run under the video plans', async () => {
    const pods = {
      podconfig: { durationrangesec: [15, 30], pods: [{ podid: 1, adpoddurationsec: 30, configid: 'pod' }] },
      site: { page: 'https://p.example/v', publisher: { id: 'pub' } },
      video: { mimes: ['video/mp4'], protocols: [2, 3] },
    };
    expect((await postJson(`${servers.gavel.url}/openrtb2/video`, pods)).status).to.equal(200);
    expect(stagesSeen()).to.deep.equal([...STAGES]);
    expect(new Set(calls.map((call) => call.endpoint))).to.deep.equal(new Set(['video']));
  });

  it('a request rejected by validation stops at validate-request, then still passes exitpoint', async () => {
    expect((await postJson(`${servers.gavel.url}/openrtb2/auction`, { id: 'x', imp: [] })).status).to.equal(400);
    // Validation runs between raw-auction-request and processed-auction-request; a 400 skips every later stage.
    expect(stagesSeen()).to.deep.equal(['entrypoint', 'raw-auction-request', 'exitpoint']);
  });
});
