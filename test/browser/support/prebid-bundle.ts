/**
 * Prebid.js for the browser suite, bundled from the pinned `prebid.js` npm package the way Prebid's own `gulp bundle`
 * does with prebuilt files: the package ships every module precompiled as a chunk (`dist/chunks/<module>.js`) and
 * the chunks each one needs (`dist/chunks/dependencies.json`), so a bundle is the core chunk, the needed chunks and
 * the modules' chunks concatenated, then `pbjs.processQueue()`. No build tool, no network.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';

/** The modules a publisher's page points at Prebid Server needs: the s2s adapter and GAM video URLs (native is core). */
export const PREBID_MODULES = ['prebidServerBidAdapter', 'gamAdServerVideo'] as const;

/** The installed package's folder (its `exports` hide package.json from require.resolve; its main entry is inside). */
function packageFolder(): string {
  const main = createRequire(import.meta.url).resolve('prebid.js');
  const marker = `${sep}node_modules${sep}prebid.js${sep}`;
  return main.slice(0, main.lastIndexOf(marker) + marker.length);
}

/** The folder of prebuilt chunks of the installed package. */
function chunksFolder(): string {
  return join(packageFolder(), 'dist', 'chunks');
}

/** The installed package's version: the suite names it in its reports. */
export function prebidVersion(): string {
  return (JSON.parse(readFileSync(join(packageFolder(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The bundle's source: core, the chunks the modules need (each once, in dependency order), the modules, processQueue. */
export function buildPrebidBundle(modules: readonly string[] = PREBID_MODULES): string {
  const folder = chunksFolder();
  const graph = JSON.parse(readFileSync(join(folder, 'dependencies.json'), 'utf8')) as Record<string, string[]>;
  const entries = ['prebid-core.js', ...modules.map((name) => `${name}.js`)];
  const files: string[] = ['prebid-core.js'];
  for (const entry of entries) for (const dependency of graph[entry] ?? []) if (!files.includes(dependency)) files.push(dependency);
  for (const entry of entries) if (!files.includes(entry)) files.push(entry);
  const source = files.map((file) => readFileSync(join(folder, file), 'utf8')).join('\n');
  return `/* prebid.js ${prebidVersion()}: ${modules.join(', ')} */\nif (!window.pbjs || !window.pbjs.libLoaded) {\n${source}\npbjs.processQueue();\n}\n`;
}
