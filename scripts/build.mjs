// Compiles the TypeScript tree with tsc, then mirrors the non-code files that plugins and tests read at run time
// (JSON schemas, YAML info, fixtures, example data) into dist/, so that dist/ is a self-contained runnable build.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'dist');
const assetRoots = ['core', 'adapters', 'plugins', 'test', 'scripts'];
const assetPattern = /\.(json|ya?ml|xml|txt)$/;

if (process.argv.includes('--clean')) rmSync(outDir, { recursive: true, force: true });

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
let compiled = true;
try {
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
} catch {
  // tsc still emitted what it could; copy the assets too, so one broken file doesn't break every plugin's load.
  compiled = false;
}

function copyAssets(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) {
      if (entry !== 'node_modules') copyAssets(path);
    } else if (assetPattern.test(entry)) {
      cpSync(path, join(outDir, relative(root, path)));
    }
  }
}
for (const assetRoot of assetRoots) {
  const dir = join(root, assetRoot);
  if (existsSync(dir)) copyAssets(dir);
}

if (!compiled) {
  console.error('build failed: tsc reported the errors above');
  process.exit(1);
}
