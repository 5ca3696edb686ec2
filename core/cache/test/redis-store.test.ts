import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisCacheStore } from '../store.js';

/** Runs against a real Redis only when GAVEL_TEST_REDIS names one, e.g. redis://127.0.0.1:6379. */
describe('RedisCacheStore', function () {
  const url = process.env.GAVEL_TEST_REDIS;
  const keyPrefix = `gavel-test:${randomUUID()}:`;
  let redis: Redis;
  let store: RedisCacheStore;

  before(function () {
    if (!url) this.skip();
    redis = new Redis(url!);
    store = new RedisCacheStore({ client: redis, keyPrefix });
  });

  after(async () => {
    if (!redis) return;
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('stores values under fresh uuids and serves them back with their type', async () => {
    const uuids = await store.put([
      { type: 'json', value: '{"id":"b1"}', ttlSeconds: 60 },
      { type: 'xml', value: '<VAST a="1:2"/>', ttlSeconds: 60 },
    ]);
    expect(uuids).to.have.length(2);
    expect(uuids[0]).to.not.equal(uuids[1]);
    expect(await store.get(uuids[0]!)).to.deep.equal({ type: 'json', value: '{"id":"b1"}' });
    expect(await store.get(uuids[1]!)).to.deep.equal({ type: 'xml', value: '<VAST a="1:2"/>' });
  });

  it('sets the TTL on the key so Redis expires it', async () => {
    const [uuid] = await store.put([{ type: 'json', value: '1', ttlSeconds: 42 }]);
    const ttl = await redis.ttl(keyPrefix + uuid);
    expect(ttl).to.be.within(41, 42);
  });

  it('answers undefined for an absent key', async () => {
    expect(await store.get(randomUUID())).to.equal(undefined);
  });

  it('never overwrites an existing key: a clashing key is retried with a fresh one', async () => {
    await redis.set(`${keyPrefix}taken`, 'json:"first"');
    const ids = ['taken', 'free'];
    const clashing = new RedisCacheStore({ client: redis, keyPrefix, newId: () => ids.shift() ?? randomUUID() });
    expect(await clashing.put([{ type: 'json', value: '"second"', ttlSeconds: 60 }])).to.deep.equal(['free']);
    expect(await clashing.get('taken')).to.deep.equal({ type: 'json', value: '"first"' });
    expect(await clashing.get('free')).to.deep.equal({ type: 'json', value: '"second"' });
  });

  it('fails rather than loop when it finds no free key', async () => {
    await redis.set(`${keyPrefix}always`, 'json:1');
    const stuck = new RedisCacheStore({ client: redis, keyPrefix, newId: () => 'always' });
    let failure: unknown;
    await stuck.put([{ type: 'json', value: '2', ttlSeconds: 60 }]).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
  });

  it('opens and closes its own connection from a url', async () => {
    const own = new RedisCacheStore({ url: url!, keyPrefix });
    const [uuid] = await own.put([{ type: 'json', value: '"own"', ttlSeconds: 60 }]);
    expect(await own.get(uuid!)).to.deep.equal({ type: 'json', value: '"own"' });
    await own.close();
  });
});
