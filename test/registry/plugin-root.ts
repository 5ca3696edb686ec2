/**
 * Temporary plugin roots for tests that need a different set of adapters than the compiled tree has: a root looks
 * like dist/ to `discoverPlugins({ root })` and `bootGavel(config, { pluginRoot })`, with `core` and `plugins`
 * linked to the real build and only the adapter folders a test asks for.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SDK_VERSION } from '../../core/api/index.js';
import { distRoot } from '../../core/plugins/discover.js';

export { distRoot };
/** The source tree: the folder dist/ was built from. */
export const repoRoot = resolve(distRoot, '..');

export interface PluginRoot {
  root: string;
  adaptersDir: string;
  /** Adds a copy of the compiled adapter `from` under the folder name `to` (unchanged manifest). */
  copyAdapter(from: string, to?: string): string;
  /** Writes a plugin folder whose `index.js` is the given module source. */
  writeAdapter(folder: string, indexJs: string): string;
  remove(): void;
}

export function makePluginRoot(adapters: string[] = []): PluginRoot {
  const root = mkdtempSync(join(tmpdir(), 'gavel-plugin-root-'));
  const adaptersDir = join(root, 'adapters');
  mkdirSync(adaptersDir);
  // Adapters import the SDK as ../../core/api/index.js; the link makes that the real compiled SDK.
  symlinkSync(join(distRoot, 'core'), join(root, 'core'), 'dir');
  symlinkSync(join(distRoot, 'plugins'), join(root, 'plugins'), 'dir');

  const pluginRoot: PluginRoot = {
    root,
    adaptersDir,
    copyAdapter(from, to = from) {
      const target = join(adaptersDir, to);
      cpSync(join(distRoot, 'adapters', from), target, { recursive: true });
      return target;
    },
    writeAdapter(folder, indexJs) {
      const target = join(adaptersDir, folder);
      mkdirSync(target, { recursive: true });
      writeFileSync(join(target, 'index.js'), indexJs);
      return target;
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  for (const adapter of adapters) pluginRoot.copyAdapter(adapter);
  return pluginRoot;
}

/**
 * Renames the adapter in a copied folder's compiled `index.js`, the one edit a copy needs. Throws unless the
 * manifest states the old name exactly once, so a change in how manifests are written fails loudly here.
 */
export function renameCopiedAdapter(folder: string, from: string, to: string): void {
  const indexPath = join(folder, 'index.js');
  const source = readFileSync(indexPath, 'utf8');
  const statement = new RegExp(`name:\\s*(['"])${from}\\1`, 'g');
  const found = source.match(statement) ?? [];
  if (found.length !== 1) throw new Error(`${indexPath} states name "${from}" ${found.length} times, expected once`);
  writeFileSync(indexPath, source.replace(statement, `name: '${to}'`));
}

/** A plain-JavaScript manifest module (what tsc would emit for a `defineAdapter({...})` file). */
export function manifestModule(manifest: Record<string, unknown>, createSource?: string): string {
  const body = JSON.stringify({ kind: 'adapter', sdkVersion: SDK_VERSION, version: '1.0.0', ...manifest }, null, 2);
  return createSource === undefined
    ? `export default ${body};\n`
    : `const manifest = ${body};\nmanifest.create = ${createSource};\nexport default manifest;\n`;
}
