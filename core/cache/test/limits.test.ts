import { expect } from 'chai';
import { ErrorCode } from '../../api/index.js';
import { checkPut, DEFAULT_CACHE_LIMITS, maxRequestBodyBytes, resolveCacheLimits, type CacheLimits } from '../limits.js';

const limits: CacheLimits = { ...DEFAULT_CACHE_LIMITS };

function entryOf(put: unknown, withLimits: CacheLimits = limits) {
  const checked = checkPut(put, withLimits);
  if (!checked.ok) throw new Error(`expected the put to pass, got: ${checked.reason}`);
  return checked.entry;
}

function reasonOf(put: unknown, withLimits: CacheLimits = limits): string {
  const checked = checkPut(put, withLimits);
  if (checked.ok) throw new Error('expected the put to be refused');
  return checked.reason;
}

describe('cache limits', () => {
  describe('resolveCacheLimits', () => {
    it('defaults to 10 KiB values, 10 puts per call and a one hour TTL cap', () => {
      expect(resolveCacheLimits()).to.deep.equal({ maxValueBytes: 10240, maxPutsPerRequest: 10, maxTtlSeconds: 3600, defaultTtlSeconds: 3600 });
    });

    it('takes overrides from config and keeps the other defaults', () => {
      const resolved = resolveCacheLimits({ maxValueBytes: 2048, maxTtlSeconds: 600, defaultTtlSeconds: 300 });
      expect(resolved).to.deep.equal({ maxValueBytes: 2048, maxPutsPerRequest: 10, maxTtlSeconds: 600, defaultTtlSeconds: 300 });
    });

    for (const bad of [0, -1, 1.5, '10', null]) {
      it(`refuses ${JSON.stringify(bad)} as a limit with a config error`, () => {
        expect(() => resolveCacheLimits({ maxPutsPerRequest: bad })).to.throw().with.property('code', ErrorCode.ConfigInvalid);
      });
    }

    it('refuses a default TTL above the cap', () => {
      expect(() => resolveCacheLimits({ maxTtlSeconds: 60 })).to.throw(/defaultTtlSeconds/).with.property('code', ErrorCode.ConfigInvalid);
    });
  });

  describe('checkPut', () => {
    it('keeps json values as JSON text', () => {
      expect(entryOf({ type: 'json', value: { id: 'b1', price: 1.5 }, ttlseconds: 60 })).to.deep.equal({
        type: 'json',
        value: '{"id":"b1","price":1.5}',
        ttlSeconds: 60,
      });
    });

    it('keeps xml values as the string itself', () => {
      expect(entryOf({ type: 'xml', value: '<VAST version="3.0"/>', ttlseconds: 60 }).value).to.equal('<VAST version="3.0"/>');
    });

    it('refuses xml values that are not strings', () => {
      expect(reasonOf({ type: 'xml', value: { vast: 1 } })).to.match(/value must be a string of XML/);
    });

    it('refuses an unknown type, naming it', () => {
      expect(reasonOf({ type: 'html', value: 'x' })).to.equal('type must be "json" or "xml", got "html"');
    });

    it('refuses a put without a value', () => {
      expect(reasonOf({ type: 'json' })).to.equal('value is required');
      expect(reasonOf({ type: 'json', value: null })).to.equal('value is required');
    });

    it('refuses a put that is not an object', () => {
      expect(reasonOf('hello')).to.match(/must be an object/);
      expect(reasonOf([1])).to.match(/must be an object/);
    });

    it('refuses values that cannot be written as JSON instead of throwing', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      expect(reasonOf({ type: 'json', value: cyclic })).to.equal('value cannot be written as JSON');
      expect(reasonOf({ type: 'json', value: 10n })).to.equal('value cannot be written as JSON');
    });

    it('measures the size in UTF-8 bytes and refuses values above the limit', () => {
      const small = { ...limits, maxValueBytes: 10 };
      expect(entryOf({ type: 'xml', value: '0123456789' }, small).value).to.have.length(10);
      // Five two-byte characters are ten bytes; six are twelve.
      expect(entryOf({ type: 'xml', value: 'ééééé' }, small).value).to.equal('ééééé');
      expect(reasonOf({ type: 'xml', value: 'éééééé' }, small)).to.equal('value is 12 bytes, larger than the limit of 10 bytes');
    });

    it('refuses a negative TTL', () => {
      expect(reasonOf({ type: 'json', value: 1, ttlseconds: -1 })).to.equal('ttlseconds must not be negative, got -1');
    });

    it('refuses a TTL that is not a number', () => {
      expect(reasonOf({ type: 'json', value: 1, ttlseconds: '60' })).to.match(/ttlseconds must be a number/);
    });

    it('gives the default TTL when none or 0 is named', () => {
      const custom = { ...limits, defaultTtlSeconds: 120 };
      expect(entryOf({ type: 'json', value: 1 }, custom).ttlSeconds).to.equal(120);
      expect(entryOf({ type: 'json', value: 1, ttlseconds: 0 }, custom).ttlSeconds).to.equal(120);
    });

    it('cuts TTLs above the cap and rounds fractions up to whole seconds', () => {
      expect(entryOf({ type: 'json', value: 1, ttlseconds: 86400 }).ttlSeconds).to.equal(3600);
      expect(entryOf({ type: 'json', value: 1, ttlseconds: 0.2 }).ttlSeconds).to.equal(1);
    });
  });

  it('reads bodies big enough for a full call of escaped values', () => {
    const fullCall = JSON.stringify({ puts: Array.from({ length: 10 }, () => ({ type: 'xml', value: '"'.repeat(10240), ttlseconds: 3600 })) });
    expect(Buffer.byteLength(fullCall)).to.be.at.most(maxRequestBodyBytes(limits));
  });
});
