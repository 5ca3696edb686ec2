import {
  badInput,
  checkResponseStatus,
  compileEndpoint,
  decodeExtImpBidder,
  decodeOpenrtb2BidResponse,
  failedToUnmarshal,
  goFoundByte,
  goObjectExpected,
  isJsonObject,
  encodeAsOpenrtb2Request,
  unexpectedStatusText,
  unknownError,
  type Bid,
  type Bidder,
  type BidderConfig,
  type BidderError,
  type BidRequest,
  type Imp,
  type MakeBidsResult,
  type MakeRequestsResult,
  type MediaType,
  type RequestData,
  type ResponseData,
  type TypedBid,
} from '../../core/api/index.js';

/**
 * Taboola's params, as Prebid Server reads them: one value decoded into again and again, imp after imp, so a key an
 * imp leaves out keeps what an earlier imp said. The request-wide values (publisher, domain, bcat, badv, page type)
 * are those left after the last imp.
 */
interface TaboolaParams {
  PublisherId: string;
  PublisherDomain: string;
  BidFloor: number;
  /** `tagid`, the older spelling. */
  TagId: string;
  /** `tagId`. */
  TagID: string;
  BCat?: string[];
  BAdv?: string[];
  PageType: string;
  Position?: number;
}

type ParamKind = 'string' | 'float' | 'int' | 'strings';

/**
 * `ImpExtTaboola`'s fields by JSON name. `tagid` and `tagId` differ only in case, so Prebid Server's decoder matches a
 * key exactly first and only then in lower case (where `TagId` or `TAGID` is `tagid`).
 */
const PARAM_FIELDS: Readonly<Record<string, { field: keyof TaboolaParams; kind: ParamKind }>> = {
  publisherId: { field: 'PublisherId', kind: 'string' },
  publisherid: { field: 'PublisherId', kind: 'string' },
  publisherDomain: { field: 'PublisherDomain', kind: 'string' },
  publisherdomain: { field: 'PublisherDomain', kind: 'string' },
  bidfloor: { field: 'BidFloor', kind: 'float' },
  tagid: { field: 'TagId', kind: 'string' },
  tagId: { field: 'TagID', kind: 'string' },
  bcat: { field: 'BCat', kind: 'strings' },
  badv: { field: 'BAdv', kind: 'strings' },
  pageType: { field: 'PageType', kind: 'string' },
  pagetype: { field: 'PageType', kind: 'string' },
  position: { field: 'Position', kind: 'int' },
};

/** The endpoint's first label: Taboola runs one host for display (banner) and one for native. */
const DISPLAY = 'display';
const NATIVE = 'native';

