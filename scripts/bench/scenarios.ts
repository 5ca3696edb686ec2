/** The benchmark's auctions: how many bidders and imps, the request sent, and what a correct answer holds. */

import { tcfConsentString } from './tcf-string.js';

/**
 * `bare`: targeting only, the request ../shared/bench/request.mjs writes. `production`: what a production page sends
 * besides (see productionRequest).
 */
export type Shape = 'bare' | 'production';

/** The parts of the production request that can be left out one at a time, to price each. */
export const PIECES = ['cache', 'privacy', 'floors', 'eids', 'schain'] as const;
export type Piece = (typeof PIECES)[number];

export interface Scenario {
  id: string;
  bidders: number;
  imps: number;
  shape: Shape;
  /** The production request without this piece. */
  without?: Piece;
}

export const BIDDER_COUNTS = [1, 3, 5] as const;
export const IMP_COUNTS = [1, 5] as const;

export function scenario(bidders: number, imps: number, shape: Shape = 'bare', without?: Piece): Scenario {
  const id = `${shape === 'production' ? 'prod-' : ''}${bidders}b-${imps}i${without ? `-no-${without}` : ''}`;
  return without ? { id, bidders, imps, shape, without } : { id, bidders, imps, shape };
}

/** `3b-1i`, `prod-3b-1i`, `prod-3b-1i-no-cache`; undefined for anything else. */
export function parseScenarioId(id: string): Scenario | undefined {
  const match = id.trim().match(/^(prod-)?(\d+)b-(\d+)i(?:-no-([a-z]+))?$/);
  if (!match) return undefined;
  const [, prod, bidders, imps, without] = match;
  if (Number(bidders) < 1 || Number(bidders) > 5 || Number(imps) < 1) return undefined;
  if (without !== undefined && (!prod || !(PIECES as readonly string[]).includes(without))) return undefined;
  return scenario(Number(bidders), Number(imps), prod ? 'production' : 'bare', without as Piece | undefined);
}

/** The production-shaped scenarios, the default in the report: 1, 3 and 5 bidders on one (video) imp. */
export const PRODUCTION_SCENARIOS: Scenario[] = BIDDER_COUNTS.map((bidders) => scenario(bidders, 1, 'production'));

export const BARE_SCENARIOS: Scenario[] = BIDDER_COUNTS.flatMap((bidders) => IMP_COUNTS.map((imps) => scenario(bidders, imps)));

/** The production request at 3 bidders without each piece in turn: what each piece costs. */
export const PIECE_SCENARIOS: Scenario[] = PIECES.map((piece) => scenario(3, 1, 'production', piece));

export const ALL_SCENARIOS: Scenario[] = [...PRODUCTION_SCENARIOS, ...BARE_SCENARIOS, ...PIECE_SCENARIOS];

/** The scenario the worker comparison and the profile use. */
export const REFERENCE_SCENARIO = scenario(3, 1, 'production');

export function scenarioLabel(s: Scenario): string {
  const shape = s.shape === 'production' ? `production${s.without ? ` without ${s.without}` : ''}, ` : '';
  return `${shape}${s.bidders} bidder${s.bidders === 1 ? '' : 's'} x ${s.imps} imp${s.imps === 1 ? '' : 's'}`;
}

/**
 * GVL vendor ids the benchmark gives bidders b0..b4 (in the host config when it has a key for them, see
 * servers.ts) and consents to in the production request's TCF string.
 */
export const BENCH_GVL_IDS = [32, 52, 69, 76, 10] as const;

/** Purposes 1-10 consented, every benchmark vendor consented: enforcement lets each bidder bid with the full request. */
export const BENCH_TCF_CONSENT = tcfConsentString({
  purposes: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  vendors: [...BENCH_GVL_IDS],
  createdAt: Date.UTC(2026, 0, 1),
  vendorListVersion: 100,
});

/** The embedded memory store's cap in the benchmark's config (the default): RSS may be 150 MB plus this. */
export const BENCH_CACHE_CAP_MB = 64;

/** Every bid clears it: the mocks bid 0.42 to 2.05 USD. */
export const BENCH_FLOOR_USD = 0.3;

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
  return s.shape === 'production' ? productionRequest(s) : bareRequest(s);
}

