import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { RequestData } from '../../core/api/index.js';
import { bootGavel } from '../../core/app/boot.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import { CountingCacheStore } from '../support/counting-cache-store.js';
import { MemoryFetcher } from '../../core/stored/index.js';
import { replacing, testConfig } from '../support/gavel.js';
import { compareExchange, diffJson, listFixtureFiles, type FixtureOutcome } from './fixture-outcome.js';
import { FLOORS_OFF, mockBidderOverrides, type BidderInfoOverride, type MockBidderSpec } from './mock-bidders.js';
import { compareRequests, FIXTURE_CLIENT_IP, type SeenAuction } from './auction-runner.js';
import { Tokens } from '../../core/app/tokens.js';
import type { AuctionPipeline } from '../../core/auction/pipeline.js';

/** Where the fixtures' cache lives: `hb_cache_host` / `hb_cache_path` in their expected targeting. */
export const FIXTURE_CACHE_PUBLIC_URL = 'http://www.pbcserver.com/pbcache/endpoint';

/** A Prebid Server AMP fixture (see ../shared/conformance/README.md, "amp/valid"). */
export interface AmpFixture {
  description?: string;
  /** The query string of GET /openrtb2/amp, without `?`. */
  query: string;
  config?: {
    mockBidders?: MockBidderSpec[];
    /**
     * The endpoint tests' default request. Prebid Server's AMP endpoint is built with it but never merges it (the
     * stored request is the whole request), so it is not read here either.
     */
    aliases?: string;
    disabledAdapters?: string[];
    realParamsValidator?: boolean;
    /**
     * As in the endpoint fixtures: requests must name an account. Prebid Server's AMP tests have no stored accounts
     * (an empty account fetcher), so every named account runs on the defaults; so here.
     */
    accountRequired?: boolean;
    blockedApps?: string[];
    currencyRates?: Record<string, Record<string, number>>;
    bidderInfoOverrides?: Record<string, BidderInfoOverride>;
  };
  /** The stored request the query's `tag_id` names. */
  mockBidRequest: unknown;
  expectedReturnCode?: number;
  expectedErrorMessage?: string;
  expectedAmpResponse?: ExpectedAmpResponse;
  /** The request after the query, stored data, defaults and validation, before it is split: JSON-equal. */
  expectedValidatedBidRequest?: unknown;
  /** Per adapter, the request the mock bidder should receive: JSON-equal. */
  expectedMockBidderRequests?: Record<string, unknown>;
  /** Stored responses by id, for the stored request's `storedbidresponse` / `storedauctionresponse`. */
  mockAmpStoredResponse?: Record<string, unknown>;
}

interface ExpectedAmpResponse {
  targeting?: Record<string, string>;
  errors?: Record<string, Array<{ code?: number; message?: string }>>;
  debug?: unknown;
  /** Prebid Server's newer layout nests errors, warnings and debug here; Gavel puts them at the top level. */
  ortb2?: { ext?: { errors?: ExpectedAmpResponse['errors']; debug?: unknown } };
}

type Json = Record<string, any>;

/** Records what each bidder was sent, by adapter (the last path segment of the mock endpoint): its first call. */
function recordingTransport(inner: BidderTransport, seen: SeenAuction): BidderTransport {
  return {
    async send(call: RequestData, bodyText, options) {
      const adapter = new URL(call.uri).pathname.split('/').pop() ?? '';
      if (!seen.bidderRequests.has(adapter)) {
        try {
          seen.bidderRequests.set(adapter, JSON.parse(bodyText ?? 'null'));
        } catch {
          seen.bidderRequests.set(adapter, { unparseable: bodyText });
        }
      }
      return inner.send(call, bodyText, options);
    },
    close: () => inner.close(),
  };
}

