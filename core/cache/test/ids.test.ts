import { expect } from 'chai';
import { newCacheId } from '../ids.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('newCacheId', () => {
  it('makes random version 4 UUIDs, none twice, across many draws of random bytes', () => {
    const ids = new Set<string>();
    for (let index = 0; index < 5000; index++) {
      const id = newCacheId();
      expect(id).to.match(UUID_V4);
      ids.add(id);
    }
    expect(ids.size).to.equal(5000);
  });

  it('uses every hex digit in every free position (the bytes are random, not a counter)', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let index = 0; index < 2000; index++) [...newCacheId()].forEach((char, position) => seen[position]!.add(char));
    const free = [...Array(36).keys()].filter((position) => ![8, 13, 14, 18, 19, 23].includes(position));
    for (const position of free) expect(seen[position]!.size, `position ${position}`).to.equal(16);
    expect([...seen[19]!].sort()).to.deep.equal(['8', '9', 'a', 'b']);
  });
});
