import { isJsonObject, undecodableImpOptions, RESERVED_IMP_EXT_KEYS, type BidRequest, type Namespace } from '../api/index.js';
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

/** Tells a bidder name Prebid Server knows (its core bidders and the host's aliases, any case). */
export type KnownBidder = (name: string) => boolean;

/** True when some imp names a stored auction or bid response: most requests do not, and skip all of this. */
export function namesStoredResponses(request: BidRequest, namespace: Namespace): boolean {
  if (!Array.isArray(request.imp)) return false;
  for (const imp of request.imp) {
    const options = isJsonObject(imp) && isJsonObject(imp.ext) ? imp.ext[namespace] : undefined;
    if (isJsonObject(options) && (options.storedauctionresponse !== undefined || options.storedbidresponse !== undefined)) return true;
  }
  return false;
}

function impOptions(imp: BidRequest['imp'][number], namespace: Namespace): { impExt: Json; options: Json } {
  const impExt = isJsonObject(imp.ext) ? imp.ext : {};
  return { impExt, options: isJsonObject(impExt[namespace]) ? (impExt[namespace] as Json) : {} };
}

/**
 * The names a stored bid response is matched against, as Prebid Server's extractStoredResponsesIds lists them:
 * `imp.ext.<ns>.bidder.<name>`, then every member of `imp.ext`.
 */
function candidateBidders(impExt: Json, options: Json): string[] {
  return [...(isJsonObject(options.bidder) ? Object.keys(options.bidder) : []), ...Object.keys(impExt)];
}

/**
 * The imp's bidders when its stored bid responses are checked: `imp.ext.<ns>.bidder`, or, when that is absent, the
 * bidders of `imp.ext` it is promoted from (Prebid Server checks after that promotion).
 */
function impBidders(impExt: Json, options: Json): string[] {
  if (options.bidder !== undefined && options.bidder !== null) return isJsonObject(options.bidder) ? Object.keys(options.bidder) : [];
  return Object.keys(impExt).filter((key) => !RESERVED_IMP_EXT_KEYS.has(key));
}

/**
 * Reads `imp.ext.<ns>.storedauctionresponse {id}` and `imp.ext.<ns>.storedbidresponse [{id, bidder, replaceimpid}]`
 * as Prebid Server's stored_responses package does: an id is required (the first imp without one stops the
 * request); a stored bid response applies to each of the imp's names (its bidders and `imp.ext` members) equal to
 * its bidder ignoring case, the first entry for a name winning. An entry that matches none is left out.
 */
function nameStoredResponses(request: BidRequest, namespace: Namespace): Named | { error: string } {
  const named: Named = { auction: new Map(), bids: new Map() };
  for (let index = 0; index < request.imp.length; index++) {
    const imp = request.imp[index]!;
    const { impExt, options } = impOptions(imp, namespace);
    const auction = options.storedauctionresponse;
    if (auction !== undefined && auction !== null) {
      const id = isJsonObject(auction) ? auction.id : undefined;
      if (typeof id !== 'string' || id === '') return { error: `request.imp[${index}] has ext.${namespace}.storedauctionresponse specified, but "id" field is missing ` };
      named.auction.set(imp.id, id);
    }
    const bidResponses = options.storedbidresponse;
    if (!Array.isArray(bidResponses) || bidResponses.length === 0) continue;
    const candidates = candidateBidders(impExt, options);
    for (const entry of bidResponses) {
      const id = isJsonObject(entry) ? entry.id : undefined;
      const bidder = isJsonObject(entry) ? entry.bidder : undefined;
      if (typeof id !== 'string' || id === '' || typeof bidder !== 'string' || bidder === '') {
        return { error: `request.imp[${index}] has ext.${namespace}.storedbidresponse specified, but "id" or/and "bidder" fields are missing ` };
      }
      const lowerBidder = bidder.toLowerCase();
      for (const name of candidates) {
        let matched = named.bids.get(imp.id);
        if (matched?.has(name) || name.toLowerCase() !== lowerBidder) continue;
        if (!matched) named.bids.set(imp.id, (matched = new Map()));
        matched.set(name, { id, replaceImpId: (entry as Json).replaceimpid !== false });
      }
    }
  }
  return named;
}

/**
 * Prebid Server's checks of each imp against the stored responses found (its validateImpExt), the first failing imp
 * stopping the request: with stored auction responses, every imp must name one; an imp naming stored bid responses
 * must have had one matched for each of its bidders, each a bidder Prebid Server knows (a request's own alias is not
 * one), unless the request names stored responses elsewhere and none matched this imp.
 */
