import { expect } from 'chai';
import { HttpError, nestsDeeperThan, parseJsonObject } from '../../core/http/body.js';
import { ErrorCode } from '../../core/api/index.js';

const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('JSON depth limit (the byte scan before parsing)', () => {
  it('counts arrays and objects opened inside each other, up to the limit and one past it', () => {
    expect(nestsDeeperThan(bytes(nested(64)), 64)).to.equal(false);
    expect(nestsDeeperThan(bytes(nested(65)), 64)).to.equal(true);
    expect(nestsDeeperThan(bytes(`{"a":${nested(3)},"b":{"c":{}}}`), 3)).to.equal(true);
    expect(nestsDeeperThan(bytes(`{"a":${nested(2)},"b":{"c":{}}}`), 3)).to.equal(false);
  });

  it('counts siblings once: depth is how deep, not how many', () => {
    expect(nestsDeeperThan(bytes(`[${Array(200).fill('{}').join(',')}]`), 2)).to.equal(false);
  });

  it('skips brackets inside strings, escaped quotes and backslashes included', () => {
    expect(nestsDeeperThan(bytes(`{"a":"${'['.repeat(100)}"}`), 2)).to.equal(false);
    expect(nestsDeeperThan(bytes(`{"a":"x\\"${'{'.repeat(100)}"}`), 2)).to.equal(false);
    expect(nestsDeeperThan(bytes(`{"a":"x\\\\","b":${nested(3)}}`), 3)).to.equal(true);
  });

  it('reads the bytes of multi-byte UTF-8 characters as text, never as brackets', () => {
    expect(nestsDeeperThan(bytes(`{"a":"€[🎯{","b":["ü"]}`), 2)).to.equal(false);
    expect(nestsDeeperThan(bytes(`{"€":{"🎯":${nested(2)}}}`), 3)).to.equal(true);
  });

  it('answers a body past the limit with the depth error, before parsing', () => {
    let thrown: unknown;
    try {
      parseJsonObject(bytes(`{"a":${nested(70)}`), 64);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).to.be.instanceOf(HttpError);
    expect((thrown as HttpError).status).to.equal(400);
    expect((thrown as HttpError).code).to.equal(ErrorCode.RequestTooDeep);
    expect(parseJsonObject(bytes(`{"a":"ü","b":${nested(3)}}`), 64)).to.deep.equal({ a: 'ü', b: [[[]]] });
  });
});