/**
 * The tmax the interface specification gives every AMP auction (AMP section, items 3 and 6: the smaller of the AMP
 * default timeout, 1000 ms, and the `timeout` passed, else the stored request's, less the timeout adjustment), where
 * Prebid Server writes the query's `timeout` as it is (less its host's adjustment, none in its tests), else keeps the
 * stored request's, else writes none. A fixture that expects Prebid Server's tmax, or none, gets the
 * specification's in its expected requests.
 */
function withSpecTmax(fixture: AmpFixture): AmpFixture {
  const query = new URLSearchParams(fixture.query);
  const stored = (fixture.mockBidRequest as Json | undefined)?.tmax;
  const timeout = Number(query.get('timeout') ?? NaN);
  const asked = Number.isFinite(timeout) && timeout > 0 ? timeout : typeof stored === 'number' && stored > 0 ? stored : AMP_DEFAULT_TIMEOUT_MS;
  const tmax = Math.max(1, Math.min(AMP_DEFAULT_TIMEOUT_MS, asked) - Number(query.get('amp_timeout_adjustment_ms') ?? 0));
  // Prebid Server keeps the stored tmax when it stops reading the query at a consent warning (Gavel reads on).
  const prebidServerTmaxes = [Number.isFinite(timeout) && timeout >= 0 ? timeout : undefined, stored];
  const withTmax = (request: unknown) => {
    if (request === null || typeof request !== 'object') return request;
    const expected = (request as Json).tmax;
    return expected === undefined || prebidServerTmaxes.includes(expected) ? { ...(request as Json), tmax } : request;
  };
  const bidders = fixture.expectedMockBidderRequests;
  return {
    ...fixture,
    expectedValidatedBidRequest: withTmax(fixture.expectedValidatedBidRequest),
    ...(bidders && { expectedMockBidderRequests: Object.fromEntries(Object.entries(bidders).map(([name, request]) => [name, withTmax(request)])) }),
  };
}

const AMP_DEFAULT_TIMEOUT_MS = 1000;

/** Errors: the same bidders report errors, with the same codes in the same order. Messages are Gavel's own. */
function compareErrors(expected: ExpectedAmpResponse['errors'], actual: unknown): string[] {
  if (!expected) return [];
  const diffs: string[] = [];
  const got = (typeof actual === 'object' && actual !== null ? actual : {}) as Json;
  for (const [bidder, errors] of Object.entries(expected)) {
    const actualCodes = Array.isArray(got[bidder]) ? (got[bidder] as Json[]).map((error) => error?.code) : [];
    const expectedCodes = errors.map((error) => error.code);
    diffs.push(...diffJson(expectedCodes, actualCodes, `errors.${bidder}[].code`));
  }
  return diffs;
}

/**
 * Compares an AMP answer with a fixture: status and error text; `targeting` exactly; `errors` by bidder and code,
 * `debug` present when expected. Warnings are not compared: the fixtures' only warning is Prebid Server's
 * per-account debug switch, which Gavel lacks. The requests are compared by `compareRequests`, as the auction
 * runner compares them.
 */
export function compareAmp(fixture: AmpFixture, status: number, text: string): string[] {
  const expected = fixture.expectedAmpResponse;
  const { diffs, body: actual } = compareExchange(fixture, status, text, expected !== undefined);
  if (!expected || !actual) return diffs;
  if (typeof actual.errors !== 'object' || actual.errors === null) diffs.push(`errors: expected an object, got ${JSON.stringify(actual.errors)}`);
  if (expected.targeting !== undefined) diffs.push(...diffJson(expected.targeting, actual.targeting, 'targeting'));
  diffs.push(...compareErrors(expected.errors ?? expected.ortb2?.ext?.errors, actual.errors));
  if ((expected.debug ?? expected.ortb2?.ext?.debug) !== undefined && actual.debug === undefined) diffs.push('debug: expected, but the answer has none');
  return diffs;
}

/**
 * Runs one AMP fixture against an in-process Gavel: mock bidders in place of the adapters, the fixture's request
 * stored under its `tag_id`, a cache whose ids count from "0" and whose public address is the fixtures' one.
 */
