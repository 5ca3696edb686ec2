import { expect } from 'chai';
import type { BidRequest } from '../../api/index.js';
import { implicitFields } from '../implicit-fields.js';

const fill = (request: Record<string, unknown>, namespace?: string): BidRequest => {
  const copy = structuredClone(request) as unknown as BidRequest;
  implicitFields({ trustProxyHeaders: false, generateTids: false }).fill(copy, { headers: {} }, namespace);
  return copy;
};
const base = { id: 'r', dooh: { id: 'd' }, imp: [{ id: 'i', banner: {} }] };
const app = { id: 'r', app: { id: 'a' }, imp: [{ id: 'i', banner: {} }] };
const MEDIUM = { precision: 2, ranges: [{ min: 0, max: 20, increment: 0.1 }] };

describe('endpoint fill-ins: the targeting defaults (Prebid Server SetDefaults)', () => {
  it('writes the default granularity and both include flags into a request that asks for targeting', () => {
    expect(fill({ ...base, ext: { prebid: { targeting: {} } } }).ext).to.deep.equal({
      prebid: { targeting: { pricegranularity: MEDIUM, includewinners: true, includebidderkeys: true } },
    });
  });

  it('writes a legacy name out as its ranges, under either namespace, and keeps flags already set', () => {
    const { ext } = fill({ ...base, ext: { svc: { targeting: { pricegranularity: 'auto', includewinners: false } } } }, 'svc');
    expect(ext).to.deep.equal({
      svc: {
        targeting: {
          pricegranularity: { precision: 2, ranges: [{ min: 0, max: 5, increment: 0.05 }, { min: 5, max: 10, increment: 0.1 }, { min: 10, max: 20, increment: 0.5 }] },
          includewinners: false,
          includebidderkeys: true,
        },
      },
    });
  });

  it("gives a custom granularity its precision and each range its min, the previous range's max (a min given is overwritten)", () => {
    const { ext } = fill({ ...base, ext: { prebid: { targeting: { pricegranularity: { ranges: [{ min: 1, max: 5, increment: 0.5 }, { min: 6, max: 10, increment: 1 }] }, mediatypepricegranularity: { video: 'high', banner: null } } } } });
    expect((ext as any).prebid.targeting.pricegranularity).to.deep.equal({ precision: 2, ranges: [{ min: 0, max: 5, increment: 0.5 }, { min: 5, max: 10, increment: 1 }] });
    // Written back as Prebid Server's struct writes it: the null granularity is no granularity.
    expect((ext as any).prebid.targeting.mediatypepricegranularity).to.deep.equal({ video: { precision: 2, ranges: [{ min: 0, max: 20, increment: 0.01 }] } });
  });

  it('makes a granularity object without ranges (none, or an empty list) the default one, its precision included', () => {
    const { ext } = fill({ ...base, ext: { prebid: { targeting: { pricegranularity: { precision: 3 }, mediatypepricegranularity: { native: { ranges: [] } } } } } });
    expect((ext as any).prebid.targeting.pricegranularity).to.deep.equal(MEDIUM);
    expect((ext as any).prebid.targeting.mediatypepricegranularity).to.deep.equal({ native: MEDIUM });
  });

  it('leaves what validation will refuse as it is, and a request without targeting alone', () => {
    expect((fill({ ...base, ext: { prebid: { targeting: { pricegranularity: 'coarse' } } } }).ext as any).prebid.targeting.pricegranularity).to.equal('coarse');
    expect((fill({ ...base, ext: { prebid: { targeting: { pricegranularity: { ranges: 'many' } } } } }).ext as any).prebid.targeting.pricegranularity).to.deep.equal({ ranges: 'many' });
    expect(fill({ ...base, ext: { prebid: { debug: true } } }).ext).to.deep.equal({ prebid: { debug: true } });
  });
});

