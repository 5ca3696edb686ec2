import {
  badInput,
  bidResponseCurrency,
  compileEndpoint,
  isJsonObject,
  readGoBidResponse,
  seatBids,
  unexpectedStatusText,
  unknownError,
  type Bid,
  type BidRequest,
  type Bidder,
  type BidderConfig,
  type BidderError,
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
  publisherId: string;
  publisherDomain: string;
  bidfloor: number;
  tagid: string;
  tagId: string;
  bcat?: string[];
  badv?: string[];
  pageType: string;
  position?: number;
}

type ParamKind = 'string' | 'number' | 'integer' | 'strings';
const PARAM_KINDS: Record<keyof TaboolaParams, ParamKind> = {
  publisherId: 'string',
  publisherDomain: 'string',
  bidfloor: 'number',
  tagid: 'string',
  tagId: 'string',
  bcat: 'strings',
  badv: 'strings',
  pageType: 'string',
  position: 'integer',
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
        requests.push({ method: 'POST', uri, body: outgoing, impIds: outgoing.imp.map((imp) => imp.id) });
      }
      return { requests };
    },

    makeBids(request: BidRequest, _sent: RequestData, response: ResponseData): MakeBidsResult {
      const parsed = readGoBidResponse(response, { status: {
        text: (status) => `${unexpectedStatusText(status)}.`,
        badRequestText: 'Unexpected status code: 400. Bad request from publisher. Run with request.debug = 1 for more info.',
      }, decodeError: (detail) => unknownError(`cannot read the bid response: ${detail}`) });
      if ('result' in parsed) return parsed.result;
      const body = parsed.body;

      const bids: TypedBid[] = [];
      const errors: BidderError[] = [];
      for (const { bid } of seatBids(body)) {
        if (!isJsonObject(bid)) continue;
        const resolved = resolvePriceMacro(bid as Bid);
        const type = mediaTypeOf(resolved.impid, request.imp);
        if (!type) {
          errors.push(badInput(`Failed to find banner/native impression "${typeof resolved.impid === 'string' ? resolved.impid : ''}" `));
          continue;
        }
        bids.push({ bid: resolved, type });
      }
      const currency = bidResponseCurrency(body);
      return { currency, bids, errors };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------------------------------------------

/** One request for the native imps, one for the banner imps (either may end up empty), or the errors met. */
function splitRequest(request: BidRequest): { requests: BidRequest[]; errors: BidderError[] } {
  const errors: BidderError[] = [];
  const params: TaboolaParams = { publisherId: '', publisherDomain: '', bidfloor: 0, tagid: '', tagId: '', pageType: '' };
  const natives: Imp[] = [];
  const banners: Imp[] = [];

  for (const imp of request.imp) {
    const problem = decodeParams(imp.ext?.bidder, params);
    if (problem) {
      errors.push(unknownError(problem));
      continue;
    }
    const tagid = params.tagId.length > 0 ? params.tagId : params.tagid;
    const outgoing: Imp = withString({ ...imp }, 'tagid', tagid);
    if (params.bidfloor !== 0) outgoing.bidfloor = params.bidfloor;
    if (outgoing.banner) {
      if (params.position !== undefined) outgoing.banner = { ...outgoing.banner, pos: params.position };
      banners.push(outgoing);
    } else if (outgoing.native) {
      natives.push(outgoing);
    }
  }

  const modified: BidRequest = { ...request };
  const publisher = params.publisherId !== '' ? { id: params.publisherId } : {};
  if (request.site) {
    let site = withString({ ...request.site }, 'id', params.publisherId);
    site = withString(site, 'name', params.publisherId);
    site = withString(site, 'domain', params.publisherDomain !== '' ? params.publisherDomain : (request.site.domain ?? ''));
    modified.site = { ...site, publisher };
  }
  if (request.app) modified.app = { ...withString({ ...request.app }, 'id', params.publisherId), publisher };
  if (params.bcat) setList(modified, 'bcat', params.bcat);
  if (params.badv) setList(modified, 'badv', params.badv);
  if (params.pageType !== '') {
    if (request.ext === undefined || request.ext === null) modified.ext = { pageType: params.pageType };
    else if (isJsonObject(request.ext)) modified.ext = { ...request.ext, pageType: params.pageType };
    else errors.push(unknownError('could not unmarshal request ext: it is not a JSON object'));
  }

  return { requests: [{ ...modified, imp: natives }, { ...modified, imp: banners }], errors };
}

/**
 * Decodes one imp's params into `into`, as Go's decoder does into a reused struct: keys present overwrite, `null`
 * clears a list or the position and leaves the rest as they were. Returns the problem when the params are unusable.
 */
function decodeParams(bidder: unknown, into: TaboolaParams): string | undefined {
  if (!isJsonObject(bidder)) return 'cannot unmarshal imp.ext.bidder: the taboola params must be a JSON object';
  const target = into as unknown as Record<string, unknown>;
  for (const [key, kind] of Object.entries(PARAM_KINDS) as Array<[keyof TaboolaParams, ParamKind]>) {
    if (!(key in bidder)) continue;
    const value = bidder[key];
    if (value === null) {
      if (kind === 'strings' || kind === 'integer') target[key] = undefined;
      continue;
    }
    if (!hasKind(value, kind)) return `cannot unmarshal imp.ext.bidder.${key}: expected ${kind === 'strings' ? 'a list of strings' : `a ${kind}`}`;
    target[key] = kind === 'strings' ? [...(value as string[])] : value;
  }
  return undefined;
}

function hasKind(value: unknown, kind: ParamKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'strings':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
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
function mediaTypeOf(impId: unknown, imps: Imp[]): MediaType | undefined {
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
