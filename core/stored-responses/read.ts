import { isJsonObject, RESERVED_IMP_EXT_KEYS, type BidRequest, type Namespace } from '../api/index.js';
import type { FetchOptions, StoredDataFetcher } from '../stored/index.js';

type Json = Record<string, unknown>;

/** One stored bid response: read by the bidder's adapter as its server's answer for one imp. */
export interface StoredBidAnswer {
  impId: string;
  /** The stored document as the text of an HTTP answer body. */
  body: string;
  /** Set the bids' `impid` to this imp's id (`replaceimpid`, true unless the request says false). */
  replaceImpId: boolean;
}

/** The stored responses a request names, fetched. */
export interface StoredResponses {
  /** By imp id, each imp's stored auction response (an array of seat bids). When set, no bidder is called. */
  auction?: Map<string, unknown>;
  /** By bidder name as the imp spells it, the answers that stand in for its server on those imps. */
  bids?: Map<string, StoredBidAnswer[]>;
}

export type StoredResponsesOutcome = StoredResponses | { errors: string[] } | undefined;

/** What the request names: stored response ids by imp, before fetching. */
interface Named {
  auction: Map<string, string>;
  /** imp id -> bidder (as spelt in the imp) -> {id, replaceImpId} */
  bids: Map<string, Map<string, { id: string; replaceImpId: boolean }>>;
}

/** True when some imp names a stored auction or bid response: most requests do not, and skip all of this. */
export function namesStoredResponses(request: BidRequest, namespace: Namespace): boolean {
  if (!Array.isArray(request.imp)) return false;
  for (const imp of request.imp) {
    const options = isJsonObject(imp) && isJsonObject(imp.ext) ? imp.ext[namespace] : undefined;
    if (isJsonObject(options) && (options.storedauctionresponse !== undefined || options.storedbidresponse !== undefined)) return true;
  }
  return false;
}

/** The bidders an imp names: `imp.ext.<ns>.bidder.<name>` and `imp.ext.<name>`. */
function biddersOf(impExt: Json, options: Json): string[] {
  const names = isJsonObject(options.bidder) ? Object.keys(options.bidder) : [];
  for (const key of Object.keys(impExt)) if (!RESERVED_IMP_EXT_KEYS.has(key)) names.push(key);
  return names;
}

/**
 * Reads `imp.ext.<ns>.storedauctionresponse {id}` and `imp.ext.<ns>.storedbidresponse [{id, bidder, replaceimpid}]`
 * with Prebid Server's rules (stored_responses/, ortb/request_validator.go): an id is required; a stored bid
 * response applies to the imp's bidder of that name (any case); a stored auction response must be on every imp or
 * on none; an imp with stored bid responses must have one for each of its bidders.
 */
