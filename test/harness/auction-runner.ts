import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { AddressInfo } from 'node:net';
import { bootGavel } from '../../core/app/boot.js';
import { Tokens } from '../../core/app/tokens.js';
import { encodeAsOpenrtb2Request, isJsonObject, type BidRequest } from '../../core/api/index.js';
import { deepMerge } from '../../core/config/index.js';
import { MalformedStoredData, MemoryFetcher, type StoredDataFetcher } from '../../core/stored/index.js';
import { testConfig } from '../support/gavel.js';
import { compareExchange, diffJson, listFixtureFiles, type FixtureOutcome } from './fixture-outcome.js';
import { checkWithDeviation } from './fixture-deviations.js';
import { FLOORS_OFF, mockBidderOverrides, type BidderInfoOverride, type MockBidderSpec } from './mock-bidders.js';
import type { AuctionPipeline } from '../../core/auction/pipeline.js';
import type { BidderTransport } from '../../core/bidders/transport.js';

/** A Prebid Server endpoint fixture (see ../shared/conformance/README.md). */
export interface AuctionFixture {
  description?: string;
  config?: {
    mockBidders?: MockBidderSpec[];
    aliases?: string;
    disabledAdapters?: string[];
    realParamsValidator?: boolean;
    bidderInfoOverrides?: Record<string, unknown>;
    accountRequired?: boolean;
    blockedApps?: string[];
    currencyRates?: Record<string, Record<string, number>>;
    preferredmediatype?: Record<string, string>;
    /** Gavel's own fixtures: headers sent with the request, beside the runner's own (names in lower case). */
    requestHeaders?: Record<string, string>;
    /** Gavel's own fixtures: stored accounts beside the runner's own, by id. */
    accounts?: Record<string, unknown>;
  };
  /** Gavel's own fixtures: headers the answer must carry (names in lower case, values exact). */
  expectedResponseHeaders?: Record<string, string>;
  mockBidRequest: unknown;
  /** The body as text, for the fixtures whose body is malformed JSON on purpose (see `readFixture`). */
  rawBody?: string;
  /** A few fixtures name their body this way instead. */
  requestPayload?: unknown;
  expectedReturnCode?: number;
  expectedErrorMessage?: string;
  expectedBidResponse?: ExpectedResponse;
  /** The request after stored data, defaults and validation, before it is split: JSON-equal, as Prebid Server compares it. */
  expectedValidatedBidRequest?: unknown;
  /** Per bidder, the request it received: JSON-equal. */
  expectedMockBidderRequests?: Record<string, unknown>;
  /** Stored responses by id, as Prebid Server's endpoint tests serve them (`storedauctionresponse`, `storedbidresponse`). */
  mockAmpStoredResponse?: Record<string, unknown>;
  /**
   * Gavel's own fixtures: the stored requests and stored imps the backend holds, by id, beside the runner's own
   * (a string is the document's text, for one that is not valid JSON).
   */
  mockStoredRequests?: Record<string, unknown>;
  mockStoredImps?: Record<string, unknown>;
}

interface ExpectedBid { id: string; impid?: string; price?: number; ext?: unknown }
interface ExpectedResponse {
  id?: string;
  cur?: string;
  seatbid?: Array<{ seat: string; bid: ExpectedBid[] }>;
  ext?: { warnings?: { general?: Array<{ message: string }> } };
}

type Json = Record<string, any>;

/** The public cache address Prebid Server's fixtures were recorded with. */
export const FIXTURE_CACHE_URL = 'http://www.pbcserver.com/pbcache/endpoint';

/**
 * The client address Prebid Server's endpoint tests send from (Go's httptest default, a documentation address its
 * IP check takes for public): the runner sends it as `X-Forwarded-For`, so `device.ip` is filled as theirs is.
 */
export const FIXTURE_CLIENT_IP = '192.0.2.1';

/** What the runner saw of an auction: the validated request, and each bidder's request by bidder name. */
export interface SeenAuction {
  validated?: unknown;
  bidderRequests: Map<string, unknown>;
}

