import { expect } from 'chai';
import { MemoryCacheStore, type CacheEntry } from '../store.js';
import { manualClock } from './server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const json = (value: string, ttlSeconds = 60): CacheEntry => ({ type: 'json', value, ttlSeconds });

describe('MemoryCacheStore', () => {
  it('answers one fresh uuid per entry, in order, and serves each value back with its type', async () => {
    const store = new MemoryCacheStore();
    const entries: CacheEntry[] = [json('{"a":1}'), { type: 'xml', value: '<VAST/>', ttlSeconds: 60 }, json('{"a":1}')];
    const uuids = await store.put(entries);
    expect(uuids).to.have.length(3);
    for (const uuid of uuids) expect(uuid).to.match(UUID);
    expect(new Set(uuids).size, 'equal values still get their own keys').to.equal(3);
    expect(await store.get(uuids[0]!)).to.deep.equal({ type: 'json', value: '{"a":1}' });
    expect(await store.get(uuids[1]!)).to.deep.equal({ type: 'xml', value: '<VAST/>' });
  });

  it('finds a value only under its own key: a key with another random part, or pointing inside a value, finds nothing', async () => {
    const store = new MemoryCacheStore();
    const [first, second] = await store.put([json(`"${'x'.repeat(100)}"`), json('"second"')]);
    const flipped = first!.slice(0, 35) + (first!.endsWith('0') ? '1' : '0');
    expect(await store.get(flipped), 'same place, other random part').to.equal(undefined);
    // The first 8 hex digits are the entry's place in the ring (in 8-byte steps): one step on is inside the first value.
    const inside = (parseInt(first!.slice(0, 8), 16) + 1).toString(16).padStart(8, '0') + first!.slice(8);
    expect(await store.get(inside), 'a place where no entry starts').to.equal(undefined);
    expect(await store.get(first!.toUpperCase()), 'not the form this cache hands out').to.equal(undefined);
    expect(await store.get(first!)).to.deep.equal({ type: 'json', value: `"${'x'.repeat(100)}"` });
    expect(await store.get(second!)).to.deep.equal({ type: 'json', value: '"second"' });
  });

  it('serves values with any characters back as they were put', async () => {
    const store = new MemoryCacheStore();
    const value = '{"adm":"<div>caf\u00e9 \u2014 \u{1F600}</div>","price":1.5}';
    const [uuid] = await store.put([json(value)]);
    expect(await store.get(uuid!)).to.deep.equal({ type: 'json', value });
  });

  it('answers undefined for a key it never stored', async () => {
    expect(await new MemoryCacheStore().get('no-such-key')).to.equal(undefined);
  });

  it('forgets a value once its TTL has passed', async () => {
    const clock = manualClock();
    const store = new MemoryCacheStore({ now: clock.now });
    const [short, long] = await store.put([json('"short"', 1), json('"long"', 10)]);
    clock.advance(999);
    expect(await store.get(short!)).to.deep.equal({ type: 'json', value: '"short"' });
    clock.advance(1);
    expect(await store.get(short!)).to.equal(undefined);
    expect(await store.get(long!)).to.deep.equal({ type: 'json', value: '"long"' });
    expect(store.entryCount).to.equal(1);
  });

  it('releases the memory of expired entries when new ones come in', async () => {
    const clock = manualClock();
    const store = new MemoryCacheStore({ now: clock.now });
    await store.put([json('"a"', 1), json('"b"', 1)]);
    const filled = store.sizeBytes;
    clock.advance(1000);
    await store.put([json('"c"', 1)]);
    expect(store.entryCount).to.equal(1);
    expect(store.sizeBytes).to.equal(filled / 2);
  });

  it('stays within its memory budget by dropping the oldest entries', async () => {
    const store = new MemoryCacheStore({ maxTotalBytes: 3000 });
    const value = `"${'x'.repeat(998)}"`; // 1000 bytes and a 32-byte header: two fit
    const [first, second] = await store.put([json(value), json(value)]);
    const [third] = await store.put([json(value)]);
    expect(store.sizeBytes).to.be.at.most(3000);
    expect(await store.get(first!), 'oldest entry is dropped').to.equal(undefined);
    expect(await store.get(second!)).to.not.equal(undefined);
    expect(await store.get(third!)).to.not.equal(undefined);
  });

  it('evicts in insertion order across many puts, skipping entries already dropped as expired', async () => {
    const clock = manualClock();
    const store = new MemoryCacheStore({ now: clock.now, maxTotalBytes: 20 * 1032 });
    const value = `"${'x'.repeat(998)}"`; // 1000 bytes (a multiple of 8) and a 32-byte header: 20 fit exactly
    const uuids: string[] = [];
    for (let round = 0; round < 5; round++) uuids.push(...(await store.put([json(value, 60)])));
    const shortLived = await store.put([json(value, 1)]);
    for (let round = 0; round < 5; round++) uuids.push(await store.put([json(value, 60)]).then(([uuid]) => uuid!));
    clock.advance(1000);
    // Found expired by a get, out of order (older live entries before it): no longer counted or served.
    expect(await store.get(shortLived[0]!)).to.equal(undefined);
    expect(store.entryCount).to.equal(10);
    for (let round = 0; round < 3000; round++) uuids.push(...(await store.put([json(value, 60)])));
    expect(store.entryCount).to.equal(20);
    expect(store.sizeBytes).to.equal(20 * 1032);
    const live = uuids.slice(-20);
    for (const uuid of live) expect(await store.get(uuid)).to.not.equal(undefined);
    expect(await store.get(uuids[uuids.length - 21]!), 'the 21st newest is gone').to.equal(undefined);
  });

  it('refuses a value larger than its whole budget', async () => {
    const store = new MemoryCacheStore({ maxTotalBytes: 1000 });
    let failure: unknown;
    await store.put([json(`"${'x'.repeat(1000)}"`)]).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(store.entryCount).to.equal(0);
  });

  it('empties itself on close', async () => {
    const store = new MemoryCacheStore();
    const [uuid] = await store.put([json('1')]);
    await store.close();
    expect(await store.get(uuid!)).to.equal(undefined);
    expect(store.sizeBytes).to.equal(0);
  });

  it('never serves a wrong value while values of every size wrap around the ring many times', async () => {
    const clock = manualClock();
    const budget = 64 * 1024;
    const store = new MemoryCacheStore({ now: clock.now, maxTotalBytes: budget });
    let seed = 7;
    const random = (below: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const history: Array<{ uuid: string; value: string; bytes: number }> = [];
    let served = 0;
    for (let round = 0; round < 4000; round++) {
      const value = `"${String.fromCharCode(97 + (round % 26)).repeat(random(4000))}${round}"`;
      const ttl = random(10) === 0 ? 1 : 600;
      const [uuid] = await store.put([json(value, ttl)]);
      history.push({ uuid: uuid!, value, bytes: 32 + value.length });
      if (round % 50 === 0) clock.advance(500);
      expect(store.sizeBytes).to.be.at.most(budget);
      const probe = history[history.length - 1 - random(Math.min(history.length, 40))]!;
      const found = await store.get(probe.uuid);
      if (found) {
        served++;
        expect(found.value, `round ${round}`).to.equal(probe.value);
      }
    }
    expect(served, 'recent values were found').to.be.above(1000);
    // The newest entries are all there while they take at most half the ring (the rest may be lost to the wrap).
    let recent = 0;
    for (const entry of [...history].reverse()) {
      recent += entry.bytes + 8;
      if (recent > budget / 2) break;
      expect(await store.get(entry.uuid)).to.deep.equal({ type: 'json', value: entry.value });
    }
  });
});