export function createTaboolaBidder(config: BidderConfig): Bidder {
  const endpoint = compileEndpoint(config.endpoint);
  const gvlId = config.host.gvlId !== undefined && config.host.gvlId > 0 ? String(config.host.gvlId) : '';

  return {
    makeRequests(request: BidRequest): MakeRequestsResult {
      const built = splitRequest(request);
      if (built.errors.length > 0) return { requests: [], errors: built.errors };
      const requests: RequestData[] = [];
      for (const outgoing of built.requests) {
        if (outgoing.imp.length === 0) continue;
        const first = outgoing.imp[0]!;
        const mediaType = first.banner ? DISPLAY : NATIVE;
        const publisherId = outgoing.site?.id || outgoing.app?.id || '';
        let uri: string;
        try {
          uri = endpoint.expand({ MediaType: mediaType, GvlID: gvlId, PublisherID: publisherId });
        } catch (err) {
          return { requests: [], errors: [unknownError(`unable to build request ${(err as Error).message}`)] };
        }
        requests.push({ method: 'POST', uri, body: encodeAsOpenrtb2Request(outgoing), impIds: outgoing.imp.map((imp) => imp.id) });
      }
      return { requests };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const statusResult = checkResponseStatus(response, {
        text: (status) => `${unexpectedStatusText(status)}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher. Run with request.debug = 1 for more info.',
      });
      if (statusResult) return statusResult;
      const decoded = decodeOpenrtb2BidResponse(response.body);
      if ('error' in decoded) return { bids: [], errors: [failedToUnmarshal(decoded.error)] };

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const seatbid of decoded.value.seatbid) {
        for (const bid of seatbid.bid) {
          const type = mediaTypeOf(bid.impid, request.imp);
          if (!type) {
            errors.push(badInput(`Failed to find banner/native impression "${bid.impid}" `));
            continue;
          }
          bids.push({ bid: resolvePriceMacro(bid), type });
        }
      }
      // An answer without `cur` leaves the currency unset, which is USD.
      return { currency: decoded.value.cur || undefined, bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** One request for the native imps, one for the banner imps (either may end up empty), or the errors met. */
function splitRequest(request: BidRequest): { requests: BidRequest[]; errors: BidderError[] } {
  const errors: BidderError[] = [];
  const params: TaboolaParams = { PublisherId: '', PublisherDomain: '', BidFloor: 0, TagId: '', TagID: '', PageType: '' };
  const natives: Imp[] = [];
  const banners: Imp[] = [];

  for (const imp of request.imp) {
    const problem = decodeImpParams(imp, params);
    if (problem) {
      // Prebid Server returns the decoder's error as is: FailedToUnmarshal.
      errors.push(failedToUnmarshal(problem));
      continue;
    }
    const tagid = params.TagID.length > 0 ? params.TagID : params.TagId;
    const outgoing: Imp = withString({ ...imp }, 'tagid', tagid);
    if (params.BidFloor !== 0) outgoing.bidfloor = params.BidFloor;
    if (outgoing.banner) {
      if (params.Position !== undefined) outgoing.banner = { ...outgoing.banner, pos: asInt8(params.Position) };
      banners.push(outgoing);
    } else if (outgoing.native) {
      natives.push(outgoing);
    }
  }

  const modified: BidRequest = { ...request };
  const publisher = params.PublisherId !== '' ? { id: params.PublisherId } : {};
  if (request.site) {
    let site = withString({ ...request.site }, 'id', params.PublisherId);
    site = withString(site, 'name', params.PublisherId);
    site = withString(site, 'domain', params.PublisherDomain !== '' ? params.PublisherDomain : (request.site.domain ?? ''));
    modified.site = { ...site, publisher };
  }
  if (request.app) modified.app = { ...withString({ ...request.app }, 'id', params.PublisherId), publisher };
  if (params.BCat) setList(modified, 'bcat', params.BCat);
  if (params.BAdv) setList(modified, 'badv', params.BAdv);
  if (params.PageType !== '') {
    const ext: unknown = request.ext;
    if (ext === undefined || ext === null) modified.ext = { pageType: params.PageType };
    else if (isJsonObject(ext)) modified.ext = { ...ext, pageType: params.PageType };
    else errors.push(unknownError(`could not unmarshal request ext: ${goObjectExpected(ext)}`));
  }

  return { requests: [{ ...modified, imp: natives }, { ...modified, imp: banners }], errors };
}

/**
 * Decodes one imp's params into `into` (createTaboolaRequests, taboola.go): `imp.ext` into `adapters.ExtImpBidder`
 * first (the SDK's `decodeExtImpBidder`: `prebid` a typed `ExtImpPrebid`, `ae` an int8), then its `bidder` as Prebid
 * Server's decoder fills its one reused struct: each key present overwrites its field, in the order the keys come;
 * `null` empties a text, clears a list or the position, and leaves the floor as it was. Returns the decoder's text
 * when `imp.ext` or the params cannot be decoded.
 */
function decodeImpParams(imp: Imp, into: TaboolaParams): string | undefined {
  // A `null` imp.ext decodes to no params at all, as an absent one does.
  const ext = decodeExtImpBidder(imp.ext ?? null);
  if ('error' in ext) return ext.error;
  const bidder = ext.value.bidder;
  if (bidder === null) return undefined;
  if (!isJsonObject(bidder)) return goObjectExpected(bidder);
  const target = into as unknown as Record<string, unknown>;
  for (const key in bidder) {
    if (!Object.hasOwn(bidder, key)) continue;
    const known = Object.hasOwn(PARAM_FIELDS, key) ? PARAM_FIELDS[key] : Object.hasOwn(PARAM_FIELDS, key.toLowerCase()) ? PARAM_FIELDS[key.toLowerCase()] : undefined;
    if (!known) continue;
    const value = bidder[key];
    // A member set to undefined is not in the JSON the bidder decodes.
    if (value === undefined) continue;
    const decoded = decodeParam(value, known.kind);
    if ('error' in decoded) return known.kind === 'strings' ? `cannot unmarshal []string: ${decoded.error}` : `cannot unmarshal openrtb_ext.ImpExtTaboola.${known.field}: ${decoded.error}`;
    if (decoded.value !== KEEP) target[known.field] = decoded.value;
  }
  return undefined;
}

const KEEP = Symbol('keep');

/** One param value as Go's decoder reads it into a field of the kind; `KEEP` when it leaves the field as it was. */
function decodeParam(value: unknown, kind: ParamKind): { value: unknown } | { error: string } {
  switch (kind) {
    case 'string':
      if (value === null) return { value: '' };
      return typeof value === 'string' ? { value } : { error: `expects " or n, but found ${goFoundByte(value)}` };
    case 'float':
      if (value === null) return { value: KEEP };
      return typeof value === 'number' ? { value } : { error: 'invalid number' };
    case 'int':
      if (value === null) return { value: undefined };
      if (typeof value !== 'number') return { error: 'unexpected character: \ufffd' };
      return Number.isInteger(value) ? { value } : { error: 'can not decode float as int' };
    case 'strings': {
      if (value === null) return { value: undefined };
      if (!Array.isArray(value)) return { error: `expect [ or n, but found ${goFoundByte(value)}` };
      const list: string[] = [];
      for (const item of value) {
        if (item != null && typeof item !== 'string') return { error: `expects " or n, but found ${goFoundByte(item)}` };
        list.push(item ?? '');
      }
      return { value: list };
    }
  }
}

/** Go's conversion to `adcom1.PlacementPosition`, an int8: out-of-range positions wrap around. */
function asInt8(value: number): number {
  return ((((value + 128) % 256) + 256) % 256) - 128;
}

/** Sets a string field, or removes it when empty (Prebid Server's OpenRTB structs omit empty strings). */
function withString<T extends Record<string, unknown>>(object: T, key: string, value: string): T {
  const copy: Record<string, unknown> = { ...object };
  if (value === '') delete copy[key];
  else copy[key] = value;
  return copy as T;
}

/** Replaces a request list; an empty list removes it (it would be omitted on the wire). */
function setList(request: BidRequest, key: 'bcat' | 'badv', list: string[]): void {
  if (list.length === 0) delete request[key];
  else request[key] = list;
}

// ---------------------------------------------------------------------------------------------------------------
// Response side
// ---------------------------------------------------------------------------------------------------------------

/** The imp's type: banner first, then native; undefined when the imp is unknown or neither. */
function mediaTypeOf(impId: string, imps: Imp[]): MediaType | undefined {
  for (const imp of imps) {
    if (imp.id !== impId) continue;
    if (imp.banner) return 'banner';
    if (imp.native) return 'native';
  }
  return undefined;
}

/** `${AUCTION_PRICE}` in nurl, adm and burl becomes the bid's price. */
function resolvePriceMacro(bid: Bid): Bid {
  const price = plainNumber(typeof bid.price === 'number' ? bid.price : 0);
  const resolved: Bid = { ...bid };
  for (const key of ['nurl', 'adm', 'burl'] as const) {
    const value = bid[key];
    if (typeof value === 'string') resolved[key] = value.replaceAll('${AUCTION_PRICE}', price);
  }
  return resolved;
}

/** A number in plain decimal notation, shortest form (Go's `strconv.FormatFloat(x, 'f', -1, 64)`). */
export function plainNumber(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, lead, fraction = '', exponentText] = match;
  const exponent = Number(exponentText);
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${lead}${fraction}`;
  return `${sign}${lead}${fraction}${'0'.repeat(Math.max(0, exponent - fraction.length))}`;
}
