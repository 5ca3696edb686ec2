import {
  checkResponseStatus,
  compileEndpoint,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  encodeAsOpenrtb2Request,
  failedToUnmarshal,
  goObjectExpected,
  isJsonObject,
  mediaTypeFromMtype,
  unknownError,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidRequest,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type Publisher,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

const REQUEST_HEADERS = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };
/** The host's supply id (Prebid Server's `extra_info` for this bidder) ends in lower-case letters. */
const SUPPLY_ID = /[a-z]+$/;
const AUCTION_PRICE = '${AUCTION_PRICE}';

/**
 * The Trade Desk's endpoint names a supply source: the first one an imp states, else the host's own
 * (`extra.supplyId`), which makes the default endpoint.
 */
export function createTheTradeDeskBidder(config: BidderConfig): Bidder {
  const hostSupplyId = config.extra.supplyId ?? '';
  if (typeof hostSupplyId !== 'string' || (hostSupplyId !== '' && !SUPPLY_ID.test(hostSupplyId))) {
    throw new Error('ExtraAdapterInfo must be a simple string provided by TheTradeDesk');
  }
  const endpoint = compileEndpoint(config.endpoint);
  const defaultEndpoint = tryExpand(endpoint, hostSupplyId) ?? '';

  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const found = findParams(request.imp);
      // Go returns jsonutil.Unmarshal's error as it is: FailedToUnmarshal (14).
      if ('error' in found) return { requests: [], errors: [failedToUnmarshal(found.error)] };
      const { publisherId, supplySourceId } = found;

      const body: BidRequest = { ...request, imp: request.imp.map(sizedFromFirstFormat) };
      if (body.site) body.site = { ...body.site, publisher: withPublisherId(body.site.publisher, publisherId) };
      else if (body.app) body.app = { ...body.app, publisher: withPublisherId(body.app.publisher, publisherId) };

      let uri = defaultEndpoint;
      if (supplySourceId !== '') {
        try {
          uri = endpoint.expand({ SupplyId: supplySourceId });
        } catch (err) {
          return { requests: [], errors: [unknownError(`unable to resolve endpoint macros: ${(err as Error).message}`)] };
        }
      } else if (uri === '') {
        return { requests: [], errors: [unknownError('Either supplySourceId or a default endpoint must be provided')] };
      }
      return {
        requests: [{ method: 'POST', uri, body: encodeAsOpenrtb2Request(body), headers: { ...REQUEST_HEADERS }, impIds: body.imp.map((imp) => imp.id) }],
      };
    },

    makeBids(_request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response);
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const entry of seatbid.bid) {
          const bid = withAuctionPrice(entry);
          const type = mediaTypeFromMtype(bid.mtype);
          // One bid of an unknown markup type loses the whole answer, as in Prebid Server.
          if (!type) return { bids: [], errors: [unknownError(`unsupported mtype: ${bid.mtype ?? 0}`)] };
          bids.push({ bid, type });
        }
      }
      return { currency: decoded.value.cur || 'USD', bids };
    },
  };
}

function tryExpand(endpoint: ReturnType<typeof compileEndpoint>, supplyId: string): string | undefined {
  try {
    return endpoint.expand({ SupplyId: supplyId });
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * The first publisher id and the first supply source id the imps state, reading the imps' params until both are
 * found. Params that cannot be read fail the whole request.
 */
function findParams(imps: Imp[]): { publisherId: string; supplySourceId: string } | { error: string } {
  let publisherId = '';
  let supplySourceId = '';
  for (const imp of imps) {
    const params = readParams(imp);
    if ('error' in params) return params;
    if (publisherId === '') publisherId = params.publisherId;
    if (supplySourceId === '') supplySourceId = params.supplySourceId;
    if (publisherId !== '' && supplySourceId !== '') break;
  }
  return { publisherId, supplySourceId };
}

/**
 * The imp's params as Prebid Server reads them (getImpressionExt, thetradedesk.go), with its decoder's texts:
 * `imp.ext` into `adapters.ExtImpBidder` (the SDK's `decodeExtImpBidder`: `prebid` a typed `ExtImpPrebid`, `ae` an
 * int8), then its `bidder` into `ExtImpTheTradeDesk`: keys match ignoring case, each one decoded in turn (the last
 * winning), and `null` empties a field.
 */
function readParams(imp: Imp): { publisherId: string; supplySourceId: string } | { error: string } {
  // A `null` imp.ext decodes to no params at all, as an absent one does.
  const ext = decodeExtImpBidder(imp.ext ?? null);
  if ('error' in ext) return ext;
  const bidder = ext.value.bidder;
  const params = { publisherId: '', supplySourceId: '' };
  if (bidder === null) return params;
  if (!isJsonObject(bidder)) return { error: goObjectExpected(bidder) };
  for (const key in bidder) {
    if (!Object.hasOwn(bidder, key)) continue;
    const lower = key.toLowerCase();
    const field = lower === 'publisherid' ? 'publisherId' : lower === 'supplysourceid' ? 'supplySourceId' : undefined;
    if (!field) continue;
    const value = bidder[key];
    // A member set to undefined is not in the JSON the bidder decodes.
    if (value === undefined) continue;
    if (value !== null && typeof value !== 'string') {
      const goField = field === 'publisherId' ? 'PublisherId' : 'SupplySourceId';
      return { error: `cannot unmarshal openrtb_ext.ExtImpTheTradeDesk.${goField}: expects " or n, but found ${JSON.stringify(value)[0]}` };
    }
    params[field] = value ?? '';
  }
  return params;
}

/** A banner with formats takes the first format's size as its own. */
function sizedFromFirstFormat(imp: Imp): Imp {
  const format = imp.banner?.format?.[0];
  if (!imp.banner || !format) return imp;
  return { ...imp, banner: { ...imp.banner, w: format.w ?? 0, h: format.h ?? 0 } };
}

/** The publisher with the params' id when one is given; a missing publisher is created either way. */
function withPublisherId(publisher: Publisher | undefined, publisherId: string): Publisher {
  if (publisher && publisherId === '') return { ...publisher };
  return publisherId === '' ? {} : { ...publisher, id: publisherId };
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** `${AUCTION_PRICE}` in the markup and the win and billing URLs becomes the bid's price. */
function withAuctionPrice(bid: Bid): Bid {
  const price = typeof bid.price === 'number' ? goFloat(bid.price) : '0';
  const resolved: Bid = { ...bid };
  for (const key of ['nurl', 'adm', 'burl'] as const) {
    const text = bid[key];
    if (typeof text === 'string' && text.includes(AUCTION_PRICE)) resolved[key] = text.replaceAll(AUCTION_PRICE, price);
  }
  return resolved;
}

/** A number as Go's `FormatFloat(n, 'f', -1, 64)` writes it: the shortest exact digits, never an exponent. */
function goFloat(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, lead, rest = '', exponentText] = match;
  const digits = lead! + rest;
  const point = 1 + Number(exponentText);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
