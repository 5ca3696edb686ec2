import { expect } from 'chai';
import type { BidRequest } from '../../api/index.js';
import { convertDownTo25, convertUpTo26 } from '../convert.js';

const asRequest = (value: Record<string, unknown>) => value as unknown as BidRequest;

describe('OpenRTB versions: up to 2.6 once per request', () => {
  it('writes imp.ext.prebid back as Prebid Server writes its struct once is_rewarded_inventory left it', () => {
    const request = asRequest({
      id: 'r',
      imp: [
        { id: 'i1', ext: { prebid: { is_rewarded_inventory: 1, bidder: { appnexus: {} }, custom: 1, adunitcode: '', imp: {} } } },
        { id: 'i2', ext: { prebid: { is_rewarded_inventory: 0, bidder: {} }, appnexus: {} } },
      ],
    });
    convertUpTo26(request, 'prebid');
    expect(request.imp).to.deep.equal([
      { id: 'i1', rwdd: 1, ext: { prebid: { bidder: { appnexus: {} } } } },
      { id: 'i2', rwdd: 0, ext: { appnexus: {} } },
    ]);
  });

  it('moves each promoted field out of ext, the 2.6 value winning, and drops emptied exts', () => {
    const request = asRequest({
      id: 'r',
      imp: [{ id: 'i', ext: { prebid: { is_rewarded_inventory: 1, bidder: { appnexus: {} } } } }],
      regs: { gdpr: 0, ext: { gdpr: 1, us_privacy: '1YNN' } },
      user: { ext: { consent: 'CO', eids: [{ source: 's' }], data: { k: 1 } } },
      ext: { schain: { ver: '1.0', nodes: [] }, prebid: {} },
    });
    convertUpTo26(request, 'prebid');
    expect(request).to.deep.equal({
      id: 'r',
      imp: [{ id: 'i', rwdd: 1, ext: { prebid: { bidder: { appnexus: {} } } } }],
      regs: { gdpr: 0, us_privacy: '1YNN' },
      user: { consent: 'CO', eids: [{ source: 's' }], ext: { data: { k: 1 } } },
      source: { schain: { ver: '1.0', nodes: [] } },
      ext: { prebid: {} },
    });
  });

  it('moves user.ext.consent over an empty user.consent, as Prebid Server reads an empty 2.6 consent as none', () => {
    const request = asRequest({ id: 'r', imp: [], user: { consent: '', ext: { consent: 'CO' } } });
    convertUpTo26(request, 'prebid');
    expect(request.user).to.deep.equal({ consent: 'CO' });
    const kept = asRequest({ id: 'r', imp: [], user: { consent: 'CP', ext: { consent: 'CO' } } });
    convertUpTo26(kept, 'prebid');
    expect(kept.user).to.deep.equal({ consent: 'CP' });
  });

  it('leaves a value of the wrong type where the client put it, for validation to name', () => {
    const request = asRequest({ id: 'r', imp: [], regs: { ext: { gdpr: 'yes' } }, user: { ext: { consent: 5 } } });
    convertUpTo26(request, 'prebid');
    expect(request.regs).to.deep.equal({ ext: { gdpr: 'yes' } });
    expect(request.user).to.deep.equal({ ext: { consent: 5 } });
  });

  it('moves a 2.5 value into a 2.6 field that is not set: null, or an empty consent or US privacy string', () => {
    const schain = { ver: '1.0', nodes: [] };
    const request = asRequest({
      id: 'r',
      imp: [],
      regs: { gdpr: null, us_privacy: '', ext: { gdpr: 1, us_privacy: '1YNN' } },
      user: { consent: '', eids: null, ext: { consent: 'CO', eids: [{ source: 's' }] } },
      source: { schain: null },
      ext: { schain },
    });
    convertUpTo26(request, 'prebid');
    expect(request).to.deep.equal({
      id: 'r',
      imp: [],
      regs: { gdpr: 1, us_privacy: '1YNN' },
      user: { consent: 'CO', eids: [{ source: 's' }] },
      source: { schain },
    });
  });

  it("drops a null promoted member of ext as Go's nil; a null 2.4 schain moves as an empty SupplyChain", () => {
    const request = asRequest({
      id: 'r',
      imp: [],
      regs: { gdpr: 0, ext: { gdpr: null, us_privacy: null, gpc: '1' } },
      user: { ext: { consent: null, eids: null } },
      source: { ext: { schain: null } },
      ext: { schain: null, prebid: {} },
    });
    convertUpTo26(request, 'prebid');
    expect(request).to.deep.equal({ id: 'r', imp: [], regs: { gdpr: 0, ext: { gpc: '1' } }, user: {}, source: { schain: {} }, ext: { prebid: {} } });
  });

  it('moves regs.ext.gdpr and is_rewarded_inventory as the int8 Go decodes them, dropping a gdpr beside a set regs.gdpr', () => {
    const request = asRequest({
      id: 'r',
      imp: [
        { id: 'i1', ext: { prebid: { is_rewarded_inventory: 2, bidder: { a: {} } } } },
        { id: 'i2', ext: { prebid: { is_rewarded_inventory: 1.5, bidder: { a: {} } } } },
      ],
      regs: { gdpr: 0, ext: { gdpr: 2 } },
      user: { ext: {} },
    });
    convertUpTo26(request, 'prebid');
    expect(request.regs).to.deep.equal({ gdpr: 0 });
    expect(request.imp).to.deep.equal([
      { id: 'i1', rwdd: 2, ext: { prebid: { bidder: { a: {} } } } },
      { id: 'i2', ext: { prebid: { is_rewarded_inventory: 1.5, bidder: { a: {} } } } },
    ]);
    const alone = asRequest({ id: 'r', imp: [], regs: { ext: { gdpr: 2 } } });
    convertUpTo26(alone, 'prebid');
    expect(alone.regs, 'judged by validation in its 2.6 home').to.deep.equal({ gdpr: 2 });
  });
});

