import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { createStoredDataFetcher } from '../create-fetcher.js';
import { FilesystemWatch } from '../filesystem-watch.js';
import { HttpChangeFeed } from '../http-changes.js';
import { readInvalidationRequest, type StoredChange } from '../invalidation.js';
import { eventually } from '../../../test/support/eventually.js';

const silent = pino({ level: 'silent' });

describe('stored data change feeds', () => {
  describe('FilesystemWatch', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'gavel-watch-'));
      mkdirSync(join(dir, 'requests'));
      mkdirSync(join(dir, 'responses'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('tells which document a changed file holds', async () => {
      const heard: Array<readonly StoredChange[] | undefined> = [];
      const watch = new FilesystemWatch(dir, (changes) => heard.push(changes), silent);
      watch.start();
      try {
        expect(watch.connected).to.equal(true);
        writeFileSync(join(dir, 'requests', 'tag-1.json'), '{"id":"1"}');
        writeFileSync(join(dir, 'responses', 'r-1.json'), '{}');
        const told = (kind: string, id: string) => () => heard.some((changes) => changes?.some((change) => change.kind === kind && change.id === id));
        await eventually('the request change', told('request', 'tag-1'), Boolean, 2000);
        await eventually('the response change', told('response', 'r-1'), Boolean, 2000);
      } finally {
        await watch.close();
      }
    });

    it('does nothing for a folder that does not exist (the cache then expires by TTL)', async () => {
      const watch = new FilesystemWatch(join(dir, 'absent'), () => undefined, silent);
      watch.start();
      expect(watch.connected).to.equal(false);
      await watch.close();
    });

    it('serves a changed file at once through the cached fetcher', async () => {
      writeFileSync(join(dir, 'requests', 'tag-2.json'), '{"v":1}');
      const stored = createStoredDataFetcher({ backend: 'filesystem', dir, cache: { ttlMs: 300_000, maxEntries: 100 } }, silent);
      try {
        expect((await stored.fetcher.fetchRequests(['tag-2'])).get('tag-2')).to.deep.equal({ v: 1 });
        writeFileSync(join(dir, 'requests', 'tag-2.json'), '{"v":2}');
        await eventually('the changed file', async () => (await stored.fetcher.fetchRequests(['tag-2'])).get('tag-2'), (found) => (found as { v?: number } | undefined)?.v === 2, 2000);
      } finally {
        await stored.close();
      }
    });
  });

  describe('HttpChangeFeed', () => {
    let server: Server;
    let url: string;
    const asked: string[] = [];
    let answer: unknown = {};

    before(async () => {
      server = createServer((req, res) => {
        asked.push(req.url ?? '');
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(answer));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    it('asks what changed since its last call and invalidates every id named, deletes (null) included', async () => {
      const heard: StoredChange[] = [];
      const feed = new HttpChangeFeed({ url, intervalMs: 60_000, timeoutMs: 1000, sink: (changes) => heard.push(...(changes ?? [])), logger: silent });
      answer = { requests: { r1: { id: 'r1' }, gone: null }, imps: { i1: {} }, accounts: { a1: {} }, unknown: { x: 1 } };
      await feed.poll();
      expect(feed.connected).to.equal(true);
      expect(heard).to.deep.equal([
        { kind: 'request', id: 'r1' },
        { kind: 'request', id: 'gone' },
        { kind: 'imp', id: 'i1' },
        { kind: 'account', id: 'a1' },
      ]);
      const lastModified = new URL(asked.at(-1)!, 'http://x').searchParams.get('last-modified');
      expect(Number.isNaN(Date.parse(lastModified!))).to.equal(false);
      await feed.close();
    });
  });

  describe('the admin endpoint body', () => {
    it('reads everything, or ids per kind, and names what is wrong', () => {
      expect(readInvalidationRequest({ all: true })).to.deep.equal({ all: true });
      expect(readInvalidationRequest({ requests: ['a'], imps: ['b'], accounts: ['c'], responses: ['d'] })).to.deep.equal({
        changes: [
          { kind: 'request', id: 'a' },
          { kind: 'imp', id: 'b' },
          { kind: 'account', id: 'c' },
          { kind: 'response', id: 'd' },
        ],
      });
      expect(readInvalidationRequest({ request: ['a'] })).to.have.property('error').that.contains('unknown member "request"');
      expect(readInvalidationRequest({ requests: 'a' })).to.have.property('error').that.contains('"requests" must be an array');
      expect(readInvalidationRequest({ all: true, requests: ['a'] })).to.have.property('error');
      expect(readInvalidationRequest([])).to.have.property('error');
      expect(readInvalidationRequest({})).to.have.property('error');
    });
  });
});
