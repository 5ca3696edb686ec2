import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes a minimal module package (`<dir>/<name>/`) whose default export is `manifest`, a JavaScript object literal
 * (hooks included, as source), so a test can name it in config `plugins` as `./<name>`. It returns the folder.
 */
export function writeModulePackage(dir: string, name: string, manifest: string): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, type: 'module', exports: './index.js' }));
  writeFileSync(join(folder, 'index.js'), `export default ${manifest};\n`);
  return folder;
}
