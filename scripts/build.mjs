// Compiles the TypeScript tree with tsc into an empty dist/, then mirrors the non-code files that plugins and tests
// read at run time (JSON schemas, YAML info, fixtures, example data), so that dist/ is a self-contained runnable build
// holding nothing its sources no longer have: plugins are found by scanning dist/, so a stale folder left there by a
// deleted adapter would still be loaded. Starting empty costs nothing measurable (tsc re-emits everything anyway).
//
//   node scripts/build.mjs          (`--clean` is still accepted; every build is clean)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const ASSET_ROOTS = ['core', 'adapters', 'plugins', 'test', 'scripts'];
const ASSET_PATTERN = /\.(json|ya?ml|xml|txt)$/;

function copyAssets(root, outDir, dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules') copyAssets(root, outDir, path);
    } else if (ASSET_PATTERN.test(entry)) {
      cpSync(path, join(outDir, relative(root, path)));
    }
  }
}

/**
 * Builds `root` (its tsconfig.json) into `root/dist`, emptied first. Returns whether tsc reported no error; tsc
 * still emits what it can, and the assets are copied either way, so one broken file doesn't break every plugin's
 * load.
 */
export function build({ root = projectRoot, tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc'), stdio = 'inherit' } = {}) {
  const outDir = join(root, 'dist');
  rmSync(outDir, { recursive: true, force: true });
  let compiled = true;
  try {
    execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json'), '--outDir', outDir], { stdio });
  } catch {
    compiled = false;
  }
  for (const assetRoot of ASSET_ROOTS) {
    const dir = join(root, assetRoot);
    if (existsSync(dir)) copyAssets(root, outDir, dir);
  }
  return { compiled };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!build().compiled) {
    console.error('build failed: tsc reported the errors above');
    process.exit(1);
  }
}