describe('endpoint fill-ins: ext.<ns> written back as Prebid Server writes its struct', () => {
  it('rewrites ext.prebid when the targeting defaults change it: zero members left out, struct members written in full, unknown ones dropped', () => {
    const { ext } = fill({
      ...base,
      ext: {
        other: { kept: 1 },
        prebid: {
          targeting: { pricegranularity: 'low', includeformat: false, prefix: '', durationrangesec: [], alwaysincludedeals: true, includebrandcategory: { primaryadserver: 1, publisher: '' }, unknown: 1 },
          cache: { bids: {} },
          channel: { name: 'web' },
          currency: { rates: { USD: { EUR: 0.9 } } },
          data: { bidders: ['appnexus'] },
          debug: false,
          aliases: {},
          trace: '',
          passthrough: { a: 1 },
          notamember: true,
        },
      },
    });
    expect(ext).to.deep.equal({
      other: { kept: 1 },
      prebid: {
        targeting: {
          pricegranularity: { precision: 2, ranges: [{ min: 0, max: 5, increment: 0.5 }] },
          alwaysincludedeals: true,
          includebrandcategory: { primaryadserver: 1, withcategory: false },
          includewinners: true,
          includebidderkeys: true,
        },
        cache: { bids: {} },
        channel: { name: 'web', version: '' },
        currency: { rates: { USD: { EUR: 0.9 } }, usepbsrates: null },
        data: { eidpermissions: null, bidders: ['appnexus'] },
        passthrough: { a: 1 },
      },
    });
  });

  it('keeps the targeting as sent when the defaults change nothing (a legacy name is already its ranges to Go)', () => {
    const sent = { prebid: { targeting: { pricegranularity: 'low', includewinners: true, includebidderkeys: false, unknown: 1 }, debug: false } };
    expect(fill({ ...base, ext: sent }).ext).to.deep.equal(sent);
  });

  it('rewrites ext.prebid when it has a multibid list', () => {
    expect(fill({ ...base, ext: { prebid: { multibid: [{ bidder: 'a', maxbids: 2 }], debug: false, x: 1 } } }).ext).to.deep.equal({ prebid: { multibid: [{ bidder: 'a', maxbids: 2 }] } });
  });

  it("fills an app's channel, and then rewrites ext.prebid; a channel given is kept", () => {
    expect(fill(app).ext).to.deep.equal({ prebid: { channel: { name: 'app', version: '' } } });
    expect(fill({ ...app, ext: { prebid: { debug: false, channel: null } } }).ext).to.deep.equal({ prebid: { channel: { name: 'app', version: '' } } });
    expect(fill({ ...app, ext: { prebid: { debug: false, channel: { name: 'x', version: '1' } } } }).ext).to.deep.equal({ prebid: { debug: false, channel: { name: 'x', version: '1' } } });
    expect(fill(base).ext).to.equal(undefined);
  });

  it("matches member names ignoring case, as Go's decoder does, and keeps Gavel's own additions", () => {
    const { ext } = fill({ ...app, ext: { prebid: { Debug: true, Cache: { VastXml: { ReturnCreative: false }, winningonly: true }, targeting: { includebrandcategory: { WithCategory: false, deduplicate: false }, requireexactduration: true } } } });
    expect(ext).to.deep.equal({
      prebid: {
        debug: true,
        cache: { vastxml: { returnCreative: false }, winningonly: true },
        targeting: { includebrandcategory: { withcategory: false, deduplicate: false }, requireexactduration: true, pricegranularity: MEDIUM, includewinners: true, includebidderkeys: true },
        channel: { name: 'app', version: '' },
      },
    });
  });
});

describe('endpoint fill-ins: request-level bidder params (Prebid Server mergeBidderParams)', () => {
  it("adds the request's params to each imp's params for that bidder, in both places, the imp's own winning", () => {
    const request = fill({
      ...base,
      imp: [{ id: 'i', banner: {}, ext: { appnexus: { placementId: 1 }, prebid: { bidder: { rubicon: { zoneId: 3 } } }, data: {} } }, { id: 'j', banner: {}, ext: { appnexus: null } }],
      ext: { prebid: { bidderparams: { appnexus: { placementId: 9, member: 'm' }, rubicon: { accountId: 7 }, data: { x: 1 } } } },
    });
    expect(request.imp[0]!.ext).to.deep.equal({ appnexus: { placementId: 1, member: 'm' }, prebid: { bidder: { rubicon: { zoneId: 3, accountId: 7 } } }, data: {} });
    expect(request.imp[1]!.ext).to.deep.equal({ appnexus: { placementId: 9, member: 'm' } });
  });

  it('merges nothing when a bidder entry is not an object', () => {
    const request = fill({ ...base, imp: [{ id: 'i', banner: {}, ext: { appnexus: { placementId: 1 } } }], ext: { prebid: { bidderparams: { appnexus: { member: 'm' }, rubicon: 5 } } } });
    expect(request.imp[0]!.ext).to.deep.equal({ appnexus: { placementId: 1 } });
  });
});

describe('endpoint fill-ins: transaction ids (Prebid Server validateAndFillSourceTID)', () => {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  const tids = (generateRequestId: boolean, endpoint: 'auction' | 'amp', storedRequest: boolean) => {
    const request = { id: 'r', site: { page: 'https://a.example/' }, source: { tid: 'given' }, imp: [{ id: 'i', banner: {}, ext: { tid: 'given-imp' } }, { id: 'j', banner: {} }] } as unknown as BidRequest;
    const context = { account: { id: '' }, endpoint, debug: false, warn: () => undefined };
    implicitFields({ trustProxyHeaders: false, generateTids: true, generateRequestId }).fill(request, { headers: {} }, 'prebid', { context, storedRequest });
    const imps = request.imp as unknown as Array<{ ext: { tid: string } }>;
    return [(request.source as unknown as { tid: string }).tid, imps[0]!.ext.tid, imps[1]!.ext.tid];
  };

  it('keeps the tids given and makes the missing ones', () => {
    const [source, first, second] = tids(false, 'amp', true);
    expect([source, first]).to.deep.equal(['given', 'given-imp']);
    expect(second).to.match(uuid);
    expect(tids(true, 'auction', false).slice(0, 2)).to.deep.equal(['given', 'given-imp']);
  });

  it('with generateRequestId, replaces every tid of an AMP request and of one that named a stored request', () => {
    for (const [endpoint, stored] of [['amp', false], ['auction', true]] as const) {
      for (const tid of tids(true, endpoint, stored)) expect(tid).to.match(uuid);
    }
  });
});
