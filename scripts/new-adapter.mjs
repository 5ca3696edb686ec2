// Scaffolds a bidder adapter folder that builds, passes its own test and is listed by /info/bidders out of the box:
//
//   npm run new-adapter -- <name> [--root <dir>]
//
// <name> is lower-case letters, digits and single hyphens (e.g. "acme", "acme-ads", "33across"). The folder goes
// to <root>/adapters/<name> (root defaults to this repository). Files come from scripts/templates/adapter/, where
// __NAME__ stands for the adapter name and __PASCAL__ for it in PascalCase.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const templateDir = join(repoRoot, 'scripts', 'templates', 'adapter');
const NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 40;

class UsageError extends Error {}

function parseArgs(argv) {
  const options = { root: repoRoot, name: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--root') {
      if (!argv[i + 1]) throw new UsageError('--root needs a directory');
      options.root = resolve(argv[++i]);
    } else if (arg === '--help' || arg === '-h') {
      options.help = true;
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else if (options.name === undefined) {
      options.name = arg;
    } else {
      throw new UsageError(`one adapter name at a time (got "${options.name}" and "${arg}")`);
    }
  }
  return options;
}

function checkName(name, adaptersDir) {
  if (name === undefined) throw new UsageError('name the adapter: npm run new-adapter -- <name>');
  if (!NAME.test(name) || name.length > MAX_NAME_LENGTH) {
    throw new UsageError(`"${name}" is not a valid adapter name: use lower-case letters, digits and single hyphens, at most ${MAX_NAME_LENGTH} characters (e.g. acme-ads)`);
  }
  if (existsSync(join(adaptersDir, name))) throw new UsageError(`adapters/${name} already exists; pick another name or remove it first`);
}

function pascalCase(name) {
  return name.split('-').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
}

/** Template files, as paths relative to the template folder. */
function templateFiles(dir = templateDir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? templateFiles(path) : [relative(templateDir, path)];
  });
}

/** Where a template lands in the new folder: `.tmpl` dropped, the generic bidder and test files named after it. */
function outputPath(templatePath, name) {
  const path = templatePath.replace(/\.tmpl$/, '').split('\\').join('/');
  if (path === 'bidder.ts') return `${name}.ts`;
  if (path === 'test/adapter.test.ts') return `test/${name}.test.ts`;
  return path;
}

function scaffold(name, root) {
  const adaptersDir = join(root, 'adapters');
  checkName(name, adaptersDir);
  const target = join(adaptersDir, name);
  const fill = (text) => text.replaceAll('__NAME__', name).replaceAll('__PASCAL__', pascalCase(name));
  const written = [];
  try {
    for (const templatePath of templateFiles()) {
      const destination = join(target, outputPath(templatePath, name));
      mkdirSync(dirname(destination), { recursive: true });
      writeFileSync(destination, fill(readFileSync(join(templateDir, templatePath), 'utf8')), { flag: 'wx' });
      written.push(relative(root, destination));
    }
  } catch (err) {
    rmSync(target, { recursive: true, force: true });
    throw err;
  }
  return written.sort();
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
    if (options.help) {
      console.log('usage: npm run new-adapter -- <name> [--root <dir>]');
      return;
    }
    const written = scaffold(options.name, options.root);
    console.log(`created adapters/${options.name}:`);
    for (const file of written) console.log(`  ${file}`);
    console.log([
      '',
      'next:',
      `  1. put the bidder's real facts in adapters/${options.name}/index.ts (endpoint, maintainer, gvlVendorId, capabilities)`,
      `  2. write its params schema, request and response code, and fixtures (see docs/adapters.md)`,
      `  3. npm test   (builds, then runs adapters/${options.name}/test and the registry checks)`,
    ].join('\n'));
  } catch (err) {
    console.error(`new-adapter: ${err instanceof UsageError ? err.message : err.stack ?? err}`);
    process.exitCode = 1;
  }
}

main();
