import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AdapterManifest } from '../../../core/api/index.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import ortb from '../index.js';
import { convertVersion } from '../ortb.js';

const host = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { endpoint: string };
/** ortb has no endpoint of its own: the fixtures are written for the host in host-config.json. */
const configured: AdapterManifest = { ...ortb, info: { ...ortb.info, endpoint: host.endpoint } };

describe('ortb adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(configured, fileURLToPath(new URL('./fixtures', import.meta.url)))) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });

  describe('OpenRTB version conversion', () => {
    const request = { id: 'r', imp: [], regs: { gdpr: 1, us_privacy: '1YNN' }, user: { eids: [{ source: 's' }], ext: { data: 1 } }, source: { schain: { ver: '1.0' } } };

    it('2.5 moves the promoted fields into ext, leaving the input alone', () => {
      const before = JSON.stringify(request);
      const converted = convertVersion(request, '2.5');
      expect(converted.regs).to.deep.equal({ ext: { gdpr: 1, us_privacy: '1YNN' } });
      expect(converted.user).to.deep.equal({ ext: { data: 1, eids: [{ source: 's' }] } });
      expect(converted.source).to.deep.equal({ ext: { schain: { ver: '1.0' } } });
      expect(JSON.stringify(request)).to.equal(before);
    });

    it('2.6 moves them back to the top level', () => {
      const converted = convertVersion(convertVersion(request, '2.5'), '2.6');
      expect(converted.regs).to.deep.equal({ gdpr: 1, us_privacy: '1YNN' });
      expect(converted.user).to.deep.equal({ eids: [{ source: 's' }], ext: { data: 1 } });
    });
  });
});
