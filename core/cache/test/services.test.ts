import { expect } from 'chai';
import { ErrorCode } from '../../api/index.js';
import { createCacheServices, EmbeddedCacheClient, MemoryCacheStore, parseCachePublicUrl, RemoteCacheClient } from '../index.js';

describe('createCacheServices', () => {
  it('builds an in-memory embedded cache by default, with default limits', async () => {
    const services = createCacheServices();
    expect(services.store).to.be.instanceOf(MemoryCacheStore);
    expect(services.client).to.be.instanceOf(EmbeddedCacheClient);
    expect(services.limits.maxPutsPerRequest).to.equal(10);
    const [uuid] = await services.client.put([{ type: 'json', value: { a: 1 } }], Date.now() + 1000);
    expect(await services.store!.get(uuid!)).to.deep.equal({ type: 'json', value: '{"a":1}' });
    await services.close();
  });

  it('sends to a remote cache, with no store of its own, when cache.url is set', () => {
    const services = createCacheServices({ url: 'https://cache.example.com/cache', limits: { maxValueBytes: 2048 } });
    expect(services.client).to.be.instanceOf(RemoteCacheClient);
    expect(services.store).to.equal(undefined);
    expect(services.limits.maxValueBytes).to.equal(2048);
  });

  it('splits the public address into host and path for the targeting keys', () => {
    expect(createCacheServices({ publicUrl: 'https://cache.example.com:8443/pbc/cache' }).publicUrl).to.deep.equal({
      scheme: 'https',
      host: 'cache.example.com:8443',
      path: '/pbc/cache',
    });
  });

  it('refuses a public address that is not an absolute URL with a config error', () => {
    expect(() => parseCachePublicUrl('cache.example.com/cache')).to.throw().with.property('code', ErrorCode.ConfigInvalid);
  });
});
