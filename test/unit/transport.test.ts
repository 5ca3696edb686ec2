import { expect } from 'chai';
import { splitUri } from '../../core/bidders/transport.js';

describe('splitUri (bidder transport)', () => {
  it('splits plain URLs by scanning', () => {
    expect(splitUri('http://a.example/x?y=1')).to.deep.equal({ origin: 'http://a.example', path: '/x?y=1' });
    expect(splitUri('https://a.example:8443?q=1')).to.deep.equal({ origin: 'https://a.example:8443', path: '/?q=1' });
    expect(splitUri('https://a.example')).to.deep.equal({ origin: 'https://a.example', path: '/' });
    expect(splitUri('http://a.example/p#frag')).to.deep.equal({ origin: 'http://a.example', path: '/p' });
  });

  it('agrees with the WHATWG parser on tricky authorities', () => {
    for (const uri of ['http://eu.bidder.example\\@evil.example/x', 'http://user:pw@a.example/x', 'http://a.example%2F@b.example/']) {
      let expected: { origin: string; path: string } | undefined;
      try {
        const url = new URL(uri);
        expected = { origin: url.origin, path: `${url.pathname}${url.search}` };
      } catch {
        expected = undefined;
      }
      if (expected) expect(splitUri(uri)).to.deep.equal(expected);
      else expect(() => splitUri(uri)).to.throw();
    }
  });
});
