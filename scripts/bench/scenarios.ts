/** The benchmark's auctions: how many bidders and imps, the request sent, and what a correct answer holds. */

export interface Scenario {
  id: string;
  bidders: number;
  imps: number;
}

export const BIDDER_COUNTS = [1, 3, 5] as const;
export const IMP_COUNTS = [1, 5] as const;

export function scenario(bidders: number, imps: number): Scenario {
  return { id: `${bidders}b-${imps}i`, bidders, imps };
}

export const ALL_SCENARIOS: Scenario[] = BIDDER_COUNTS.flatMap((bidders) => IMP_COUNTS.map((imps) => scenario(bidders, imps)));

/** The scenario the worker comparison and the profile use. */
export const REFERENCE_SCENARIO = scenario(3, 1);

export function scenarioLabel(s: Scenario): string {
  return `${s.bidders} bidder${s.bidders === 1 ? '' : 's'} x ${s.imps} imp${s.imps === 1 ? '' : 's'}`;
}

export function bidderNames(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `b${index}`);
}

/**
 * The OpenRTB request, shaped like ../shared/bench/request.mjs (params in `imp.ext.<bidder>`, targeting asked for in
 * `ext.prebid`). The mock bidders answer one bid for imp "1" whatever they are sent, so the imps are numbered from
 * "1": with 5 imps every bidder is offered all five and bids on the first, a valid OpenRTB answer (no bid on the
 * rest) that both Gavel and the floor accept.
 */
export function auctionRequest(s: Scenario): Record<string, unknown> {
  const params = Object.fromEntries(bidderNames(s.bidders).map((name, index) => [name, { placementId: 1000 + index }]));
  const imp = Array.from({ length: s.imps }, (_, index) => ({
    id: String(index + 1),
    banner: { format: [{ w: 300, h: 250 }, { w: 300, h: 600 }] },
    ext: params,
  }));
  return {
    id: 'bench-req',
    tmax: 500,
    cur: ['USD'],
    site: { page: 'https://news.example.com/article', domain: 'news.example.com', publisher: { id: 'pub-1' } },
    device: { ua: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120', ip: '203.0.113.7', w: 1920, h: 1080 },
    user: { id: 'u-1' },
    imp,
    ext: { prebid: { targeting: { pricegranularity: 'med', includewinners: true, includebidderkeys: true } } },
  };
}

type Json = Record<string, any>;

/**
 * Why an auction answer is not the one the scenario should produce (undefined when it is): a 200 with a seat per
 * bidder, each bidding on imp "1", and the winner's targeting set. A server that answers fast but wrong would
 * otherwise look like a good result.
 */
export function answerProblem(s: Scenario, status: number, text: string): string | undefined {
  if (status !== 200) return `status ${status}: ${text.slice(0, 300)}`;
  let answer: Json;
  try {
    answer = JSON.parse(text) as Json;
  } catch {
    return `the body is not JSON: ${text.slice(0, 300)}`;
  }
  const seatbids: Json[] = Array.isArray(answer.seatbid) ? answer.seatbid : [];
  const seats = seatbids.map((seatbid) => seatbid.seat).sort();
  const expected = bidderNames(s.bidders);
  if (seats.join() !== expected.join()) return `expected a seat for each of ${expected.join(', ')}, got [${seats.join(', ')}]: ${text.slice(0, 300)}`;
  const bids: Json[] = seatbids.flatMap((seatbid) => (Array.isArray(seatbid.bid) ? seatbid.bid : []));
  if (bids.some((bid) => bid.impid !== '1')) return `a bid is not for imp "1": ${text.slice(0, 300)}`;
  if (!bids.some((bid) => bid.ext?.prebid?.targeting?.hb_pb !== undefined)) return `no bid carries the winner's targeting (hb_pb): ${text.slice(0, 300)}`;
  return undefined;
}