export async function runAmpFixture(fixture: AmpFixture, name: string): Promise<FixtureOutcome> {
  const config = fixture.config ?? {};
  const bidders: Record<string, unknown> = {};
  for (const disabled of config.disabledAdapters ?? []) bidders[disabled.toLowerCase()] = { enabled: false };
  const tagId = new URLSearchParams(fixture.query).get('tag_id');
  const mocks = mockBidderOverrides(config.mockBidders, { realParamsValidator: config.realParamsValidator, bidderInfoOverrides: config.bidderInfoOverrides });
  const seen: SeenAuction = { bidderRequests: new Map() };
  // As the auction runner's (see auction-runner.ts): Prebid Server's endpoint tests let every bidder through GDPR,
  // do not enforce CCPA, keep the request's tids, and send from a forwarded client address with no User-Agent.
  // Their AMP tests run with the host's GDPR switch on, which is what lets the query's TCF v2 consent into the
  // request; the accounts' switch off stands for their permissions mock that lets every bidder through.
  const app = await bootGavel(testConfig({
    bidders,
    modules: FLOORS_OFF,
    // Prebid Server's answers speak `prebid` when the stored request names no namespace.
    auction: { defaultNamespace: 'prebid', autoGenSourceTid: false, blockedApps: config.blockedApps ?? [] },
    accounts: { required: config.accountRequired === true, defaults: { gdpr: { enabled: false } } },
    ...(config.currencyRates && { currency: { rates: config.currencyRates } }),
    cache: { publicUrl: FIXTURE_CACHE_PUBLIC_URL },
    privacy: { gdpr: { enabled: true }, ccpa: { enforce: false }, trustProxyHeaders: true },
  }), {
    configure(container) {
      mocks.configure(container, recordingTransport(mocks.transport, seen));
      replacing({ cacheStore: new CountingCacheStore(), stored: new MemoryFetcher({ requests: tagId ? { [tagId]: fixture.mockBidRequest } : {}, responses: fixture.mockAmpStoredResponse }) })(container);
    },
  });
  // The request the auction ran on, once validated: what Prebid Server hands its exchange.
  const pipeline = app.container.get<AuctionPipeline>(Tokens.AuctionPipeline);
  const runPipeline = pipeline.run.bind(pipeline);
  pipeline.run = (request, context, uids) => runPipeline(request, context, uids).then((outcome) => {
    if (outcome.kind === 'completed') seen.validated = structuredClone(outcome.request);
    return outcome;
  });
  const server = await app.listen(0, '127.0.0.1');
  try {
    const port = (server.address() as AddressInfo).port;
    const response = await fetch(`http://127.0.0.1:${port}/openrtb2/amp?${fixture.query}`, { headers: { 'user-agent': '', 'x-forwarded-for': FIXTURE_CLIENT_IP } });
    const diffs = [...compareAmp(fixture, response.status, await response.text()), ...compareRequests(withSpecTmax(fixture), seen)];
    return { name, ok: diffs.length === 0, diffs };
  } finally {
    await app.close();
  }
}

/** `npm run conformance -- amp <dir> [<dir>...]` */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  if (args.length === 0) return [{ name: 'amp', ok: false, diffs: ['usage: npm run conformance -- amp <fixture dir> [<fixture dir>...]'] }];
  const outcomes: FixtureOutcome[] = [];
  for (const dir of args) {
    for (const file of listFixtureFiles(dir)) {
      const name = `${basename(dir)}/${basename(file)}`;
      try {
        const fixture = JSON.parse(readFileSync(file, 'utf8')) as AmpFixture;
        outcomes.push(await runAmpFixture(fixture, name));
      } catch (err) {
        outcomes.push({ name, ok: false, diffs: [`runner error: ${(err as Error).stack}`] });
      }
    }
  }
  return outcomes;
}
