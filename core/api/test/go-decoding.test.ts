import { expect } from 'chai';
import {
  decodeGoFields,
  GO_STRING_FIELD,
  GoDecodeError,
  goDecodeErrorText,
  goFoundByte,
  goInt,
  goInt8,
  goObjectExpected,
  goSlice,
  goString,
  goStruct,
} from '../index.js';

/** The text a reader throws, or undefined when it reads the value. */
function failure(read: () => unknown): string | undefined {
  try {
    read();
    return undefined;
  } catch (err) {
    expect(err).to.be.instanceOf(GoDecodeError);
    return (err as Error).message;
  }
}

describe('SDK go-decoding (json-iterator texts as jsonutil cuts them)', () => {
  it('names the first byte the decoder found, NUL for nothing', () => {
    expect(goFoundByte(undefined)).to.equal('\u0000');
    expect(goFoundByte('abc')).to.equal('"');
    expect(goFoundByte([1])).to.equal('[');
    expect(goFoundByte(12)).to.equal('1');
    expect(goObjectExpected(true)).to.equal('expect { or n, but found t');
  });

  it('reads an int8 as json-iterator does: digits only, no fraction, within -128..127', () => {
    const links = ['pkg.T.Small'];
    expect(goInt8(undefined, links)).to.equal(0);
    expect(goInt8(null, links)).to.equal(0);
    expect(goInt8(-128, links)).to.equal(-128);
    expect(goInt8(127, links)).to.equal(127);
    expect(failure(() => goInt8('5', links))).to.equal('cannot unmarshal pkg.T.Small: unexpected character: \ufffd');
    expect(failure(() => goInt8(3.25, links))).to.equal('cannot unmarshal pkg.T.Small: can not decode float as int');
    expect(failure(() => goInt8(128, links))).to.equal(goDecodeErrorText(links, 'ReadInt8', 'overflow: 128'));
    expect(failure(() => goInt8(-300, links))).to.equal(goDecodeErrorText(links, 'ReadInt8', 'overflow: 300'));
    expect(failure(() => goInt8(5e9, links))).to.equal(goDecodeErrorText(links, 'readUint32', 'overflow'));
  });

  it('gives the detail alone at the top, else the last link before the operation', () => {
    expect(goDecodeErrorText([], 'readObjectStart', 'expect { or n, but found [')).to.equal('expect { or n, but found [');
    expect(goDecodeErrorText(['openrtb_ext.ExtImpX.Name'], 'ReadString', 'expects " or n, but found 7'))
      .to.equal('cannot unmarshal openrtb_ext.ExtImpX.Name: expects " or n, but found 7');
    expect(goDecodeErrorText(['pkg.Outer.Inner', 'pkg.Inner.Tags', '[]string'], 'decode slice', 'expect [ or n, but found "'))
      .to.equal('cannot unmarshal pkg.Inner.Tags: decode slice: expect [ or n, but found "');
  });

  it('reads structs, strings, ints and slices as Go does, null as the zero value', () => {
    expect(goStruct(null, ['pkg.T.F'])).to.deep.equal({});
    expect(failure(() => goStruct('x', []))).to.equal('expect { or n, but found "');
    expect(goString(null, ['pkg.T.Name'])).to.equal('');
    expect(failure(() => goString(5, ['pkg.T.Name']))).to.equal('cannot unmarshal pkg.T.Name: expects " or n, but found 5');
    expect(failure(() => goInt(1.5, ['pkg.T.Count']))).to.equal('cannot unmarshal pkg.T.Count: can not decode float as int');
    expect(goSlice(null, ['pkg.T.List'], '[]string')).to.deep.equal([]);
  });

  it('decodes an object into struct fields: any case, in order, null the zero value, the first misfit stops', () => {
    const fields = { name: GO_STRING_FIELD('Name'), size: { goName: 'Size', refuse: (value: unknown) => (typeof value === 'number' ? undefined : 'invalid number') } };
    expect(decodeGoFields({ NAME: 'a', other: 1 }, 'pkg.T', fields)).to.deep.equal({ values: { name: 'a' } });
    expect(decodeGoFields({ name: 'a', Name: null, size: 2 }, 'pkg.T', fields)).to.deep.equal({ values: { size: 2 } });
    expect(decodeGoFields({ size: 'x', name: 3 }, 'pkg.T', fields)).to.deep.equal({ error: 'cannot unmarshal pkg.T.Size: invalid number' });
    expect(decodeGoFields({ name: 3, size: 'x' }, 'pkg.T', fields)).to.deep.equal({ error: 'cannot unmarshal pkg.T.Name: expects " or n, but found 3' });
  });

  it('skips members named like an object builtin, which the struct has no field for', () => {
    const fields = { name: GO_STRING_FIELD('Name') };
    const members = JSON.parse('{"constructor": 1, "toString": 2, "__proto__": 3, "name": "a"}') as Record<string, unknown>;
    expect(decodeGoFields(members, 'pkg.T', fields)).to.deep.equal({ values: { name: 'a' } });
  });
});