describe('OpenRTB versions: down to 2.5 per bidder', () => {
  const request = asRequest({
    id: 'r',
    imp: [{ id: 'i1', rwdd: 1, ext: { bidder: { p: 1 } } }, { id: 'i2', ext: { bidder: {} } }],
    regs: { gdpr: 1, us_privacy: '1YNN', gpp: 'DBAA', gpp_sid: [2] },
    user: { consent: 'CO', eids: [{ source: 's' }], ext: { data: 1 } },
    source: { tid: 't', schain: { ver: '1.0' } },
    device: { sua: { browsers: [] } },
  });

  it("moves the promoted fields into ext and imp.rwdd into imp.ext.<ns>.is_rewarded_inventory, as Prebid Server's converter does", () => {
    const before = JSON.stringify(request);
    const converted = convertDownTo25(request, 'prebid');
    expect(converted).to.deep.equal({
      id: 'r',
      imp: [{ id: 'i1', ext: { bidder: { p: 1 }, prebid: { is_rewarded_inventory: 1 } } }, { id: 'i2', ext: { bidder: {} } }],
      regs: { gpp: 'DBAA', gpp_sid: [2], ext: { gdpr: 1, us_privacy: '1YNN' } },
      user: { ext: { data: 1, consent: 'CO', eids: [{ source: 's' }] } },
      // Written from Go's SupplyChain struct, whose complete and nodes are always written.
      source: { tid: 't', ext: { schain: { complete: 0, nodes: null, ver: '1.0' } } },
      device: { sua: { browsers: [] } },
    });
    expect(JSON.stringify(request), 'the input stays as it was').to.equal(before);
    expect(converted.imp[1]).to.equal(request.imp[1]);
    expect(converted.device).to.equal(request.device);
  });

  it("converts an object the auction's bidders share once: they share the converted copy", () => {
    const converted = new Map<object, Record<string, unknown>>();
    const first = convertDownTo25(asRequest({ ...request, imp: [{ id: 'i1', ext: { bidder: { p: 1 } } }] }), 'prebid', converted);
    const second = convertDownTo25(asRequest({ ...request, imp: [{ id: 'i1', ext: { bidder: { p: 2 } } }] }), 'prebid', converted);
    for (const branch of ['regs', 'user', 'source'] as const) {
      expect(second[branch], branch).to.equal(first[branch]);
      expect(second[branch], branch).to.not.equal(request[branch]);
    }
    expect(second).to.deep.equal({ ...convertDownTo25(request, 'prebid'), imp: [{ id: 'i1', ext: { bidder: { p: 2 } } }] });
    const ownUser = convertDownTo25(asRequest({ ...request, user: { consent: 'other' } }), 'prebid', converted);
    expect(ownUser.user).to.deep.equal({ ext: { consent: 'other' } });
    expect(ownUser.regs).to.equal(first.regs);
  });

  it("writes imp.ext.<ns> that gains is_rewarded_inventory as Prebid Server's ExtImpPrebid struct writes it", () => {
    const request = asRequest({ id: 'r', imp: [{ id: 'i', rwdd: 1, ext: { bidder: {}, prebid: { options: { echovideoattrs: false, unknown: 1 } } } }] });
    expect(convertDownTo25(request, 'prebid').imp[0]!.ext).to.deep.equal({ bidder: {}, prebid: { is_rewarded_inventory: 1, options: { echovideoattrs: false } } });
  });

  it('writes a moved schain and eids as their openrtb2 structs write them: members the structs lack are gone', () => {
    const request = asRequest({
      id: 'r',
      imp: [{ id: 'i', ext: {} }],
      source: { schain: { complete: 1, nodes: [{ asi: 'a', sid: '1', foo: 1 }], ver: '1.0', bar: 2 } },
      user: { eids: [{ source: 's', uids: [{ id: '1', zzz: 3 }], yyy: 4 }] },
    });
    const converted = convertDownTo25(request, 'prebid');
    expect(converted.source).to.deep.equal({ ext: { schain: { complete: 1, nodes: [{ asi: 'a', sid: '1' }], ver: '1.0' } } });
    expect(converted.user).to.deep.equal({ ext: { eids: [{ source: 's', uids: [{ id: '1' }] }] } });
  });

  it('returns a request with nothing to move as it is', () => {
    const plain = asRequest({ id: 'r', imp: [{ id: 'i', ext: {} }], site: { page: 'p' } });
    expect(convertDownTo25(plain, 'prebid')).to.equal(plain);
  });

  it('undoes the up-conversion', () => {
    const original = { id: 'r', imp: [{ id: 'i', ext: { svc: { is_rewarded_inventory: 1 } } }], regs: { ext: { gdpr: 1 } }, user: { ext: { eids: [{ source: 's' }] } } };
    const request = asRequest(structuredClone(original));
    convertUpTo26(request, 'svc');
    expect(convertDownTo25(request, 'svc')).to.deep.equal(original);
  });
});