/** The validated request and the bidders' requests, JSON-equal to what the fixture expects (absent means absent). */
export function compareRequests(fixture: AuctionFixture, seen: SeenAuction): string[] {
  const diffs: string[] = [];
  if (fixture.expectedValidatedBidRequest !== undefined) diffs.push(...diffJson(fixture.expectedValidatedBidRequest, seen.validated, 'validated request'));
  for (const [bidder, expected] of Object.entries(fixture.expectedMockBidderRequests ?? {})) {
    const got = seen.bidderRequests.get(bidder.toLowerCase());
    if (got === undefined) diffs.push(`bidder ${bidder}: was never called`);
    else diffs.push(...diffJson(expected, got, `bidder ${bidder} request`));
  }
  return diffs;
}

/** Compares an auction answer with a fixture's expectations, by the rules of the conformance README. */
export function compareAuction(fixture: AuctionFixture, status: number, text: string): string[] {
  const expected = fixture.expectedBidResponse;
  const { diffs, body: actual } = compareExchange(fixture, status, text, expected !== undefined);
  if (!expected || !actual) return diffs;
  if (expected.id !== undefined && actual.id !== expected.id) diffs.push(`id: expected ${expected.id}, got ${actual.id}`);
  if (expected.cur !== undefined && actual.cur !== expected.cur) diffs.push(`cur: expected ${expected.cur}, got ${actual.cur}`);
  const actualSeats = new Map<string, Json>(((actual.seatbid ?? []) as Json[]).map((seat) => [seat.seat, seat]));
  const expectedSeats = expected.seatbid ?? [];
  if (actualSeats.size !== expectedSeats.length) diffs.push(`seatbid: expected seats ${expectedSeats.map((s) => s.seat)}, got ${[...actualSeats.keys()]}`);
  for (const seat of expectedSeats) {
    const found = actualSeats.get(seat.seat);
    if (!found) {
      diffs.push(`seatbid[${seat.seat}]: missing`);
      continue;
    }
    const bids = new Map<string, Json>(((found.bid ?? []) as Json[]).map((bid) => [bid.id, bid]));
    if (bids.size !== seat.bid.length) diffs.push(`seatbid[${seat.seat}]: expected ${seat.bid.length} bids, got ${bids.size}`);
    for (const bid of seat.bid) {
      const got = bids.get(bid.id);
      if (!got) {
        diffs.push(`seatbid[${seat.seat}].bid[${bid.id}]: missing`);
        continue;
      }
      const where = `seatbid[${seat.seat}].bid[${bid.id}]`;
      if (bid.impid !== undefined && got.impid !== bid.impid) diffs.push(`${where}.impid: expected ${bid.impid}, got ${got.impid}`);
      if (bid.price !== undefined && Math.abs(got.price - bid.price) > 1e-9) diffs.push(`${where}.price: expected ${bid.price}, got ${got.price}`);
      if (bid.ext !== undefined) diffs.push(...diffJson(bid.ext, got.ext, `${where}.ext`));
    }
  }
  const expectedWarnings = expected.ext?.warnings?.general;
  if (expectedWarnings) {
    const actualWarnings = ((actual.ext?.warnings?.general ?? []) as Array<{ message: string }>);
    if (actualWarnings.length !== expectedWarnings.length) diffs.push(`ext.warnings.general: expected ${expectedWarnings.length}, got ${actualWarnings.length}: ${JSON.stringify(actualWarnings)}`);
    expectedWarnings.forEach((warning, i) => {
      if (actualWarnings[i] && !actualWarnings[i]!.message.includes(warning.message)) diffs.push(`ext.warnings.general[${i}]: expected ${JSON.stringify(warning.message)}, got ${JSON.stringify(actualWarnings[i]!.message)}`);
    });
  }
  return diffs;
}

/**
 * The stored data the endpoint fixtures name, as Prebid Server's endpoint tests keep it (our own documents for the
 * ids they use): accounts `valid_acct`, `disabled_acct`, `malformed_acct` (a field of the wrong type) and
 * `alternate_bidder_code_acct` (appnexus may bid as `groupm`, as in Prebid Server's endpoint tests),
 * `default_integration_acct` (a default integration, for the one it writes into requests), and stored imp
 * `7`, whose JSON is malformed; a fixture adds its own (`mockStoredRequests`, `mockStoredImps`, `mockAmpStoredResponse`).
 */
