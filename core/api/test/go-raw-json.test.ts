import { expect } from 'chai';
import { goCompactJson, goFieldNameMatches, parseJsonText } from '../index.js';

describe('SDK go-raw-json (JSON kept as written, as Go keeps a json.RawMessage)', () => {
  it('keeps the text of every value, members in order with duplicates', () => {
    const parsed = parseJsonText(' {"a": 1.50, "A": [2e1, "x\\u00e9"], "b": null} ');
    expect(parsed?.kind).to.equal('object');
    if (parsed?.kind !== 'object') return;
    expect(parsed.members.map(({ key, value }) => [key, value.text])).to.deep.equal([['a', '1.50'], ['A', '[2e1, "x\\u00e9"]'], ['b', 'null']]);
    expect(parseJsonText('{"a":}')).to.equal(undefined);
    expect(parseJsonText('')).to.equal(undefined);
  });

  it('compacts as json.Marshal writes a RawMessage: whitespace out, <, >, & and U+2028/9 escaped, the rest as written', () => {
    expect(goCompactJson('{ "t" : "a <b> & \u2028 \\" \\u00e9 ", "n" : [ 1.50 , -0E+2 ] }')).to.equal('{"t":"a \\u003cb\\u003e \\u0026 \\u2028 \\" \\u00e9 ","n":[1.50,-0E+2]}');
  });

  it('matches field names as json-iterator does, folding ASCII letters only', () => {
    expect(goFieldNameMatches('NaTiVe', 'native')).to.equal(true);
    expect(goFieldNameMatches('\u212a', 'k')).to.equal(false);
  });
});
