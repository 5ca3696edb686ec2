import { expect } from 'chai';
import { encodeAsOpenrtb2Request, openrtb2DecodeProblem } from '../openrtb2-encoding.js';
import type { BidRequest } from '../openrtb.js';

const encode = (request: unknown) => encodeAsOpenrtb2Request(request as BidRequest) as unknown;

describe('SDK encodeAsOpenrtb2Request: the request as Go re-encodes openrtb2.BidRequest', () => {
  it("leaves out the top level's zero omitempty fields and null objects, keeps id and imp whatever they hold", () => {
    const request = { id: '', imp: [], test: 0, at: 0, tmax: 500, cur: [], acat: [], bcat: ['IAB1'], site: null, app: { id: 'a', ext: {} } };
    expect(encode(request)).to.deep.equal({ id: '', imp: [], tmax: 500, bcat: ['IAB1'], app: { id: 'a', ext: {} } });
    expect(request).to.have.property('test', 0);
  });

  it('drops members no struct field takes, at every level it describes', () => {
    const request = {
      id: 'r',
      custom: 1,
      imp: [{ id: '1', bidder: 'x', banner: { format: [{ w: 300, h: 250, unknown: 1 }], unknown: 2 }, ext: { anything: { goes: 0 } } }],
      site: { page: 'p', publisher: { id: 'pub', unknown: 3 }, unknown: 4 },
      user: { eids: [{ source: 's', uids: [{ id: 'u', unknown: 5 }] }] },
    };
    expect(encode(request)).to.deep.equal({
      id: 'r',
      imp: [{ id: '1', banner: { format: [{ w: 300, h: 250 }] }, ext: { anything: { goes: 0 } } }],
      site: { page: 'p', publisher: { id: 'pub' } },
      user: { eids: [{ source: 's', uids: [{ id: 'u' }] }] },
    });
  });

  it('drops zero value-type fields and keeps the zero of pointer fields', () => {
    const request = {
      id: 'r',
      imp: [{
        id: '1',
        instl: 0,
        bidfloor: 0,
        tagid: '',
        secure: 0,
        video: { mimes: [], minduration: 0, maxduration: 30, startdelay: 0, w: 0, skip: 0, sequence: 0, protocols: [] },
        banner: { w: 0, h: 0, wmax: 0, hmax: 0, wmin: 0, hmin: 0, pos: 0, topframe: 0, format: [{ w: 0, h: 250 }] },
      }],
      device: { dnt: 0, lmt: 0, ua: '', h: 0, devicetype: 0, connectiontype: 0, geo: { lat: 0, lon: 0, accuracy: 0, country: '' }, sua: { mobile: 0, model: '' } },
      regs: { coppa: 0, gdpr: 0, us_privacy: '' },
      source: { fd: 0, tid: '', schain: { complete: 0, ver: '1.0', nodes: [{ asi: 'a', sid: 's', hp: 0, rid: '' }] } },
      site: { mobile: 0, privacypolicy: 0, content: { livestream: 0, len: 0 } },
      user: { yob: 0, gender: '' },
    };
    expect(encode(request)).to.deep.equal({
      id: 'r',
      imp: [{
        id: '1',
        secure: 0,
        video: { mimes: [], maxduration: 30, startdelay: 0, w: 0, skip: 0 },
        banner: { w: 0, h: 0, pos: 0, format: [{ h: 250 }] },
      }],
      device: { dnt: 0, lmt: 0, connectiontype: 0, geo: { lat: 0, lon: 0 }, sua: { mobile: 0 } },
      regs: { gdpr: 0 },
      source: { fd: 0, schain: { complete: 0, ver: '1.0', nodes: [{ asi: 'a', sid: 's', hp: 0 }] } },
      site: { privacypolicy: 0, content: { livestream: 0 } },
      user: {},
    });
  });

  it('drops a null pointer field, writes the zero where the field has no omitempty, and keeps any ext but null', () => {
    const request = { id: 'r', imp: [{ id: '1', secure: null, native: { request: null, ver: null }, video: { mimes: null }, ext: null }], ext: {} };
    expect(encode(request)).to.deep.equal({ id: 'r', imp: [{ id: '1', native: { request: '' }, video: { mimes: null } }], ext: {} });
  });

  it('writes every field without omitempty that the JSON leaves out, as its Go zero', () => {
    const request = {
      id: 'r',
      imp: [{
        id: '1',
        video: { w: 1 },
        audio: { minduration: 1 },
        native: { ver: '1.2' },
        metric: [{ vendor: 'v' }],
        pmp: { deals: [{ bidfloor: 1 }] },
      }],
      device: { sua: { browsers: [{ version: ['1'] }], platform: {} } },
      source: { schain: { nodes: [{ hp: 1 }] } },
    };
    const before = structuredClone(request);
    expect(encode(request)).to.deep.equal({
      id: 'r',
      imp: [{
        id: '1',
        video: { mimes: null, w: 1 },
        audio: { mimes: null, minduration: 1 },
        native: { request: '', ver: '1.2' },
        metric: [{ type: '', value: 0, vendor: 'v' }],
        pmp: { deals: [{ id: '', bidfloor: 1 }] },
      }],
      device: { sua: { browsers: [{ brand: '', version: ['1'] }], platform: { brand: '' } } },
      source: { schain: { complete: 0, nodes: [{ asi: '', sid: '', hp: 1 }], ver: '' } },
    });
    expect(request).to.deep.equal(before);
    expect(encode({})).to.deep.equal({ id: '', imp: null });
  });

  it('writes a null element of a list of structs as the zero struct', () => {
    const request = { id: 'r', imp: [{ id: '1', banner: { format: [null, { w: 300, h: 250 }] }, pmp: { deals: [null] } }] };
    expect(encode(request)).to.deep.equal({ id: 'r', imp: [{ id: '1', banner: { format: [{}, { w: 300, h: 250 }] }, pmp: { deals: [{ id: '' }] } }] });
  });

  it('matches a member to its field ignoring case, and writes the field by its own name', () => {
    expect(encode({ ID: 'r', imp: [{ id: '1', TagID: 't', Instl: 0 }] })).to.deep.equal({ id: 'r', imp: [{ id: '1', tagid: 't' }] });
  });

  it('shares what it leaves as it is, copies what it changes, and never changes the request', () => {
    const request = { id: 'r', imp: [{ id: '1', banner: { w: 300 } }, { id: '2', instl: 0 }], site: { page: 'p', publisher: { id: 'pub' } }, user: { yob: 0 } };
    const before = structuredClone(request);
    const encoded = encode(request) as typeof request;
    expect(encoded).to.not.equal(request);
    expect(encoded.site).to.equal(request.site);
    expect(encoded.imp).to.not.equal(request.imp);
    expect(encoded.imp[0]).to.equal(request.imp[0]);
    expect(encoded.imp[1]).to.deep.equal({ id: '2' });
    expect(encoded.user).to.deep.equal({});
    expect(request).to.deep.equal(before);
    const untouched = { id: 'r', imp: [{ id: '1' }] };
    const copied = encode(untouched);
    expect(copied).to.deep.equal(untouched);
    expect(copied).to.not.equal(untouched);
  });

  it('writes dooh as it came, and a list element that is not an object as it is', () => {
    const request = { id: 'r', imp: ['odd'], dooh: { id: 'd', venuetypetax: 0 } };
    expect(encode(request)).to.deep.equal({ id: 'r', imp: ['odd'], dooh: { id: 'd', venuetypetax: 0 } });
  });
});

