import { expect } from 'chai';
import { mergePatch } from '../merge.js';

describe('mergePatch (RFC 7386)', () => {
  // The test cases of RFC 7386, Appendix A: original, patch, result.
  const appendixA: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  appendixA.forEach(([original, patch, result], i) => {
    it(`Appendix A case ${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)}`, () => {
      expect(mergePatch(original, patch)).to.deep.equal(result);
    });
  });

  it('applies the worked example of section 3', () => {
    const target = {
      title: 'Goodbye!',
      author: { givenName: 'John', familyName: 'Doe' },
      tags: ['example', 'sample'],
      content: 'This will be unchanged',
    };
    const patch = { title: 'Hello!', phoneNumber: '+01-123-456-7890', author: { familyName: null }, tags: ['example'] };
    expect(mergePatch(target, patch)).to.deep.equal({
      title: 'Hello!',
      author: { givenName: 'John' },
      tags: ['example'],
      content: 'This will be unchanged',
      phoneNumber: '+01-123-456-7890',
    });
  });

  it('leaves both inputs unchanged', () => {
    const base = { a: { b: 1, c: [1, 2] }, d: 'x' };
    const patch = { a: { b: null, e: { f: null } }, d: null };
    const baseCopy = structuredClone(base);
    const patchCopy = structuredClone(patch);
    expect(mergePatch(base, patch)).to.deep.equal({ a: { c: [1, 2], e: {} } });
    expect(base).to.deep.equal(baseCopy);
    expect(patch).to.deep.equal(patchCopy);
  });

  it('keeps a "__proto__" member as data instead of changing the prototype', () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
    const merged = mergePatch({}, patch) as Record<string, unknown>;
    expect(Object.getPrototypeOf(merged)).to.equal(Object.prototype);
    expect((merged as { polluted?: unknown }).polluted).to.equal(undefined);
    expect(Object.hasOwn(merged, '__proto__')).to.equal(true);
    expect(JSON.parse(JSON.stringify(merged))).to.deep.equal(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'));
  });
});