const ENDPOINT_TEST_ACCOUNTS: Readonly<Record<string, unknown>> = {
  valid_acct: { disabled: false },
  disabled_acct: { disabled: true },
  malformed_acct: { disabled: 'invalid type' },
  default_integration_acct: { default_integration: 'account-integration' },
  alternate_bidder_code_acct: { alternatebiddercodes: { enabled: true, bidders: { appnexus: { enabled: true, allowedbiddercodes: ['groupm'] } } } },
};
const endpointAccounts = new MemoryFetcher({ accounts: ENDPOINT_TEST_ACCOUNTS });
/** The stored data a fixture's auction runs on: the runner's own, and the documents the fixture adds. */
function endpointStoredData(fixture: AuctionFixture): StoredDataFetcher {
  const accounts = fixture.config?.accounts ? new MemoryFetcher({ accounts: { ...ENDPOINT_TEST_ACCOUNTS, ...fixture.config.accounts } }) : endpointAccounts;
  const requests = storedDocuments('request', fixture.mockStoredRequests ?? {});
  const imps = storedDocuments('imp', { 7: '{"id": "adUnit1" "ext": {}}', ...fixture.mockStoredImps });
  const responses = new MemoryFetcher({ responses: fixture.mockAmpStoredResponse });
  return {
    fetchRequests: async (ids) => requests(ids),
    fetchImps: async (ids) => imps(ids),
    fetchAccount: (id) => accounts.fetchAccount(id),
    fetchResponses: (ids) => responses.fetchResponses(ids),
  };
}

/** A lookup of documents by id, as a backend parses them: a text that is not valid JSON throws `MalformedStoredData`. */
function storedDocuments(kind: 'request' | 'imp', documents: Record<string, unknown>): (ids: string[]) => Map<string, unknown> {
  return (ids) => {
    const found = new Map<string, unknown>();
    for (const id of ids) {
      if (!Object.hasOwn(documents, id)) continue;
      const document = documents[id];
      if (typeof document !== 'string') found.set(id, structuredClone(document));
      else {
        try {
          found.set(id, JSON.parse(document));
        } catch (err) {
          throw new MalformedStoredData(kind, id, err);
        }
      }
    }
    return found;
  };
}

/**
 * Folders whose fixtures Prebid Server recorded through its real exchange rather than its mock one (their answers
 * carry the account's debug warning and no mock `bidid`): bid validation runs there, so the default mock bid (price 0,
 * no deal) is dropped as Prebid Server drops it, and the answer has no seat.
 */
const REAL_EXCHANGE_FOLDERS: ReadonlySet<string> = new Set(['valid-eids']);

/**
 * A request as Prebid Server's endpoint tests hold it: they write the validated request out of its openrtb2 struct,
 * and their mock adapter sends each bidder the openrtb2 struct it was handed, so members the struct lacks and zero
 * `omitempty` fields are gone from both (`ext` members go as they are).
 */
function asGoHoldsIt(request: unknown): unknown {
  return isJsonObject(request) ? encodeAsOpenrtb2Request(request as unknown as BidRequest) : request;
}

