import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AdapterManifest } from '../../../core/api/index.js';
import { runFixturesWith } from '../../../test/harness/adapter-runner.js';
import ortb from '../index.js';

const host = JSON.parse(readFileSync(new URL('./host-config.json', import.meta.url), 'utf8')) as { endpoint: string };
/** ortb has no endpoint of its own: the fixtures are written for the host in host-config.json. */
const configured: AdapterManifest = { ...ortb, info: { ...ortb.info, endpoint: host.endpoint } };

describe('ortb adapter', () => {
  describe('fixtures', () => {
    for (const outcome of runFixturesWith(configured, fileURLToPath(new URL('./fixtures', import.meta.url)))) {
      it(outcome.name, () => expect(outcome.diffs).to.deep.equal([]));
    }
  });
});
