import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { RequestData } from '../../core/api/index.js';
import { bootGavel } from '../../core/app/boot.js';
import type { BidderTransport } from '../../core/bidders/transport.js';
import { CountingCacheStore } from '../support/counting-cache-store.js';
import { deepMerge } from '../../core/config/index.js';
import { MemoryFetcher } from '../../core/stored/index.js';
import { replacing, testConfig } from '../support/gavel.js';
import { compareExchange, diffJson, listFixtureFiles, type FixtureOutcome } from './fixture-outcome.js';
import { FLOORS_OFF, mockBidderOverrides, type MockBidderSpec } from './mock-bidders.js';

/** Where the fixtures' cache lives: `hb_cache_host` / `hb_cache_path` in their expected targeting. */
export const FIXTURE_CACHE_PUBLIC_URL = 'http://www.pbcserver.com/pbcache/endpoint';

/** A Prebid Server AMP fixture (see ../shared/conformance/README.md, "amp/valid"). */
export interface AmpFixture {
  description?: string;
  /** The query string of GET /openrtb2/amp, without `?`. */
  query: string;
  config?: {
    mockBidders?: MockBidderSpec[];
    aliases?: string;
    disabledAdapters?: string[];
    realParamsValidator?: boolean;
  };
  /** The stored request the query's `tag_id` names. */
  mockBidRequest: unknown;
  expectedReturnCode?: number;
  expectedErrorMessage?: string;
  expectedAmpResponse?: ExpectedAmpResponse;
  /** Per adapter, the request the mock bidder should receive; compared loosely (LOOSE_BIDDER_REQUEST_FIELDS). */
  expectedMockBidderRequests?: Record<string, unknown>;
}

interface ExpectedAmpResponse {
  targeting?: Record<string, string>;
  errors?: Record<string, Array<{ code?: number; message?: string }>>;
  debug?: unknown;
  /** Prebid Server's newer layout nests errors, warnings and debug here; Gavel puts them at the top level. */
  ortb2?: { ext?: { errors?: ExpectedAmpResponse['errors']; debug?: unknown } };
}

type Json = Record<string, any>;

/** Each bidder call the mock transport saw, by adapter (the last path segment of the mock endpoint). */
type SeenBidderRequests = Map<string, Json[]>;

/** Wraps the mock transport so the runner sees what each bidder was sent. */
function recordingTransport(inner: BidderTransport, seen: SeenBidderRequests): BidderTransport {
  return {
    async send(call: RequestData, bodyText, options) {
      const adapter = new URL(call.uri).pathname.split('/').pop() ?? '';
      try {
        seen.set(adapter, [...(seen.get(adapter) ?? []), JSON.parse(bodyText ?? 'null') as Json]);
      } catch {
        seen.set(adapter, [...(seen.get(adapter) ?? []), { unparseable: bodyText }]);
      }
      return inner.send(call, bodyText, options);
    },
    close: () => inner.close(),
  };
}

/**
 * The fields of a bidder request that an AMP fixture's expectation is checked on: the ones the AMP endpoint itself
 * sets. The rest of Prebid Server's expected bidder request (device.ip filled from the connection, OpenRTB 2.6
 * down-conversion, ...) belongs to other parts of the server.
 */
const LOOSE_BIDDER_REQUEST_FIELDS: ReadonlyArray<(request: Json) => unknown> = [
  (request) => request?.site?.page,
  (request) => request?.site?.ext?.amp,
  (request) => (request?.imp as Json[] | undefined)?.map((imp) => imp?.id),
  (request) => (request?.imp as Json[] | undefined)?.map((imp) => imp?.secure),
  (request) => (request?.imp as Json[] | undefined)?.map((imp) => imp?.banner?.format),
];
const LOOSE_FIELD_NAMES = ['site.page', 'site.ext.amp', 'imp[].id', 'imp[].secure', 'imp[].banner.format'];

function compareBidderRequests(expected: Record<string, unknown>, seen: SeenBidderRequests): string[] {
  const diffs: string[] = [];
  for (const [adapter, expectedRequest] of Object.entries(expected)) {
    const got = seen.get(adapter.toLowerCase());
    if (!got || got.length === 0) {
      diffs.push(`bidder ${adapter}: was never called`);
      continue;
    }
    LOOSE_BIDDER_REQUEST_FIELDS.forEach((field, i) => {
      const want = field(expectedRequest as Json);
      if (want !== undefined) diffs.push(...diffJson(want, field(got[0]!), `bidder ${adapter} ${LOOSE_FIELD_NAMES[i]}`));
    });
  }
  return diffs;
}

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
 * Compares an AMP answer with a fixture: status and error text; `targeting` exactly; the rest loosely (`errors` by
 * bidder and code, `debug` present when expected, bidder requests on the fields the AMP endpoint sets). Warnings
 * are not compared: the fixtures' only warning is Prebid Server's per-account debug switch, which Gavel lacks.
 */
export function compareAmp(fixture: AmpFixture, status: number, text: string, seen: SeenBidderRequests): string[] {
  const expected = fixture.expectedAmpResponse;
  const { diffs, body: actual } = compareExchange(fixture, status, text, expected !== undefined);
  if (!expected || !actual) return diffs;
  if (typeof actual.errors !== 'object' || actual.errors === null) diffs.push(`errors: expected an object, got ${JSON.stringify(actual.errors)}`);
  if (expected.targeting !== undefined) diffs.push(...diffJson(expected.targeting, actual.targeting, 'targeting'));
  diffs.push(...compareErrors(expected.errors ?? expected.ortb2?.ext?.errors, actual.errors));
  if ((expected.debug ?? expected.ortb2?.ext?.debug) !== undefined && actual.debug === undefined) diffs.push('debug: expected, but the answer has none');
  if (fixture.expectedMockBidderRequests) diffs.push(...compareBidderRequests(fixture.expectedMockBidderRequests, seen));
  return diffs;
}

function storedRequestOf(fixture: AmpFixture): unknown {
  const aliases = fixture.config?.aliases;
  if (!aliases) return fixture.mockBidRequest;
  return deepMerge(JSON.parse(aliases) as Json, fixture.mockBidRequest as Json);
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
  const mocks = mockBidderOverrides(config.mockBidders, { realParamsValidator: config.realParamsValidator });
  const seen: SeenBidderRequests = new Map();
  // GDPR permissions let every bidder through, as in Prebid Server's endpoint tests (see auction-runner.ts).
  const app = await bootGavel(testConfig({ bidders, modules: FLOORS_OFF, cache: { publicUrl: FIXTURE_CACHE_PUBLIC_URL }, privacy: { gdpr: { enabled: false } } }), {
    configure(container) {
      mocks.configure(container, recordingTransport(mocks.transport, seen));
      replacing({ cacheStore: new CountingCacheStore(), stored: new MemoryFetcher({ requests: tagId ? { [tagId]: storedRequestOf(fixture) } : {} }) })(container);
    },
  });
  const server = await app.listen(0, '127.0.0.1');
  try {
    const port = (server.address() as AddressInfo).port;
    const response = await fetch(`http://127.0.0.1:${port}/openrtb2/amp?${fixture.query}`);
    const diffs = compareAmp(fixture, response.status, await response.text(), seen);
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