/** Runs one endpoint fixture against an in-process Gavel whose adapters are replaced by mock bidders via DI. */
export async function runAuctionFixture(fixture: AuctionFixture, name: string): Promise<FixtureOutcome> {
  const config = fixture.config ?? {};
  const bidders: Record<string, unknown> = {};
  for (const disabled of config.disabledAdapters ?? []) bidders[disabled.toLowerCase()] = { enabled: false };
  // Prebid Server's fixtures answer in `ext.prebid` when a request names no namespace, and show its cache address.
  const hostConfig = testConfig({
    bidders,
    modules: FLOORS_OFF,
    // Prebid Server's endpoint tests run with auto_gen_source_tid off: their requests keep the tids they have.
    auction: { defaultNamespace: 'prebid', blockedApps: config.blockedApps ?? [], autoGenSourceTid: false },
    cache: { publicUrl: FIXTURE_CACHE_URL },
    accounts: { required: config.accountRequired === true, ...(config.preferredmediatype && { defaults: { debug_allow: true, preferredmediatype: config.preferredmediatype } }) },
    ...(config.currencyRates && { currency: { rates: config.currencyRates } }),
    // Prebid Server's endpoint tests build their auctions with GDPR permissions that let every bidder through (a
    // permissions mock, no vendor list), and with a zero-valued host config that enforces neither CCPA nor LMT
    // (`lmt.enforce` is on only by the host config's defaults, which those tests do not load): enforcement is what
    // the exchange fixtures and test/privacy check. Its test client's address arrives as a forwarded one (see above).
    privacy: { gdpr: { enabled: false }, ccpa: { enforce: false }, lmt: { enforce: false }, trustProxyHeaders: true },
  });
  const overrides = mockBidderOverrides(config.mockBidders, {
    realParamsValidator: config.realParamsValidator,
    realBidValidation: REAL_EXCHANGE_FOLDERS.has(name.split('/')[0]!),
    bidderInfoOverrides: config.bidderInfoOverrides as Record<string, BidderInfoOverride> | undefined,
  });
  const seen: SeenAuction = { bidderRequests: new Map() };
  const recording: BidderTransport = {
    send(call, bodyText, options) {
      seen.bidderRequests.set(new URL(call.uri).pathname.split('/').pop() ?? '', asGoHoldsIt(JSON.parse(bodyText ?? 'null')));
      return overrides.transport.send(call, bodyText, options);
    },
    close: () => overrides.transport.close(),
  };
  const app = await bootGavel(hostConfig, {
    configure: (container) => {
      overrides.configure(container, recording);
      container.rebind(Tokens.StoredData).toConstantValue({ fetcher: endpointStoredData(fixture), close: async () => undefined });
    },
  });
  // The request the auction ran on, once validated: what Prebid Server hands its exchange.
  const pipeline = app.container.get<AuctionPipeline>(Tokens.AuctionPipeline);
  const run = pipeline.run.bind(pipeline);
  pipeline.run = (request, context, uids) => run(request, context, uids).then((outcome) => {
    if (outcome.kind === 'completed') seen.validated = structuredClone(asGoHoldsIt(outcome.request));
    return outcome;
  });
  const server = await app.listen(0, '127.0.0.1');
  try {
    let body = (fixture.mockBidRequest ?? fixture.requestPayload) as Json;
    if (config.aliases && body) body = deepMerge(JSON.parse(config.aliases) as Json, body);
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/openrtb2/auction`, {
      method: 'POST',
      // Prebid Server's test client sends no User-Agent.
      headers: { 'content-type': 'application/json', 'user-agent': '', 'x-forwarded-for': FIXTURE_CLIENT_IP, ...config.requestHeaders },
      body: fixture.rawBody ?? JSON.stringify(body),
    });
    const diffs = [...compareAuction(fixture, response.status, await response.text()), ...compareRequests(fixture, seen)];
    for (const [name, value] of Object.entries(fixture.expectedResponseHeaders ?? {})) {
      const got = response.headers.get(name);
      if (got !== value) diffs.push(`response header ${name}: expected ${JSON.stringify(value)}, got ${JSON.stringify(got)}`);
    }
    return { name, ok: diffs.length === 0, diffs };
  } finally {
    await app.close();
  }
}

/**
 * Reads a fixture file. A few fixtures hold a malformed body on purpose, which makes the file itself malformed JSON:
 * then the text of `mockBidRequest` (its braces balanced, strings skipped) is the raw body, and the rest of the file
 * holds the expectations.
 */
export function readFixture(text: string): AuctionFixture {
  try {
    return JSON.parse(text) as AuctionFixture;
  } catch (err) {
    const key = text.indexOf('"mockBidRequest"');
    const start = key < 0 ? -1 : text.indexOf('{', key);
    const end = start < 0 ? -1 : balancedEnd(text, start);
    if (end < 0) throw err;
    const fixture = JSON.parse(`${text.slice(0, start)}null${text.slice(end)}`) as AuctionFixture;
    fixture.rawBody = text.slice(start, end);
    return fixture;
  }
}

/** The index just past the `}` closing the `{` at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

/** `npm run conformance -- auction <dir> [<dir>...]` */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  const outcomes: FixtureOutcome[] = [];
  for (const dir of args) {
    for (const file of listFixtureFiles(dir)) {
      let fixture: AuctionFixture;
      try {
        fixture = readFixture(readFileSync(file, 'utf8'));
      } catch (err) {
        outcomes.push({ name: file, ok: false, diffs: [`unreadable fixture: ${(err as Error).message}`] });
        continue;
      }
      try {
        const label = `${basename(dir)}/${basename(file)}`;
        outcomes.push(await checkWithDeviation(label, fixture, (edited) => runAuctionFixture(edited, label)));
      } catch (err) {
        outcomes.push({ name: file, ok: false, diffs: [`runner error: ${(err as Error).stack}`] });
      }
    }
  }
  return outcomes;
}
