/**
 * Adapters are found by scanning folders, with no list to edit: a copied folder with a new name in its manifest is
 * a new bidder, and a folder whose manifest is wrong stops boot with a coded error that names the folder.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { ErrorCode } from '../../core/api/index.js';
import { bootGavel } from '../../core/app/boot.js';
import { startGavel, testConfig } from '../support/gavel.js';
import { getJson } from '../support/gavel.js';
import { makePluginRoot, manifestModule, renameCopiedAdapter, type PluginRoot } from './plugin-root.js';

const VALID_INFO = { maintainer: { email: 'prebid@acme.example' }, capabilities: { site: { mediaTypes: ['banner'] } } };
const CREATE = '() => ({ makeRequests: () => ({ requests: [] }), makeBids: () => ({ bids: [] }) })';

async function bootFailure(pluginRoot: string): Promise<{ code?: string; message: string } | undefined> {
  try {
    const app = await bootGavel(testConfig(), { pluginRoot });
    await app.close();
    return undefined;
  } catch (err) {
    return err as { code?: string; message: string };
  }
}

describe('adapter folders', () => {
  describe('a copy of an adapter folder under a new name', () => {
    let plugins: PluginRoot;
    after(() => plugins?.remove());

    it('appears as a new bidder, with the original code, schema and facts', async () => {
      plugins = makePluginRoot(['openx']);
      renameCopiedAdapter(plugins.copyAdapter('openx', 'openxcopy'), 'openx', 'openxcopy');
      const gavel = await startGavel({}, { pluginRoot: plugins.root });
      try {
        const listed = await getJson(`${gavel.url}/info/bidders`);
        expect(listed.json).to.include.members(['openx', 'openxcopy']);
        const [original, copy] = await Promise.all([getJson(`${gavel.url}/info/bidders/openx`), getJson(`${gavel.url}/info/bidders/openxcopy`)]);
        expect(copy.json).to.deep.equal(original.json);
        const params = await getJson(`${gavel.url}/bidders/params`);
        expect(params.json.openxcopy).to.deep.equal(params.json.openx);
      } finally {
        await gavel.close();
      }
    });
  });

  describe('an invalid folder stops boot with a message naming it', () => {
    let plugins: PluginRoot;
    beforeEach(() => void (plugins = makePluginRoot(['ortb'])));
    afterEach(() => plugins.remove());

    const cases: Array<[string, string, string]> = [
      ['a manifest without maintainer', manifestModule({ name: 'broken', info: { capabilities: VALID_INFO.capabilities } }, CREATE), ErrorCode.PluginInvalid],
      ['a manifest with empty capabilities', manifestModule({ name: 'broken', info: { ...VALID_INFO, capabilities: {} } }, CREATE), ErrorCode.PluginInvalid],
      ['an unknown media type', manifestModule({ name: 'broken', info: { ...VALID_INFO, capabilities: { site: { mediaTypes: ['banners'] } } } }, CREATE), ErrorCode.PluginInvalid],
      ['a fractional gvlVendorId', manifestModule({ name: 'broken', info: { ...VALID_INFO, gvlVendorId: 1.5 } }, CREATE), ErrorCode.PluginInvalid],
      ['a user sync without url', manifestModule({ name: 'broken', info: { ...VALID_INFO, userSync: { redirect: { userMacro: '$UID' } } } }, CREATE), ErrorCode.PluginInvalid],
      ['a name with capitals and spaces', manifestModule({ name: 'Broken Adapter', info: VALID_INFO }, CREATE), ErrorCode.PluginInvalid],
      ['no create and no aliasOf', manifestModule({ name: 'broken', paramsSchema: { type: 'object' }, info: VALID_INFO }), ErrorCode.PluginInvalid],
      ['no params schema', manifestModule({ name: 'broken', info: VALID_INFO }, CREATE), ErrorCode.PluginInvalid],
      ['a params schema that does not compile', manifestModule({ name: 'broken', paramsSchema: { type: 'nonsense' }, info: VALID_INFO }, CREATE), ErrorCode.PluginInvalid],
      ['a default export that is not a manifest', 'export default 42;\n', ErrorCode.PluginInvalid],
      ['a module that fails to load', 'export default {;\n', ErrorCode.PluginInvalid],
      ['another SDK major', manifestModule({ name: 'broken', sdkVersion: '1.0.0', paramsSchema: { type: 'object' }, info: VALID_INFO }, CREATE), ErrorCode.PluginSdkMismatch],
    ];

    for (const [what, indexJs, code] of cases) {
      it(what, async () => {
        const folder = plugins.writeAdapter('broken', indexJs);
        const failure = await bootFailure(plugins.root);
        expect(failure?.code).to.equal(code);
        expect(failure?.message).to.contain(folder);
      });
    }

    it('a valid folder next to the others boots (the cases above fail for their own reason)', async () => {
      plugins.writeAdapter('broken', manifestModule({ name: 'broken', paramsSchema: { type: 'object' }, info: VALID_INFO }, CREATE));
      expect(await bootFailure(plugins.root)).to.equal(undefined);
    });

    it('a copy that keeps the original name is a duplicate, naming both folders', async () => {
      const copy = plugins.copyAdapter('ortb', 'ortbcopy');
      const failure = await bootFailure(plugins.root);
      expect(failure?.code).to.equal(ErrorCode.PluginDuplicate);
      expect(failure?.message).to.contain(copy).and.contain(join(plugins.adaptersDir, 'ortb'));
    });
  });
});