function nameStoredResponses(request: BidRequest, namespace: Namespace, errors: string[]): Named {
  const named: Named = { auction: new Map(), bids: new Map() };
  const imps = request.imp;
  let withAuction = 0;
  imps.forEach((imp, index) => {
    const impExt = isJsonObject(imp.ext) ? imp.ext : {};
    const options = isJsonObject(impExt[namespace]) ? (impExt[namespace] as Json) : {};
    const auction = options.storedauctionresponse;
    if (auction !== undefined) {
      const id = isJsonObject(auction) ? auction.id : undefined;
      if (typeof id !== 'string' || id === '') errors.push(`request.imp[${index}] has ext.${namespace}.storedauctionresponse specified, but "id" field is missing `);
      else {
        named.auction.set(imp.id, id);
        withAuction++;
      }
    }
    const bidResponses = options.storedbidresponse;
    if (!Array.isArray(bidResponses) || bidResponses.length === 0) return;
    const bidders = biddersOf(impExt, options);
    const matched = new Map<string, { id: string; replaceImpId: boolean }>();
    for (const entry of bidResponses) {
      const id = isJsonObject(entry) ? entry.id : undefined;
      const bidder = isJsonObject(entry) ? entry.bidder : undefined;
      if (typeof id !== 'string' || id === '' || typeof bidder !== 'string' || bidder === '') {
        errors.push(`request.imp[${index}] has ext.${namespace}.storedbidresponse specified, but "id" or/and "bidder" fields are missing `);
        return;
      }
      const name = bidders.find((candidate) => !matched.has(candidate) && candidate.toLowerCase() === bidder.toLowerCase());
      if (name !== undefined) matched.set(name, { id, replaceImpId: (entry as Json).replaceimpid !== false });
    }
    if (matched.size === 0 || matched.size !== bidders.length) {
      errors.push(
        `request validation failed. Stored bid responses are specified for imp ${imp.id}. Bidders specified in imp.ext should match with bidders specified in imp.ext.${namespace}.storedbidresponse`,
      );
      return;
    }
    named.bids.set(imp.id, matched);
  });
  if (withAuction > 0) {
    imps.forEach((imp, index) => {
      if (!named.auction.has(imp.id)) {
        errors.push(
          `request validation failed. The StoredAuctionResponse.ID field must be completely present with, or completely absent from, all impressions in request. No StoredAuctionResponse data found for request.imp[${index}].ext.${namespace} \n`,
        );
      }
    });
  }
  return named;
}

/**
 * The stored responses a request names, fetched from the stored-data backend (`responses/<id>.json`, PostgreSQL
 * rows of kind `response`) in one call: undefined when it names none, the 400 lines when it names them wrongly or
 * names ids the backend does not have. A backend failure is thrown (`StoredFetchError`, a 503).
 */
export async function readStoredResponses(request: BidRequest, namespace: Namespace, fetcher: StoredDataFetcher, options?: FetchOptions): Promise<StoredResponsesOutcome> {
  if (!namesStoredResponses(request, namespace)) return undefined;
  const errors: string[] = [];
  const named = nameStoredResponses(request, namespace, errors);
  if (errors.length > 0) return { errors };
  const ids = new Set<string>(named.auction.values());
  for (const bidders of named.bids.values()) for (const { id } of bidders.values()) ids.add(id);
  if (ids.size === 0) return undefined;
  const documents = fetcher.fetchResponses ? await fetcher.fetchResponses([...ids], options) : new Map<string, unknown>();

  const found: StoredResponses = {};
  for (const [impId, id] of named.auction) {
    const document = documents.get(id);
    if (document === undefined) errors.push(`failed to fetch stored auction response for impId = ${impId} and storedAuctionResponse id = ${id}`);
    else (found.auction ??= new Map()).set(impId, document);
  }
  for (const [impId, bidders] of named.bids) {
    for (const [bidder, { id, replaceImpId }] of bidders) {
      const document = documents.get(id);
      if (document === undefined) {
        errors.push(`failed to fetch stored bid response for impId = ${impId}, bidder = ${bidder} and storedBidResponse id = ${id}`);
        continue;
      }
      const bids = (found.bids ??= new Map());
      if (!bids.has(bidder)) bids.set(bidder, []);
      const answer = replaceImpId ? onImp(document, impId) : document;
      bids.get(bidder)!.push({ impId, body: typeof answer === 'string' ? answer : JSON.stringify(answer), replaceImpId });
    }
  }
  return errors.length > 0 ? { errors } : found;
}

/**
 * A stored bid response (an OpenRTB BidResponse) with every bid set to this imp: done before the adapter reads it,
 * since an adapter may check that a bid is for an imp it was offered.
 */
function onImp(document: unknown, impId: string): unknown {
  if (!isJsonObject(document) || !Array.isArray(document.seatbid)) return document;
  return {
    ...document,
    seatbid: document.seatbid.map((seat) =>
      isJsonObject(seat) && Array.isArray(seat.bid) ? { ...seat, bid: seat.bid.map((bid) => (isJsonObject(bid) ? { ...bid, impid: impId } : bid)) } : seat,
    ),
  };
}