function storedResponsesError(request: BidRequest, namespace: Namespace, named: Named, namedAny: boolean, knownBidder: KnownBidder): string | undefined {
  const mismatch = (impId: string): string => bidResponsesMismatch(impId, namespace);
  for (let index = 0; index < request.imp.length; index++) {
    const imp = request.imp[index]!;
    const { impExt, options } = impOptions(imp, namespace);
    if (named.auction.size > 0 && (options.storedauctionresponse === undefined || options.storedauctionresponse === null)) {
      return `request validation failed. The StoredAuctionResponse.ID field must be completely present with, or completely absent from, all impressions in request. No StoredAuctionResponse data found for request.imp[${index}].ext.${namespace} \n`;
    }
    const listed = Array.isArray(options.storedbidresponse) && options.storedbidresponse.length > 0;
    if (!namedAny) {
      if (listed) return mismatch(imp.id);
      continue;
    }
    const matched = named.bids.get(imp.id);
    if (!matched) continue;
    const bidders = impBidders(impExt, options);
    if (matched.size !== bidders.length) return mismatch(imp.id);
    for (const name of matched.keys()) {
      if (!knownBidder(name)) return `unrecognized bidder "${name}"`;
      if (!bidders.includes(name)) return mismatch(imp.id);
    }
  }
  return undefined;
}

/**
 * The stored responses a request names, fetched from the stored-data backend (`responses/<id>.json`, PostgreSQL
 * rows of kind `response`) in one call: undefined when it names none, the 400 lines when it names them wrongly or
 * names ids the backend does not have. A backend failure is thrown (`StoredFetchError`, a 503).
 *
 * Prebid Server's AMP endpoint reads them the same way but loses what its reading reports (its stored-request
 * loader overwrites those errors with the query's), keeping what it found; only its request validation then
 * speaks. So with `amp`: a stored auction response without an id, or not found, is as if never named (the bidders
 * are called); stored bid responses that cannot all be read leave the imp's bidders unmatched, which validation
 * refuses in its own words.
 */
export async function readStoredResponses(
  request: BidRequest,
  namespace: Namespace,
  fetcher: StoredDataFetcher,
  options?: StoredResponsesReadOptions,
  knownBidder: KnownBidder = () => true,
): Promise<StoredResponsesOutcome> {
  if (!namesStoredResponses(request, namespace)) return undefined;
  // Prebid Server decodes every imp's ext.prebid before anything else: a stored response id of the wrong type is
  // that decoder's error, not a missing id (request validation words it alike for the requests that name none).
  const undecodable = undecodableImpOptions(request.imp, [namespace]);
  if (undecodable !== undefined) return { errors: undecodable };
  const amp = options?.amp === true;
  const named = nameStoredResponses(request, namespace);
  if ('error' in named) return amp ? ampUnread(request, namespace) : { errors: [named.error] };
  const ids = new Set<string>(named.auction.values());
  for (const bidders of named.bids.values()) for (const { id } of bidders.values()) ids.add(id);
  const documents = ids.size > 0 && fetcher.fetchResponses ? await fetcher.fetchResponses([...ids], options) : new Map<string, unknown>();

  const errors: string[] = [];
  const found: StoredResponses = {};
  for (const [impId, id] of named.auction) {
    const document = documents.get(id);
    if (document !== undefined) (found.auction ??= new Map()).set(impId, document);
    else if (!amp) errors.push(`failed to fetch stored auction response for impId = ${impId} and storedAuctionResponse id = ${id}`);
  }
  for (const [impId, bidders] of named.bids) {
    for (const [bidder, { id, replaceImpId }] of bidders) {
      const document = documents.get(id);
      if (document === undefined) {
        const error = amp ? bidResponsesMismatch(impId, namespace) : `failed to fetch stored bid response for impId = ${impId}, bidder = ${bidder} and storedBidResponse id = ${id}`;
        if (!errors.includes(error)) errors.push(error);
        continue;
      }
      const bids = (found.bids ??= new Map());
      if (!bids.has(bidder)) bids.set(bidder, []);
      const answer = replaceImpId ? onImp(document, impId) : document;
      bids.get(bidder)!.push({ impId, body: typeof answer === 'string' ? answer : JSON.stringify(answer), replaceImpId });
    }
  }
  if (errors.length > 0) return { errors };
  const invalid = storedResponsesError(request, namespace, named, ids.size > 0, knownBidder);
  if (invalid !== undefined) return { errors: [invalid] };
  return found.auction || found.bids ? found : undefined;
}

/** How the endpoint reads them: `amp` as Prebid Server's AMP endpoint, see readStoredResponses. */
export interface StoredResponsesReadOptions extends FetchOptions {
  amp?: boolean;
}

function bidResponsesMismatch(impId: string, namespace: Namespace): string {
  return `request validation failed. Stored bid responses are specified for imp ${impId}. Bidders specified in imp.ext should match with bidders specified in imp.ext.${namespace}.storedbidresponse`;
}

/**
 * Prebid Server's AMP validation of a request whose stored responses it could not read: nothing was read, so an
 * imp that names stored bid responses has none for its bidders.
 */
function ampUnread(request: BidRequest, namespace: Namespace): StoredResponsesOutcome {
  const errors: string[] = [];
  for (const imp of request.imp) {
    const bidResponses = impOptions(imp, namespace).options.storedbidresponse;
    if (Array.isArray(bidResponses) && bidResponses.length > 0) errors.push(bidResponsesMismatch(imp.id, namespace));
  }
  return errors.length > 0 ? { errors } : undefined;
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
