/**
 * GumGum bidder: every imp with readable params goes in one call. The params pick the site id (zone) and publisher
 * id, and shape the imp: the ad unit code becomes `tagid`, a sizeless banner takes its first format's size (and the
 * largest format with the slot id), video carries the IRIS.TV id, and a product replaces `imp.ext`.
 */
import {
  badInput,
  badServerResponse,
  checkResponseStatus,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  fieldIgnoringCase,
  goDecodeErrorPrintedWithD,
  impsOfSentRequest,
  isJsonObject,
  encodeAsOpenrtb2Request,
  type Banner,
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

/** `ExtImpGumGum`'s fields by JSON key (lower-cased, as the decoder matches them): Go field name and kind. */
const PARAM_FIELDS: Readonly<Record<string, { key: keyof GumgumParams; goName: string; kind: 'string' | 'number' }>> = {
  zone: { key: 'zone', goName: 'Zone', kind: 'string' },
  pubid: { key: 'pubId', goName: 'PubID', kind: 'number' },
  irisid: { key: 'irisid', goName: 'IrisID', kind: 'string' },
  slot: { key: 'slot', goName: 'Slot', kind: 'number' },
  product: { key: 'product', goName: 'Product', kind: 'string' },
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

      const body: BidRequest = encodeAsOpenrtb2Request({ ...request, imp: imps });
      if (site) body.site = site;
      return {
        requests: [{ method: 'POST', uri: config.endpoint, body, headers: { ...HEADERS }, impIds: imps.map((imp) => imp.id) }],
        errors,
      };
    },

    makeBids(request: BidRequest, sent, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `Bad server response: HTTP status ${status}`,
        badRequestText: 'Bad user input: HTTP status 400',
      });
      if (statusResult) return statusResult;

      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [badServerResponse(`Bad server response: ${goDecodeErrorPrintedWithD(decoded.error)}. `)] };

      // Prebid Server's adapter replaced the request's imps with the ones it kept, and looks bids up among those.
      const imps = impsOfSentRequest(sent) ?? request.imp;
      const bids: TypedBid[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = bidType(bid.impid, imps);
          const adm = type === 'video' && bid.adm ? bid.adm.replaceAll('${AUCTION_PRICE}', formatFloat(bid.price)) : bid.adm;
          bids.push({ bid: adm === bid.adm ? bid : { ...bid, adm }, type });
        }
      }
      return { currency: decoded.value.cur || 'USD', bids };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/**
 * The params in the Go adapter's two decodes, with the texts Prebid Server's decoder (jsoniter, through
 * `jsonutil.Unmarshal`) reports: `imp.ext` into `adapters.ExtImpBidder` (the SDK's `decodeExtImpBidder`: its
 * `prebid` and `ae` typed as in Go), then its `bidder` into `ExtImpGumGum`. Keys
 * match ignoring case; `null` is the zero value; the first field of the wrong type, in the JSON's order, fails.
 */
function readParams(imp: Imp): { params: GumgumParams } | { error: string } {
  const ext = decodeExtImpBidder(imp.ext);
  if ('error' in ext) return ext;
  const bidder = ext.value.bidder;
  const params: GumgumParams = { zone: '', pubId: 0, irisid: '', slot: 0, product: '' };
  if (!isJsonObject(bidder)) return { error: `expect { or n, but found ${firstCharOf(bidder)}` };
  for (const key of Object.keys(bidder)) {
    // Own members only: a key named like a builtin (`constructor`) is no field, as Go skips an unknown member.
    const name = key.toLowerCase();
    const field = Object.hasOwn(PARAM_FIELDS, name) ? PARAM_FIELDS[name] : undefined;
    const value = bidder[key];
    if (!field || value === null) continue;
    if (field.kind === 'string' && typeof value !== 'string') {
      return { error: `cannot unmarshal openrtb_ext.ExtImpGumGum.${field.goName}: expects " or n, but found ${firstCharOf(value)}` };
    }
    if (field.kind === 'number' && typeof value !== 'number') return { error: `cannot unmarshal openrtb_ext.ExtImpGumGum.${field.goName}: invalid number` };
    (params as unknown as Record<string, unknown>)[field.key] = value;
  }
  return { params };
}

/**
 * The character Go's decoder names in "but found X": the value's first JSON character, NUL when there is none (a raw
 * `null`, as `imp.ext` or its `bidder`, is held as none).
 */
function firstCharOf(value: unknown): string {
  return value === undefined || value === null ? '\u0000' : JSON.stringify(value)[0]!;
}

function prepareImp(imp: Imp, params: GumgumParams): Imp {
  const prepared: Imp = { ...imp };
  // Read apart with encoding/json, keys in any case; a value of the wrong type leaves tagid as it is.
  const prebid = isJsonObject(imp.ext) ? fieldIgnoringCase(imp.ext, 'prebid') : undefined;
  const adUnitCode = isJsonObject(prebid) ? fieldIgnoringCase(prebid, 'adunitcode') : undefined;
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
