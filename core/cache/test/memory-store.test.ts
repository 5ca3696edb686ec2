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

  it('never overwrites a live key: a clashing key is skipped', async () => {
    const ids = ['same', 'same', 'other'];
    const store = new MemoryCacheStore({ newId: () => ids.shift()! });
    const [first] = await store.put([json('"first"')]);
    const [second] = await store.put([json('"second"')]);
    expect([first, second]).to.deep.equal(['same', 'other']);
    expect(await store.get('same')).to.deep.equal({ type: 'json', value: '"first"' });
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
    const value = `"${'x'.repeat(498)}"`; // 500 characters: about 1250 accounted bytes with the entry overhead
    const [first, second] = await store.put([json(value), json(value)]);
    const [third] = await store.put([json(value)]);
    expect(store.sizeBytes).to.be.at.most(3000);
    expect(await store.get(first!), 'oldest entry is dropped').to.equal(undefined);
    expect(await store.get(second!)).to.not.equal(undefined);
    expect(await store.get(third!)).to.not.equal(undefined);
  });

  it('evicts in insertion order across many puts, skipping entries already dropped as expired', async () => {
    const clock = manualClock();
    const store = new MemoryCacheStore({ now: clock.now, maxTotalBytes: 20 * 1260 });
    const value = `"${'x'.repeat(498)}"`; // 1256 accounted bytes: 20 fit
    const uuids: string[] = [];
    for (let round = 0; round < 5; round++) uuids.push(...(await store.put([json(value, 60)])));
    const shortLived = await store.put([json(value, 1)]);
    for (let round = 0; round < 5; round++) uuids.push(await store.put([json(value, 60)]).then(([uuid]) => uuid!));
    clock.advance(1000);
    // Dropped by get, out of order (older live entries before it): its bytes are released at once.
    expect(await store.get(shortLived[0]!)).to.equal(undefined);
    expect(store.entryCount).to.equal(10);
    for (let round = 0; round < 3000; round++) uuids.push(...(await store.put([json(value, 60)])));
    expect(store.entryCount).to.equal(20);
    expect(store.sizeBytes).to.equal(20 * 1256);
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
});
