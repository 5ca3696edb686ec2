import { expect } from 'chai';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ErrorCode } from '../../core/api/index.js';
import { chooseProviders } from '../../core/app/boot.js';
import type { LoadedModule } from '../../core/plugins/discover.js';
import { bannerRequest, getJson, postJson, startGavel, useGavelWithBidders } from '../support/gavel.js';

const replacement = fileURLToPath(new URL('../fixtures/modules/acme-targeting/', import.meta.url));
const storedDir = mkdtempSync(join(tmpdir(), 'gavel-hook-points-'));
mkdirSync(join(storedDir, 'requests'));
mkdirSync(join(storedDir, 'imps'));
writeFileSync(join(storedDir, 'requests', 'amp-slot.json'), JSON.stringify({ id: 'amp', site: { page: 'https://p.example/' }, imp: [{ id: 'i', banner: { format: [{ w: 300, h: 250 }] }, ext: { alpha: {} } }] }));
writeFileSync(join(storedDir, 'imps', 'pod.json'), JSON.stringify({ ext: { alpha: {} } }));

async function bootError(config: Record<string, unknown>): Promise<{ code?: string; message: string }> {
  try {
    const gavel = await startGavel(config);
    await gavel.close();
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('expected boot to fail');
}

describe('hook points as services', () => {
  describe('a module that replaces the targeting service', () => {
    const servers = useGavelWithBidders(
      { alpha: 'name=alpha&price=2.75&mtype=2&dur=15&adm=%3CVAST%2F%3E' },
      { plugins: [replacement], modules: { 'acme.targeting': { enabled: true } }, storedRequests: { filesystem: { dir: storedDir } } },
    );

    it('sets the keys of the auction endpoint', async () => {
      const { json } = await postJson(`${servers.gavel.url}/openrtb2/auction`, bannerRequest({ alpha: {} }, { ext: { prebid: { targeting: {} } } }));
      const targeting = json.seatbid[0].bid[0].ext.prebid.targeting;
      expect(targeting).to.include({ hb_pb: 'acme-2', acme_bidder: 'alpha' });
      expect(targeting).to.not.have.any.keys('hb_bidder', 'hb_pb_alpha');
    });

    it('sets the keys of the AMP endpoint', async () => {
      const { json } = await getJson(`${servers.gavel.url}/openrtb2/amp?tag_id=amp-slot`);
      expect(json.targeting).to.include({ hb_pb: 'acme-2', acme_bidder: 'alpha' });
      expect(json.targeting).to.not.have.property('hb_bidder');
    });

    it('buckets the prices of video pods', async () => {
      const request = {
        podconfig: { durationrangesec: [15], pods: [{ podid: 1, adpoddurationsec: 15, configid: 'pod' }] },
        site: { page: 'https://p.example/v', publisher: { id: 'pub' } },
        video: { mimes: ['video/mp4'], protocols: [2] },
      };
      const { status, json, text } = await postJson(`${servers.gavel.url}/openrtb2/video`, request);
      expect(status, text).to.equal(200);
      expect(json.adPods[0].targeting[0]).to.include({ hb_pb: 'acme-2', hb_pb_cat_dur: 'acme-2_15s' });
    });
  });

  describe('boot', () => {
    it('stops when a built-in is switched off with no replacement, naming the hook point', async () => {
      const error = await bootError({ modules: { 'gavel.imp-splitting': { enabled: false } } });
      expect(error.code).to.equal(ErrorCode.HookPointMissing);
      expect(error.message).to.contain('imp-splitting');
    });

    it('accepts a built-in switched off when a module replaces it', async () => {
      const gavel = await startGavel({ plugins: [replacement], modules: { 'gavel.targeting': { enabled: false }, 'acme.targeting': { enabled: true } } });
      await gavel.close();
    });
  });
});

describe('choosing the provider of each hook point', () => {
  const module = (code: string, builtIn: boolean, provides: string[]) =>
    ({ builtIn, source: { kind: 'folder', location: code }, manifest: { kind: 'module', code, version: '1.0.0', sdkVersion: '2.0.0', provides: Object.fromEntries(provides.map((point) => [point, () => ({})])) } }) as unknown as LoadedModule;
  const builtIns = ['request-validation', 'imp-splitting', 'bid-adjustment', 'targeting', 'bid-caching'].map((point) => module(`gavel.${point}`, true, [point]));

  it('takes the built-in unless an enabled module provides the point', () => {
    const chosen = chooseProviders([...builtIns, module('acme.targeting', false, ['targeting'])]);
    expect(chosen.get('targeting')!.manifest.code).to.equal('acme.targeting');
    expect(chosen.get('imp-splitting')!.manifest.code).to.equal('gavel.imp-splitting');
  });

  it('stops boot when two modules provide the same point, naming both', () => {
    try {
      chooseProviders([...builtIns, module('acme.one', false, ['targeting']), module('acme.two', false, ['targeting'])]);
      expect.fail('expected a conflict');
    } catch (err) {
      expect((err as { code: string }).code).to.equal(ErrorCode.HookPointConflict);
      expect((err as Error).message).to.contain('acme.one').and.contain('acme.two').and.contain('targeting');
    }
  });
});
