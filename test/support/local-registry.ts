/**
 * A package registry on 127.0.0.1 that stands in for the public one, so a test can `npm install` packages the way a
 * host does without any network: it serves the packages of Gavel's own production dependency tree (package-lock.json
 * says which names and versions), each from npm's cache of the tarball `npm ci` fetched, or, when the cache no
 * longer has it, as a tarball made from the installed folder in node_modules.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

interface LockEntry {
  name?: string;
  version: string;
  integrity?: string;
  dev?: boolean;
  link?: boolean;
  [field: string]: unknown;
}

/** The lock fields npm reads from a version's manifest when it resolves a tree. */
const MANIFEST_FIELDS = ['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines', 'os', 'cpu', 'license'];

export interface LocalRegistry {
  url: string;
  /** How many package versions it serves. */
  versions: number;
  close(): Promise<void>;
}

function npmCacheDir(): string {
  try {
    return execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return join(process.env.HOME ?? '/root', '.npm');
  }
}

/** The tarball npm's cache holds under this integrity (cacache's content address), if it still does. */
function cachedTarball(cacheDir: string, integrity: string | undefined): Buffer | undefined {
  if (!integrity) return undefined;
  const [algorithm, digest] = integrity.split(' ')[0]!.split('-');
  if (!algorithm || !digest) return undefined;
  const hex = Buffer.from(digest, 'base64').toString('hex');
  const path = join(cacheDir, '_cacache', 'content-v2', algorithm, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
  return existsSync(path) ? readFileSync(path) : undefined;
}

/** A tarball of an installed package folder, laid out as npm packs it (`package/...`), without nested installs. */
function tarballOf(folder: string): Buffer {
  return execFileSync('tar', ['-cz', '-C', folder, '--exclude=./node_modules', '--transform', 's,^\\.,package,', '.'], { maxBuffer: 64 * 1024 * 1024 });
}

/** Serves the production dependencies recorded in `root`'s package-lock.json. */
export async function startLocalRegistry(root: string): Promise<LocalRegistry> {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const cacheDir = npmCacheDir();
  const packuments = new Map<string, { name: string; versions: Record<string, Record<string, unknown>>; 'dist-tags': Record<string, string> }>();
  const tarballs: Buffer[] = [];
  let url = '';
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]!.slice(1));
    const tarball = /^-\/tarballs\/(\d+)\.tgz$/.exec(path);
    if (tarball && tarballs[Number(tarball[1])]) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(tarballs[Number(tarball[1])]);
      return;
    }
    const packument = packuments.get(path);
    if (!packument) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.dev || entry.link) continue;
    const name = entry.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const packument = packuments.get(name) ?? { name, versions: {}, 'dist-tags': {} };
    packuments.set(name, packument);
    if (packument.versions[entry.version]) continue;
    const bytes = cachedTarball(cacheDir, entry.integrity) ?? tarballOf(join(root, path));
    tarballs.push(bytes);
    const manifest: Record<string, unknown> = { name, version: entry.version };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) manifest[field] = entry[field];
    manifest.dist = {
      tarball: `${url}/-/tarballs/${tarballs.length - 1}.tgz`,
      integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
    };
    packument.versions[entry.version] = manifest;
    const latest = packument['dist-tags'].latest;
    if (!latest || compareVersions(entry.version, latest) > 0) packument['dist-tags'].latest = entry.version;
  }
  return {
    url,
    versions: tarballs.length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map(Number);
  const pb = b.split(/[.-]/).map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) - (pb[i] ?? 0);
  return 0;
}