describe('SDK openrtb2DecodeProblem: the request read against openrtb2 structs, as Prebid Server reads it first', () => {
  it('passes a request every member of which its field can hold, whatever the ext members hold', () => {
    const request = { id: 'r', imp: [{ id: '1', bidfloor: 1.5, secure: 1, banner: { format: [{ w: 300, h: 250 }] }, ext: { any: ['x', 1] } }], device: { ua: 'UA', geo: { lat: 1.25 } }, cur: ['USD'], test: null };
    expect(openrtb2DecodeProblem(request)).to.equal(undefined);
  });

  it('names the first member in document order that does not fit, the decoder\'s text first', () => {
    expect(openrtb2DecodeProblem({ id: 'r', site: { page: 5 }, imp: 1 })).to.equal('cannot unmarshal openrtb2.Site.Page: expects " or n, but found 5 (request.site.page must be a string)');
    expect(openrtb2DecodeProblem({ id: 'r', imp: [{ id: '1', video: { protocols: [2, 'x'] } }] }))
      .to.equal('cannot unmarshal []adcom1.MediaCreativeSubtype: unexpected character: \ufffd (request.imp[0].video.protocols[1] must be an integer)');
    expect(openrtb2DecodeProblem({ id: 'r', source: { schain: { nodes: {} } } }))
      .to.equal('cannot unmarshal openrtb2.SupplyChain.Nodes: decode slice: expect [ or n, but found { (request.source.schain.nodes must be a list of objects)');
  });
});
