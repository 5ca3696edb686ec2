/**
 * GumGum bidder: every imp with readable params goes in one call. The params pick the site id (zone) and publisher
 * id, and shape the imp: the ad unit code becomes `tagid`, a sizeless banner takes its first format's size (and the
 * largest format with the slot id), video carries the IRIS.TV id, and a product replaces `imp.ext`.
 */
import {
  badInput,
  badServerResponse,
  bidResponseCurrency,
  isJsonObject,
  readBidderParams,
  readGoBidResponse,
  seatBids,
  type Banner,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type Format,
  type Imp,
  type JsonObject,
  type MakeBidsResult,
  type MakeRequestsResult,
  type ResponseData,
  type Site,
  type TypedBid,
} from '../../core/api/index.js';

const HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json;charset=utf-8', Accept: 'application/json' };

/** `imp.ext.bidder` as Prebid Server's `ExtImpGumGum` reads it: absent or null fields are empty. */
interface GumgumParams {
  zone: string;
  pubId: number;
  irisid: string;
  slot: number;
  product: string;
}

const PARAM_TYPES: Readonly<Record<keyof GumgumParams, 'string' | 'number'>> = {
  zone: 'string',
  pubId: 'number',
  irisid: 'string',
  slot: 'number',
  product: 'string',
};

export function createGumgumBidder(config: BidderConfig): Bidder {
  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const errors: BidderError[] = [];
      const imps: Imp[] = [];
      // The last valid imp's zone and publisher win. Without a site (app requests) they go nowhere.
      let site: Site | undefined = request.site ? { ...request.site } : undefined;
      for (const imp of request.imp) {
        const read = readParams(imp);
        if ('error' in read) {
          errors.push(badInput(read.error));
          continue;
        }
        const { params } = read;
        if (site && params.zone !== '') site = { ...site, id: params.zone };
        if (site && params.pubId !== 0) {
          const publisher = isJsonObject(site.publisher) ? site.publisher : {};
          site = { ...site, publisher: { ...publisher, id: formatFloat(params.pubId) } };
        }
        imps.push(prepareImp(imp, params));
      }
      if (imps.length === 0) return { requests: [], errors };

      const body: BidRequest = { ...request, imp: imps };
      if (site) body.site = site;
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(request: BidRequest, _sent, response: ResponseData): MakeBidsResult {
      const decoded = readGoBidResponse(response, {
        status: { text: (status) => `Bad server response: HTTP status ${status}`, badRequestText: 'Bad user input: HTTP status 400' },
        decodeError: (detail) => badServerResponse(`Bad server response: ${detail}. `),
      });
      if ('result' in decoded) return decoded.result;

      const bids: TypedBid[] = [];
      for (const { bid } of seatBids(decoded.body)) {
        if (!isJsonObject(bid)) continue;
        const type = bidType(String(bid.impid ?? ''), request.imp);
        let typed = bid as Bid;
        if (type === 'video' && typeof typed.adm === 'string') {
          typed = { ...typed, adm: typed.adm.replaceAll('${AUCTION_PRICE}', formatFloat(Number(typed.price ?? 0))) };
        }
        bids.push({ bid: typed, type });
      }
      return { currency: bidResponseCurrency(decoded.body) ?? 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

function readParams(imp: Imp): { params: GumgumParams } | { error: string } {
  const read = readBidderParams(imp, 'openrtb_ext.ExtImpGumGum');
  if ('error' in read) return read;
  const source = read.params;
  const params: GumgumParams = { zone: '', pubId: 0, irisid: '', slot: 0, product: '' };
  for (const key of Object.keys(PARAM_TYPES) as Array<keyof GumgumParams>) {
    const value = source[key];
    if (value === undefined || value === null) continue;
    if (typeof value !== PARAM_TYPES[key]) return { error: `cannot unmarshal openrtb_ext.ExtImpGumGum.${key}: expects a ${PARAM_TYPES[key]}` };
    (params as unknown as Record<string, unknown>)[key] = value;
  }
  return { params };
}

function prepareImp(imp: Imp, params: GumgumParams): Imp {
  const prepared: Imp = { ...imp };
  const adUnitCode = isJsonObject(imp.ext?.prebid) ? imp.ext.prebid.adunitcode : undefined;
  if (typeof adUnitCode === 'string' && adUnitCode !== '') prepared.tagid = adUnitCode;

  const banner = imp.banner;
  if (banner && banner.w == null && banner.h == null && Array.isArray(banner.format) && banner.format.length > 0) {
    const first: Format = isJsonObject(banner.format[0]) ? banner.format[0] : {};
    const sized: Banner = { ...banner, w: first.w ?? 0, h: first.h ?? 0 };
    if (params.slot !== 0) sized.ext = biggestFormatExt(banner.format, params.slot);
    prepared.banner = sized;
  }
  if (imp.video && params.irisid !== '') prepared.video = { ...imp.video, ext: { irisid: params.irisid } };
  if (params.product !== '') prepared.ext = { product: params.product };
  return prepared;
}

/** `banner.ext` for a slot: the slot id and the format with the longest side (ties go to the later, larger one). */
function biggestFormatExt(formats: Format[], slot: number): JsonObject {
  let maxW = 0;
  let maxH = 0;
  let greatest = 0;
  for (const format of formats) {
    const w = isJsonObject(format) ? Number(format.w ?? 0) : 0;
    const h = isJsonObject(format) ? Number(format.h ?? 0) : 0;
    const biggerSide = w > h ? w : h;
    if (biggerSide > greatest || (biggerSide === greatest && w >= maxW && h >= maxH)) {
      greatest = biggerSide;
      maxW = w;
      maxH = h;
    }
  }
  // Zero values are left out, as Prebid Server's omitempty fields are.
  const ext: JsonObject = { si: slot };
  if (maxW !== 0) ext.maxw = maxW;
  if (maxH !== 0) ext.maxh = maxH;
  return ext;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** A banner imp's bids are banner; everything else, an unknown imp included, is video. */
function bidType(impId: string, imps: Imp[]): 'banner' | 'video' {
  return imps.some((imp) => imp.id === impId && imp.banner) ? 'banner' : 'video';
}

/** A number as Go's `strconv.FormatFloat(f, 'f', -1, 64)` writes it: shortest round-trip digits, never an exponent. */
export function formatFloat(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, lead, rest = '', exponentText] = match;
  const digits = lead! + rest;
  const exponent = Number(exponentText);
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  return sign + digits + '0'.repeat(Math.max(0, exponent - rest.length));
}
