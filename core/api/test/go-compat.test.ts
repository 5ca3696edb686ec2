import { expect } from 'chai';
import {
  decodeExtBid,
  goCurrencyCodeError,
  asGenericErrors,
  bidResponseCurrency,
  checkResponseStatus,
  decodeBidderParams,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  encodeAsOpenrtb2Bid,
  extImpPrebidDecodeProblem,
  fieldIgnoringCase,
  goDecodeErrorPrintedWithD,
  isGoEmpty,
  mediaTypeFromMtype,
  parseBidResponseBody,
  readBidderParams,
  readGoBidResponse,
  unexpectedStatusText,
  withFloorInCurrency,
} from '../go-compat.js';
import { readBidResponse } from '../helpers.js';
import type { ResponseData } from '../adapter.js';
import type { BidRequest, Imp } from '../openrtb.js';

function answer(status: number, body = ''): ResponseData {
  return { status, body, headers: {} };
}

describe('SDK go-compat: Prebid Server (Go) decoding rules for adapters', () => {
  describe('fieldIgnoringCase', () => {
    it('finds a member whatever its case, the last matching key winning as in Go', () => {
      expect(fieldIgnoringCase({ SiteID: 'a' }, 'siteId')).to.equal('a');
      expect(fieldIgnoringCase({ siteId: 'a', SITEID: 'b' }, 'siteid')).to.equal('b');
      expect(fieldIgnoringCase({ siteId: 'a' }, 'site')).to.equal(undefined);
      expect(fieldIgnoringCase({ siteId: null }, 'siteId')).to.equal(null);
    });

    it('reads own members only', () => {
      const inherited = Object.create({ bidder: 'inherited' }) as Record<string, unknown>;
      expect(fieldIgnoringCase(inherited, 'bidder')).to.equal(undefined);
    });
  });

  describe('bidder params', () => {
    it('reads imp.ext.bidder as a Go adapter decodes it into its params struct', () => {
      const imp = (ext: unknown): Imp => ({ id: '1', ext: ext as Imp['ext'] });
      expect(readBidderParams(imp({ bidder: { tagid: 't' } }), 'openrtb_ext.ExtImpX')).to.deep.equal({ params: { tagid: 't' } });
      expect(readBidderParams(imp({ bidder: null }), 'openrtb_ext.ExtImpX')).to.deep.equal({ params: {} });
      expect(readBidderParams(imp({ Bidder: { tagid: 't' } }), 'openrtb_ext.ExtImpX')).to.deep.equal({ params: { tagid: 't' } });
      // json-iterator's words: nothing to read is a NUL byte found; a value of another type, its first byte.
      expect(readBidderParams(imp(undefined), 'openrtb_ext.ExtImpX')).to.deep.equal({ error: 'expect { or n, but found \u0000' });
      expect(readBidderParams(imp({}), 'openrtb_ext.ExtImpX')).to.deep.equal({ error: 'expect { or n, but found \u0000' });
      expect(readBidderParams(imp('x'), 'openrtb_ext.ExtImpX')).to.deep.equal({ error: 'expect { or n, but found "' });
      expect(readBidderParams(imp({ bidder: [] }), 'openrtb_ext.ExtImpX')).to.deep.equal({ error: 'expect { or n, but found [' });
    });

    it('decodes imp.ext as adapters.ExtImpBidder first: typed prebid members and ae fail before the params are read', () => {
      const imp = (ext: unknown): Imp => ({ id: 'x9', ext: ext as Imp['ext'] });
      const read = (ext: unknown): unknown => readBidderParams(imp(ext), 'openrtb_ext.ExtImpZ');
      expect(read({ prebid: { adunitcode: 31 }, bidder: { k: 'v' } }))
        .to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebid.AdUnitCode: expects " or n, but found 3' });
      expect(read({ bidder: { k: 'v' }, prebid: ['a'] })).to.deep.equal({ error: 'cannot unmarshal adapters.ExtImpBidder.Prebid: expect { or n, but found [' });
      expect(read({ bidder: { k: 'v' }, ae: 'on' })).to.deep.equal({ error: 'cannot unmarshal adapters.ExtImpBidder.AuctionEnvironment: unexpected character: \ufffd' });
      // The ext is decoded before its bidder: a bad prebid wins over bad params.
      expect(read({ bidder: 'z', PreBid: { AdUnitCode: false } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebid.AdUnitCode: expects " or n, but found f' });
      // Members in the order written: the first that does not fit fails.
      expect(read({ ae: [], prebid: 0 })).to.deep.equal({ error: 'cannot unmarshal adapters.ExtImpBidder.AuctionEnvironment: unexpected character: \ufffd' });
      expect(read({ prebid: 0, ae: [] })).to.deep.equal({ error: 'cannot unmarshal adapters.ExtImpBidder.Prebid: expect { or n, but found 0' });
      // Typed members inside ExtImpPrebid, down to their own structs and slices.
      expect(read({ prebid: { storedauctionresponse: { id: 77 } } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtStoredAuctionResponse.ID: expects " or n, but found 7' });
      expect(read({ prebid: { storedbidresponse: { id: 'sbr' } } }))
        .to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebid.StoredBidResponse: decode slice: expect [ or n, but found {' });
      expect(read({ prebid: { storedbidresponse: [null, 'sbr'] } })).to.deep.equal({ error: 'cannot unmarshal []openrtb_ext.ExtStoredBidResponse: expect { or n, but found "' });
      expect(read({ prebid: { storedbidresponse: [{ replaceimpid: 'no' }] } }))
        .to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtStoredBidResponse.ReplaceImpId: expect t or f, but found "' });
      expect(read({ prebid: { is_rewarded_inventory: 0.5 } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebid.IsRewardedInventory: can not decode float as int' });
      expect(read({ prebid: { imp: 'all' } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebid.Imp: expect { or n, but found "' });
      expect(read({ prebid: { options: { EchoVideoAttrs: 0 } } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.Options.EchoVideoAttrs: expect t or f, but found 0' });
      expect(read({ prebid: { floors: { floorMinCur: 978 } } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebidFloors.FloorMinCur: expects " or n, but found 9' });
      expect(read({ prebid: { floors: { floorvalue: true } } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtImpPrebidFloors.FloorValue: invalid number' });
    });

    it('accepts what ExtImpBidder holds: nulls, raw members, unknown members, ae within int8', () => {
      const imp = (ext: unknown): Imp => ({ id: 'x9', ext: ext as Imp['ext'] });
      const ok = { params: { k: 'v' } };
      const prebid = {
        storedrequest: { id: 'sr' }, storedbidresponse: [{ id: 'a', bidder: 'b', replaceimpid: false }, null], is_rewarded_inventory: -1,
        bidder: { other: 5 }, options: null, adunitcode: null, passthrough: 'anything', floors: { floorrule: 'r', floorvalue: 1.5 }, imp: {}, unknown: [1],
      };
      expect(readBidderParams(imp({ prebid, ae: 127, bidder: { k: 'v' }, gpid: 3 }), 'openrtb_ext.ExtImpZ')).to.deep.equal(ok);
      expect(readBidderParams(imp({ prebid: null, ae: -128, bidder: { k: 'v' } }), 'openrtb_ext.ExtImpZ')).to.deep.equal(ok);
      expect(readBidderParams(imp({ ae: null, bidder: { k: 'v' } }), 'openrtb_ext.ExtImpZ')).to.deep.equal(ok);
      expect(decodeExtImpBidder({ Prebid: { adunitcode: 'slot' }, AE: 1, bidder: 'raw' })).to.deep.equal({ value: { prebid: { adunitcode: 'slot' }, ae: 1, bidder: 'raw' } });
      expect(decodeExtImpBidder(null)).to.deep.equal({ value: { ae: 0 } });
      expect(decodeExtImpBidder(undefined)).to.deep.equal({ error: 'expect { or n, but found \u0000' });
      expect(decodeExtImpBidder(12)).to.deep.equal({ error: 'expect { or n, but found 1' });
      // Out of int8: json-iterator's ReadInt8 overflows.
      expect(decodeExtImpBidder({ ae: 200 })).to.have.property('error');
      expect(decodeExtImpBidder({ ae: -129 })).to.have.property('error');
    });

    it('skips members named like object builtins, which ExtImpBidder and ExtImpPrebid have no field for', () => {
      const ext = JSON.parse('{"constructor": 1, "toString": 2, "bidder": {"k": "v"}, "prebid": {"valueOf": 3, "adunitcode": "slot"}}') as unknown;
      expect(decodeExtImpBidder(ext)).to.deep.equal({ value: { prebid: { valueOf: 3, adunitcode: 'slot' }, ae: 0, bidder: { k: 'v' } } });
      expect(extImpPrebidDecodeProblem({ toString: 1, hasOwnProperty: 'x' })).to.equal(undefined);
    });

    it('decodes params already in hand the same way', () => {
      expect(decodeBidderParams('x', 'openrtb_ext.ExtImpY')).to.deep.equal({ error: 'expect { or n, but found "' });
      expect(decodeBidderParams(7, 'openrtb_ext.ExtImpY')).to.deep.equal({ error: 'expect { or n, but found 7' });
      expect(decodeBidderParams({ a: 1 }, 'openrtb_ext.ExtImpY')).to.deep.equal({ params: { a: 1 } });
    });
  });

  describe('checkResponseStatus', () => {
    it("lets a 200 through, makes a 204 a silent no-bid, and reports the rest as adapters.CheckResponseStatusCodeForErrors does", () => {
      expect(checkResponseStatus(answer(200))).to.equal(undefined);
      expect(checkResponseStatus(answer(204))).to.deep.equal({ bids: [] });
      expect(checkResponseStatus(answer(400))).to.deep.equal({ bids: [], errors: [{ code: 2, message: unexpectedStatusText(400) }] });
      expect(checkResponseStatus(answer(503))).to.deep.equal({ bids: [], errors: [{ code: 3, message: 'Unexpected status code: 503. Run with request.debug = 1 for more info' }] });
    });

    it('treats any 2xx but 200 and 204 as unexpected, as Go does', () => {
      expect(checkResponseStatus(answer(201))?.errors?.[0]?.code).to.equal(3);
    });

    it("takes an adapter's own texts and codes", () => {
      const rules = { text: (status: number) => `${unexpectedStatusText(status)}.`, code: 999, badRequestText: 'Bad request from publisher.' };
      expect(checkResponseStatus(answer(500), rules)?.errors).to.deep.equal([{ code: 999, message: `${unexpectedStatusText(500)}.` }]);
      expect(checkResponseStatus(answer(400), rules)?.errors).to.deep.equal([{ code: 2, message: 'Bad request from publisher.' }]);
      expect(checkResponseStatus(answer(400), { badRequestCode: 3 })?.errors).to.deep.equal([{ code: 3, message: unexpectedStatusText(400) }]);
    });
  });

  describe('goDecodeErrorPrintedWithD', () => {
    it("prints a decoder error as Go's %d verb does: the *FailedToUnmarshal struct, its string a bad verb", () => {
      expect(goDecodeErrorPrintedWithD('expect { or n, but found <')).to.equal('&{%!d(string=expect { or n, but found <)}');
    });
  });

  describe('parseBidResponseBody and readGoBidResponse', () => {
    it('takes an object, and null as the empty response; anything else is a decoding error', () => {
      expect(parseBidResponseBody('{"cur":"EUR"}')).to.deep.equal({ body: { cur: 'EUR' } });
      expect(parseBidResponseBody('null')).to.deep.equal({ body: {} });
      expect(parseBidResponseBody('[]')).to.deep.equal({ error: 'expect { or n, but found [' });
      expect(parseBidResponseBody('')).to.have.property('error').that.is.a('string');
      expect(parseBidResponseBody('{')).to.have.property('error').that.is.a('string');
    });

    it('checks the status first, then decodes, reporting a decoding error as a generic error by default', () => {
      expect(readGoBidResponse(answer(204))).to.deep.equal({ result: { bids: [] } });
      expect(readGoBidResponse(answer(500))).to.deep.equal({ result: { bids: [], errors: [{ code: 3, message: unexpectedStatusText(500) }] } });
      expect(readGoBidResponse(answer(200, '{"id":"r"}'))).to.deep.equal({ body: { id: 'r' } });
      expect(readGoBidResponse(answer(200, '"x"'))).to.deep.equal({ result: { bids: [], errors: [{ code: 14, message: 'expect { or n, but found "' }] } });
      const reading = { status: { code: 999 }, decodeError: (detail: string) => ({ code: 3, message: `bad: ${detail}` }) };
      expect(readGoBidResponse(answer(502), reading)).to.deep.equal({ result: { bids: [], errors: [{ code: 999, message: unexpectedStatusText(502) }] } });
      expect(readGoBidResponse(answer(200, '5'), reading)).to.deep.equal({ result: { bids: [], errors: [{ code: 3, message: 'bad: expect { or n, but found 5' }] } });
    });

    it('lets readBidResponse check statuses with the same rules', () => {
      expect(readBidResponse(answer(400), { badRequestCode: 3 })).to.deep.equal({ result: { bids: [], errors: [{ code: 3, message: unexpectedStatusText(400) }] } });
      expect(readBidResponse(answer(201, '{}'), {})).to.deep.equal({ result: { bids: [], errors: [{ code: 3, message: unexpectedStatusText(201) }] } });
      // The body rules stay readBidResponse's: an empty 200 is a no-bid.
      expect(readBidResponse(answer(200, ''), {})).to.deep.equal({ result: { bids: [] } });
    });

    it('names the response currency only when it has one', () => {
      expect(bidResponseCurrency({ cur: 'EUR' })).to.equal('EUR');
      expect(bidResponseCurrency({ cur: '' })).to.equal(undefined);
      expect(bidResponseCurrency({ cur: 5 })).to.equal(undefined);
      expect(bidResponseCurrency({})).to.equal(undefined);
    });

    it('turns SDK read errors into the generic errors Go adapters report', () => {
      expect(asGenericErrors([{ code: 3, message: 'm' }])).to.deep.equal([{ code: 999, message: 'm' }]);
      expect(asGenericErrors(undefined)).to.equal(undefined);
    });
  });

  describe('encodeAsOpenrtb2Bid', () => {
    it('drops unknown fields and empty omitempty ones, keeps id/impid/price and any ext', () => {
      const encoded = encodeAsOpenrtb2Bid({ id: 'b', impid: 'i', price: 0, adm: '', w: 0, adomain: [], cat: ['IAB1'], mtype: 2, bidderName: 'x', ext: null });
      expect(encoded).to.deep.equal({ id: 'b', impid: 'i', price: 0, cat: ['IAB1'], mtype: 2, ext: null });
    });

    it('writes the zero value of a null or absent id, impid and price, in the struct order', () => {
      const encoded = encodeAsOpenrtb2Bid({ ext: { a: 1 }, h: 250, price: null });
      expect(encoded).to.deep.equal({ id: '', impid: '', price: 0, h: 250, ext: { a: 1 } });
      expect(Object.keys(encoded)).to.deep.equal(['id', 'impid', 'price', 'h', 'ext']);
    });

    it("knows what Go's omitempty leaves out", () => {
      for (const empty of [undefined, null, '', 0, false, []]) expect(isGoEmpty(empty), JSON.stringify(empty)).to.equal(true);
      for (const value of ['x', 1, true, [0], {}]) expect(isGoEmpty(value), JSON.stringify(value)).to.equal(false);
    });
  });

  describe('decodeOpenrtb2BidResponse', () => {
    it('decodes an answer into openrtb2.BidResponse, bids re-encoded', () => {
      const decoded = decodeOpenrtb2BidResponse(JSON.stringify({ id: 'r', cur: 'EUR', seatbid: [{ seat: 's', bid: [{ id: 'b', impid: 'i', price: 1, w: 0, foo: 1 }] }, null] }));
      expect(decoded).to.deep.equal({ value: { id: 'r', cur: 'EUR', seatbid: [{ seat: 's', bid: [{ id: 'b', impid: 'i', price: 1 }] }, { seat: '', bid: [] }] } });
    });

    it('matches members to their fields ignoring case, the last one written winning, as Go decodes them', () => {
      const body = '{"ID":"r","Cur":"EUR","SeatBid":[{"Seat":"s","Bid":[{"ID":"b","ImpID":"i","Price":2,"price":null,"AdM":"x","adm":null,"W":300,"BidderName":"y"}]}]}';
      expect(decodeOpenrtb2BidResponse(body)).to.deep.equal({ value: { id: 'r', cur: 'EUR', seatbid: [{ seat: 's', bid: [{ id: 'b', impid: 'i', price: 2, w: 300 }] }] } });
    });

    it('reads null as the empty response and refuses what is not an object', () => {
      expect(decodeOpenrtb2BidResponse(' null')).to.deep.equal({ value: { id: '', cur: '', seatbid: [] } });
      expect(decodeOpenrtb2BidResponse('[]')).to.deep.equal({ error: 'expect { or n, but found [' });
      expect(decodeOpenrtb2BidResponse('')).to.deep.equal({ error: 'expect { or n, but found \u0000' });
      expect(decodeOpenrtb2BidResponse('{')).to.have.property('error').that.matches(/^cannot unmarshal openrtb2.BidResponse: /);
    });

    it('fails the whole answer on a known field of the wrong JSON type, at any depth', () => {
      // json-iterator's texts as jsonutil cuts them: the field by its Go name, a slice element by the slice's Go type.
      expect(decodeOpenrtb2BidResponse('{"cur":5}')).to.deep.equal({ error: 'cannot unmarshal openrtb2.BidResponse.Cur: expects " or n, but found 5' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":{}}')).to.deep.equal({ error: 'cannot unmarshal openrtb2.BidResponse.SeatBid: decode slice: expect [ or n, but found {' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":[{"bid":[{"w":1.5}]}]}')).to.deep.equal({ error: 'cannot unmarshal openrtb2.Bid.W: can not decode float as int' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":[{"bid":[{"Price":"1"}]}]}')).to.deep.equal({ error: 'cannot unmarshal openrtb2.Bid.Price: invalid number' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":[{"bid":[{"cat":"IAB1"}]}]}')).to.deep.equal({ error: 'cannot unmarshal openrtb2.Bid.Cat: decode slice: expect [ or n, but found "' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":[{"bid":[{"adomain":["a.com",7]}]}]}')).to.deep.equal({ error: 'cannot unmarshal []string: expects " or n, but found 7' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":[{"bid":[{"crid":1,"price":"x"}]}]}')).to.deep.equal({ error: 'cannot unmarshal openrtb2.Bid.CrID: expects " or n, but found 1' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":[{"bid":[1]}]}')).to.deep.equal({ error: 'cannot unmarshal []openrtb2.Bid: expect { or n, but found 1' });
      expect(decodeOpenrtb2BidResponse('{"seatbid":["x"]}')).to.deep.equal({ error: 'cannot unmarshal []openrtb2.SeatBid: expect { or n, but found "' });
    });
  });

  describe('mediaTypeFromMtype', () => {
    it('maps OpenRTB 2.6 mtype values, within the types the adapter accepts', () => {
      expect(mediaTypeFromMtype(1)).to.equal('banner');
      expect(mediaTypeFromMtype(3)).to.equal('audio');
      expect(mediaTypeFromMtype(3, ['banner', 'video', 'native'])).to.equal(undefined);
      expect(mediaTypeFromMtype(4, ['banner', 'video', 'native'])).to.equal('native');
      for (const value of [0, 5, 1.5, '1', undefined, null]) expect(mediaTypeFromMtype(value), String(value)).to.equal(undefined);
    });
  });

  describe('withFloorInCurrency', () => {
    const info = {
      bidder: 'b',
      endpoint: 'auction' as const,
      convertCurrency: (amount: number, from: string, to: string): number => {
        if (from === 'EUR' && to === 'USD') return amount * 2;
        throw new Error(`Currency conversion rate not found: '${from}' => '${to}'`);
      },
    };

    it('converts a positive floor in another currency, and the imp then names the target currency', () => {
      expect(withFloorInCurrency({ id: 'i', bidfloor: 1.5, bidfloorcur: 'EUR' }, 'USD', info)).to.deep.equal({ imp: { id: 'i', bidfloor: 3, bidfloorcur: 'USD' } });
    });

    it('leaves an imp without a floor, without a currency, or already in the currency (any case) as it is', () => {
      for (const imp of [{ id: 'i' }, { id: 'i', bidfloor: 0, bidfloorcur: 'EUR' }, { id: 'i', bidfloor: 2 }, { id: 'i', bidfloor: 2, bidfloorcur: 'usd' }]) {
        expect(withFloorInCurrency(imp, 'USD', info)).to.deep.equal({ imp });
      }
    });

    it('gives the conversion error text when no rate is known', () => {
      expect(withFloorInCurrency({ id: 'i', bidfloor: 1, bidfloorcur: 'GBP' }, 'USD', info)).to.deep.equal({ error: "Currency conversion rate not found: 'GBP' => 'USD'" });
    });
  });

  describe('goCurrencyCodeError', () => {
    it('takes ISO 4217 codes in any case, historic ones included, as golang.org/x/text does', () => {
      for (const code of ['USD', 'eur', 'Gbp', 'DEM', 'XAU']) expect(goCurrencyCodeError(code), code).to.equal(undefined);
    });

    it("refuses what is not three letters, and three letters that are no currency, in Go's words", () => {
      for (const code of ['', 'US', 'USDX', 'U$D']) expect(goCurrencyCodeError(code), code).to.equal('currency: tag is not well-formed');
      for (const code of ['XYZ', 'abc']) expect(goCurrencyCodeError(code), code).to.equal('currency: tag is not a recognized currency');
    });
  });

  describe('decodeExtBid', () => {
    it('gives prebid\'s members when every typed member fits, nothing for a null or absent prebid', () => {
      expect(decodeExtBid({ Prebid: { type: 'video', meta: { advertiserDomains: ['a.example'] }, passthrough: 5 } })).to.deep.equal({
        value: { prebid: { type: 'video', meta: { advertiserdomains: ['a.example'] }, passthrough: 5 } },
      });
      expect(decodeExtBid({ prebid: null, other: 1 })).to.deep.equal({ value: {} });
      expect(decodeExtBid(null)).to.deep.equal({ value: {} });
    });

    it('fails with json-iterator\'s text at the first member of the wrong type, in the order written', () => {
      expect(decodeExtBid(undefined)).to.deep.equal({ error: 'expect { or n, but found \u0000' });
      expect(decodeExtBid({ prebid: { meta: 'm', type: 5 } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtBidPrebid.Meta: expect { or n, but found "' });
      expect(decodeExtBid({ prebid: { video: { duration: '15' } } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtBidPrebidVideo.Duration: unexpected character: \ufffd' });
      expect(decodeExtBid({ dsa: { adrender: 'yes' } })).to.deep.equal({ error: 'cannot unmarshal openrtb_ext.ExtBidDSA.AdRender: unexpected character: \ufffd' });
      expect(decodeExtBid({ prebid: { meta: { secondaryCatIds: [1] } } })).to.deep.equal({ error: 'cannot unmarshal []string: expects " or n, but found 1' });
    });
  });
});