function bareRequest(s: Scenario): Record<string, unknown> {
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

/**
 * What a production page sends beside targeting: imp "1" is an instream video imp (the mocks bid on it, so its bids
 * are video and their VAST is cached too), further imps are banner; `ext.prebid.cache` asks for `bids` and
 * `vastxml`; `gdpr: 1` with a TCF v2 string allowing purposes 1-10 and every bench vendor, and `us_privacy`; floor
 * rules (`ext.prebid.floors`, and `imp.bidfloor` as Prebid.js sets it) that every bid clears; two eids; an schain.
 * `s.without` leaves one piece out.
 */
function productionRequest(s: Scenario): Record<string, unknown> {
  const request = bareRequest(s) as Json;
  const video = { mimes: ['video/mp4', 'application/javascript'], protocols: [2, 3, 5, 6], w: 300, h: 250, minduration: 5, maxduration: 30, linearity: 1, plcmt: 1, placement: 1, playbackmethod: [2], startdelay: 0 };
  request.imp = (request.imp as Json[]).map((imp, index) => {
    const shaped: Json = index === 0 ? { id: imp.id, video, ext: imp.ext } : { ...imp };
    if (s.without !== 'floors') {
      shaped.bidfloor = BENCH_FLOOR_USD;
      shaped.bidfloorcur = 'USD';
    }
    return shaped;
  });
  const prebid = request.ext.prebid as Json;
  if (s.without !== 'cache') prebid.cache = { bids: {}, vastxml: {} };
  if (s.without !== 'floors') {
    prebid.floors = {
      enabled: true,
      floormin: 0.1,
      floormincur: 'USD',
      data: {
        currency: 'USD',
        floorsschemaversion: 2,
        modelgroups: [
          {
            modelversion: 'bench-1',
            schema: { fields: ['mediaType', 'size'], delimiter: '|' },
            values: { 'video|300x250': BENCH_FLOOR_USD, 'banner|300x250': BENCH_FLOOR_USD, '*|*': 0.2 },
            default: 0.2,
          },
        ],
      },
    };
  }
  const user = request.user as Json;
  if (s.without !== 'privacy') {
    user.consent = BENCH_TCF_CONSENT;
    request.regs = { gdpr: 1, us_privacy: '1YNN' };
  }
  if (s.without !== 'eids') {
    user.eids = [
      { source: 'pubcid.org', uids: [{ id: '4b6e5a1f-7c2d-4e8a-9f3b-0d1c2e3f4a5b', atype: 1 }] },
      { source: 'adserver.org', uids: [{ id: 'b2c1d0e9-f8a7-4b6c-8d5e-4f3a2b1c0d9e', atype: 1, ext: { rtiPartner: 'TDID' } }] },
    ];
  }
  request.source = { tid: 'bench-tid' };
  if (s.without !== 'schain') {
    (request.source as Json).schain = { complete: 1, ver: '1.0', nodes: [{ asi: 'news.example.com', sid: 'pub-1', hp: 1, rid: 'bench-req' }] };
  }
  return request;
}

type Json = Record<string, any>;

/**
 * Why an auction answer is not the one the scenario should produce (undefined when it is): a 200 with a seat per
 * bidder, each bidding on imp "1", and the winner's targeting set. A server that answers fast but wrong would
 * otherwise look like a good result.
 */
export function answerProblem(s: Scenario, status: number, text: string, server: 'gavel' | 'floor' = 'floor'): string | undefined {
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
  const winner = bids.find((bid) => bid.ext?.prebid?.targeting?.hb_pb !== undefined);
  if (!winner) return `no bid carries the winner's targeting (hb_pb): ${text.slice(0, 300)}`;
  // The floor does none of the production request's extra work; Gavel must have done it.
  if (server === 'gavel' && s.shape === 'production') {
    // Warning 10002 ("debug turned off for account") is on every answer of an account without debug_allow.
    const messages = [answer.ext?.errors, answer.ext?.warnings].flatMap((byKey: Json | undefined) => Object.values(byKey ?? {}).flat() as Json[]);
    const unexpected = messages.filter((message) => message?.code !== 10002);
    if (unexpected.length > 0) return `the answer carries errors or warnings: ${JSON.stringify(unexpected).slice(0, 300)}`;
    if (s.without !== 'cache') {
      const targeting = winner.ext.prebid.targeting as Json;
      if (typeof targeting.hb_cache_id !== 'string' || typeof targeting.hb_uuid !== 'string') return `the winner was not cached (hb_cache_id and hb_uuid): ${JSON.stringify(targeting)}`;
      const keyed = bids.filter((bid) => Object.keys(bid.ext?.prebid?.targeting ?? {}).some((key) => key.startsWith('hb_cache_id_'))).length;
      if (keyed !== s.bidders) return `expected every bidder's bid cached (hb_cache_id_<bidder>), got ${keyed} of ${s.bidders}`;
    }
  }
  return undefined;
}
