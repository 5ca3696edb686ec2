import { expect } from 'chai';
import type { RequestData } from '../../api/index.js';
import { serialiseBody } from '../bidder-call.js';

const post = (body: unknown): RequestData => ({ method: 'POST', uri: 'http://127.0.0.1:9/b', body, impIds: [] });

describe('bidder calls: the request body as JSON', () => {
  const shapes: Array<[string, unknown]> = [
    ['a request', { id: 'r', imp: [{ id: '1', banner: { w: 300 } }], site: { page: 'p' }, tmax: 500, test: 0 }],
    ['members JSON leaves out', { id: 'r', gone: undefined, fn: () => 1, kept: null, flag: false }],
    ['numbers and booleans', { a: -0, b: Number.NaN, c: Number.POSITIVE_INFINITY, d: 1e21, e: 0.1 + 0.2, f: -5e-7, g: true, h: false, i: 2 ** 53 + 2 }],
    ['a symbol member', { id: 'r', s: Symbol('x') }],
    ['keys and strings that need escaping', { 'a"b': 'x\ny', 'é': '\u2028', '\\': ['\t'] }],
    ['integer-like keys, which JSON writes first', { b: 1, 2: 'two', a: { 1: 'one' }, 0: [] }],
    ['an object member with toJSON', { at: new Date(0), id: 'r' }],
    ['a body with its own toJSON', { id: 'r', site: { page: 'p' }, toJSON: () => ({ id: 'replaced' }) }],
    ['an empty object', {}],
    ['an array body', [{ id: 'r' }, 1]],
    ['an instance of a class', new (class Body { id = 'r'; site = { page: 'p' }; })()],
  ];
  for (const [label, body] of shapes) {
    it(`writes ${label} as JSON.stringify does`, () => {
      expect(serialiseBody(post(body), new Map())).to.equal(JSON.stringify(body));
      expect(serialiseBody(post(body))).to.equal(JSON.stringify(body));
    });
  }

  it('sends a text body as it is, and no body with GET', () => {
    expect(serialiseBody(post('{"id":"r"}'), new Map())).to.equal('{"id":"r"}');
    expect(serialiseBody({ ...post({ id: 'r' }), method: 'GET' }, new Map())).to.equal(undefined);
    expect(serialiseBody(post(undefined), new Map())).to.equal(undefined);
  });

  it("writes a branch the auction's bidders share once: a second body reuses its text", () => {
    const user = { id: 'u', eids: [{ source: 's', uids: [{ id: 'e' }] }] };
    const texts = new Map<object, string>();
    const first = serialiseBody(post({ id: 'r', imp: [{ id: '1', ext: { bidder: { p: 1 } } }], user }), texts);
    expect(first).to.equal(JSON.stringify({ id: 'r', imp: [{ id: '1', ext: { bidder: { p: 1 } } }], user }));
    expect(texts.get(user)).to.equal(JSON.stringify(user));
    // The text kept for the branch is what the next body gets: the branch is not written again.
    texts.set(user, '"kept"');
    expect(serialiseBody(post({ id: 'r', imp: [], user }), texts)).to.equal('{"id":"r","imp":[],"user":"kept"}');
  });
});
