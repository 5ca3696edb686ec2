import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FilesystemFetcher, isSafeFileId } from '../filesystem-fetcher.js';
import { ErrorCode } from '../../api/index.js';

describe('FilesystemFetcher', () => {
  let root: string;
  let storedDir: string;
  let fetcher: FilesystemFetcher;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'gavel-stored-'));
    storedDir = join(root, 'stored');
    for (const folder of ['requests', 'imps', 'accounts']) await mkdir(join(storedDir, folder), { recursive: true });
    await writeFile(join(storedDir, 'requests', 'req-1.json'), JSON.stringify({ id: 'stored-req', tmax: 300 }));
    await writeFile(join(storedDir, 'requests', 'req-2.json'), JSON.stringify({ id: 'second' }));
    await writeFile(join(storedDir, 'imps', 'imp-1.json'), JSON.stringify({ id: 'imp', banner: { w: 300, h: 250 } }));
    await writeFile(join(storedDir, 'imps', 'broken.json'), '{ not json');
    await writeFile(join(storedDir, 'accounts', 'acct-1.json'), JSON.stringify({ id: 'acct-1', disabled: false }));
    // A file just outside the stored folder, which a traversing id would reach.
    await writeFile(join(root, 'secret.json'), JSON.stringify({ secret: true }));
    fetcher = new FilesystemFetcher(storedDir);
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads stored requests by id and leaves unknown ids out', async () => {
    const found = await fetcher.fetchRequests(['req-1', 'missing', 'req-2']);
    expect([...found.keys()]).to.deep.equal(['req-1', 'req-2']);
    expect(found.get('req-1')).to.deep.equal({ id: 'stored-req', tmax: 300 });
  });

  it('reads stored imps from the imps folder only', async () => {
    const imps = await fetcher.fetchImps(['imp-1', 'req-1']);
    expect([...imps.keys()]).to.deep.equal(['imp-1']);
    expect(imps.get('imp-1')).to.deep.equal({ id: 'imp', banner: { w: 300, h: 250 } });
  });

  it('reads an account, undefined when there is none', async () => {
    expect(await fetcher.fetchAccount('acct-1')).to.deep.equal({ id: 'acct-1', disabled: false });
    expect(await fetcher.fetchAccount('nobody')).to.equal(undefined);
  });

  it('answers an empty map for no ids and for repeated ids reads once', async () => {
    expect((await fetcher.fetchRequests([])).size).to.equal(0);
    const found = await fetcher.fetchRequests(['req-1', 'req-1']);
    expect(found.size).to.equal(1);
  });

  it('never leaves its folder: ids with path separators or ".." are not found', async () => {
    for (const id of ['../../secret', '../secret', '..', 'x/../../secret', '..\\secret', 'req-1\0', '/etc/passwd']) {
      expect((await fetcher.fetchRequests([id])).size, id).to.equal(0);
    }
    expect(await fetcher.fetchAccount('../../secret')).to.equal(undefined);
  });

  it('treats a missing stored folder as "nothing stored"', async () => {
    const empty = new FilesystemFetcher(join(root, 'does-not-exist'));
    expect((await empty.fetchImps(['imp-1'])).size).to.equal(0);
  });

  it('throws a coded error for a file that is not JSON', async () => {
    const error = await fetcher.fetchImps(['imp-1', 'broken']).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).to.have.property('code', ErrorCode.StoredFetchFailed);
    expect((error as Error).message).to.contain('broken');
  });

  it('accepts ordinary ids and rejects unsafe ones', () => {
    expect(isSafeFileId('abc-123_X.v2')).to.equal(true);
    expect(isSafeFileId('')).to.equal(false);
    expect(isSafeFileId('a/b')).to.equal(false);
    expect(isSafeFileId('a..b')).to.equal(false);
    expect(isSafeFileId(42)).to.equal(false);
  });
});
