import {
  badInput,
  badServerResponse,
  bidMediaType,
  readJsonResponse,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidResponse,
  type Imp,
  type RequestData,
  type TypedBid,
} from 'gavel-auction/sdk';

interface AcmeParams {
  adUnit: string;
  floor?: number;
}

function readParams(imp: Imp): AcmeParams | BidderError {
  const params = imp.ext?.bidder as Partial<AcmeParams> | undefined;
  if (typeof params?.adUnit !== 'string' || params.adUnit === '') return badInput(`imp ${imp.id}: params.adUnit is required`);
  return { adUnit: params.adUnit, floor: typeof params.floor === 'number' ? params.floor : undefined };
}

/** Acme takes one imp per call, named by its ad unit code in `tagid`; its answer is plain OpenRTB. */
export function createAcmeBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request) {
      const requests: RequestData[] = [];
      const errors: BidderError[] = [];
      for (const imp of request.imp) {
        const params = readParams(imp);
        if ('code' in params) {
          errors.push(params);
          continue;
        }
        const acmeImp: Imp = { ...imp, tagid: params.adUnit };
        if (params.floor !== undefined) Object.assign(acmeImp, { bidfloor: params.floor, bidfloorcur: 'USD' });
        requests.push({
          method: 'POST',
          uri: config.endpoint,
          body: { ...request, imp: [acmeImp] },
          headers: { 'x-openrtb-version': '2.6' },
          impIds: [imp.id],
        });
      }
      return { requests, errors };
    },

    makeBids(request, _sent, response) {
      const read = readJsonResponse<BidResponse>(response);
      if (read.error) return { bids: [], errors: [read.error] };
      if (!read.value) return { bids: [] };
      const imps = new Map(request.imp.map((imp) => [imp.id, imp]));
      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of Array.isArray(read.value.seatbid) ? read.value.seatbid : []) {
        for (const bid of Array.isArray(seatbid?.bid) ? seatbid.bid : []) {
          const imp = typeof bid === 'object' && bid !== null ? imps.get(bid.impid) : undefined;
          const type = imp && typeof bid.price === 'number' ? bidMediaType(bid, imp) : undefined;
          if (type) bids.push({ bid, type });
          else errors.push(badServerResponse('Bad server response: a bid without price, known imp or media type'));
        }
      }
      return { currency: read.value.cur || 'USD', bids, errors };
    },
  };
}
