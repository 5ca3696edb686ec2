/**
 * Adapter fixture runner: checks a bidder adapter against JSON fixtures in Prebid Server's adapter fixture format
 * (`mockBidRequest`, `httpCalls`, `expectedBidResponses`, `expectedMakeRequestsErrors`, `expectedMakeBidsErrors`).
 *
 *   npm run conformance -- adapter <bidder> <dir>
 *
 * What one fixture checks:
 * - makeRequests on `mockBidRequest` produces exactly the `httpCalls[].expectedRequest`s, matched regardless of
 *   order: `uri` exact, `method` when listed, `body` JSON-equal (key order ignored, array order significant; a
 *   fixture without `body` expects none), `headers` when listed (names case-insensitive), `impIDs` as a set.
 * - makeRequests errors equal `expectedMakeRequestsErrors`, in order (`literal` | `regex` | `startswith`). Prebid
 *   Server's adapters return warnings (`errortypes.Warning`) among their errors, and its fixtures list them there:
 *   an adapter's `warnings` are compared with the expected errors too, ahead of its errors.
 * - each `mockResponse` fed to makeBids gives, across all calls and in order, `expectedBidResponses`: `currency`
 *   when listed, each bid's `bid` JSON-equal, `type` exact, `seat` exact (an absent seat means the bidder's name on
 *   both sides), `video` and `dealPriority` when listed, and `fledgeauctionconfigs` (Protected Audience configs) as
 *   a set, as Prebid Server's harness compares them (its adapters read them from a Go map, in no set order): each
 *   `{impid, bidder, config}` JSON-equal to one the adapter returned as `{impId, adapter, config}`, none left over
 *   on either side. A makeBids result with neither bids nor configs is a no-bid, so empty responses on either side
 *   are left out of that list (Prebid Server returns nothing for a 204, our SDK an empty result: both mean the
 *   same).
 * - makeBids errors (warnings first, as for makeRequests), collected across calls, equal `expectedMakeBidsErrors`, in
 *   order.
 * - the adapter left `mockBidRequest` untouched, and never threw.
 *
 * Prebid Server decodes fixtures with Go's case-insensitive field matching (some fixtures say `httpcalls`), so the
 * fixture's own field names are looked up ignoring case; the OpenRTB data inside them is compared exactly.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative, resolve, sep } from 'node:path';
import type {
  AdapterManifest,
  BidRequest,
  Bidder,
  BidderError,
  FledgeAuctionConfig,
  HostInfo,
  MakeBidsResult,
  PluginLogger,
  RequestData,
  RequestInfo,
  ResponseData,
  TypedBid,
} from '../../core/api/index.js';
import { RateTable, readRateMap, strictConversion } from '../../core/currency/index.js';
import { diffJson, listFixtureFiles, type FixtureOutcome } from './fixture-outcome.js';

type JsonObject = Record<string, unknown>;

interface ExpectedError {
  value: string;
  comparison: string;
}

interface HttpCall {
  expectedRequest: JsonObject;
  mockResponse: JsonObject;
}

const silentLogger: PluginLogger = { debug() {}, info() {}, warn() {}, error() {} };

// ---------------------------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------------------------

/** CLI entry: `adapter <bidder> <dir>`. */
export async function run(args: string[]): Promise<FixtureOutcome[]> {
  const [bidderName, dir] = args;
  if (!bidderName || !dir) {
    return [{ name: 'adapter runner', ok: false, diffs: ['usage: conformance adapter <bidder> <fixture dir>'] }];
  }
  return runAdapterFixtureDir(bidderName, dir);
}

/**
 * The test host an adapter's fixtures are recorded under, its own and Prebid Server's alike, when it differs from
 * what the adapter ships: Prebid Server's adapter tests build each bidder with a test endpoint, `extra_info` and
 * server facts. An adapter states them in `test/host-config.json`
 * (`{"endpoint", "extra", "host": {"externalUrl", "gvlId", "datacenter", "version"}}`), which the registry checks,
 * the adapter's own tests and `npm run conformance -- adapter` apply. Host facts not stated are those of Prebid
 * Server's tests: external URL `http://hosturl.com`, and no GVL id, data centre or version.
 */
export interface FixtureHost {
  endpoint?: string;
  extra?: Record<string, unknown>;
  host?: Partial<HostInfo>;
  /** The time the adapter's clock stands at in every fixture (ISO 8601), when its fixtures depend on the clock. */
  clock?: string;
  /**
   * The number every random draw gives (`deps.randomInt63`; a decimal string or a safe integer), when the adapter's
   * fixtures depend on one: Prebid Server's tests give some adapters a fake generator that always returns it.
   */
  randomInt63?: string | number;
  /**
   * Origins the adapter calls on its own whatever the configured endpoint (Equativ's programmatic-guaranteed host,
   * as Prebid Server's adapter has it): the registry's SSRF check lets calls reach these and no other.
   */
  fixedHosts?: string[];
}

/** Loads the compiled adapter `dist/adapters/<bidderName>/index.js` and runs every fixture below `dir`. */
export async function runAdapterFixtureDir(bidderName: string, dir: string): Promise<FixtureOutcome[]> {
  let manifest: AdapterManifest;
  let host: FixtureHost | undefined;
  try {
    manifest = await loadAdapterManifest(bidderName);
    host = readTestHost(bidderName);
  } catch (err) {
    return [{ name: bidderName, ok: false, diffs: [`cannot load adapter "${bidderName}": ${errorText(err)}`] }];
  }
  return runFixturesWith(manifest, dir, host);
}

/** The adapter's `test/host-config.json` (read from the compiled tree, where the build copies it), if it has one. */
export function readTestHost(bidderName: string): FixtureHost | undefined {
  const file = new URL(`../../adapters/${bidderName}/test/host-config.json`, import.meta.url);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as FixtureHost) : undefined;
}

/** Runs every `.json` fixture below `dir` against an adapter manifest already in hand. */
export function runFixturesWith(manifest: AdapterManifest, dir: string, host?: FixtureHost): FixtureOutcome[] {
  const root = resolve(dir);
  let files: string[];
  try {
    files = listFixtureFiles(root);
  } catch (err) {
    return [{ name: dir, ok: false, diffs: [`cannot read fixture folder: ${errorText(err)}`] }];
  }
  if (files.length === 0) return [{ name: dir, ok: false, diffs: ['no .json fixtures found'] }];
  return files.map((file) => {
    const name = relative(root, file);
    let fixture: unknown;
    try {
      fixture = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      return { name, ok: false, diffs: [`unreadable fixture: ${errorText(err)}`] };
    }
    return runAdapterFixture(manifest, fixture, name, host, entryPointOf(root, name));
  });
}

/**
 * The endpoint a fixture's auction came in on, by its folder, as Prebid Server's adapter tests run their folders:
 * `amp` as an AMP auction, `video` and `videosupplemental` as a video endpoint auction, the rest as an auction.
 */
function entryPointOf(root: string, name: string): RequestInfo['endpoint'] {
  const folders = [basename(root), ...name.split(sep).slice(0, -1)];
  if (folders.some((folder) => folder === 'video' || folder === 'videosupplemental')) return 'video';
  return folders.includes('amp') ? 'amp' : 'auction';
}

/**
 * The compiled adapter's manifest, ready to create a bidder. An alias manifest (`info.aliasOf`, no code of its own)
 * borrows its target's `create`, keeping its own name and, when it states one, its own endpoint.
 */
export async function loadAdapterManifest(bidderName: string): Promise<AdapterManifest> {
  const manifest = await importManifest(bidderName);
  if (typeof manifest.create === 'function') return manifest;
  const target = manifest.info.aliasOf;
  if (!target) throw new Error(`adapter "${bidderName}" has neither create() nor info.aliasOf`);
  const original = await importManifest(target);
  if (typeof original.create !== 'function') throw new Error(`"${bidderName}" aliases "${target}", which has no create()`);
  return { ...manifest, create: original.create, info: { ...original.info, ...manifest.info, endpoint: manifest.info.endpoint ?? original.info.endpoint } };
}

async function importManifest(bidderName: string): Promise<AdapterManifest> {
  if (!/^[A-Za-z0-9_-]+$/.test(bidderName)) throw new Error('bidder names are letters, digits, "_" and "-"');
  // This file runs from dist/test/harness/, the adapters from dist/adapters/.
  const url = new URL(`../../adapters/${bidderName}/index.js`, import.meta.url);
  const loaded = (await import(url.href)) as { default?: AdapterManifest };
  const manifest = loaded.default;
  if (!manifest || manifest.kind !== 'adapter' || typeof manifest.info !== 'object' || manifest.info === null) {
    throw new Error(`${url.pathname} has no defineAdapter(...) default export`);
  }
  return manifest;
}

/** Checks one parsed fixture against an adapter. Never throws: every problem becomes a diff line. */
export function runAdapterFixture(manifest: AdapterManifest, fixture: unknown, name: string, host?: FixtureHost, entryPoint: RequestInfo['endpoint'] = 'auction'): FixtureOutcome {
  const diffs: string[] = [];
  try {
    checkFixture(manifest, asObject(fixture, 'fixture'), diffs, host, entryPoint);
  } catch (err) {
    diffs.push(errorText(err));
  }
  return { name, ok: diffs.length === 0, diffs };
}

// ---------------------------------------------------------------------------------------------------------------
// One fixture
// ---------------------------------------------------------------------------------------------------------------

function checkFixture(manifest: AdapterManifest, fixture: JsonObject, diffs: string[], host: FixtureHost = {}, entryPoint: RequestInfo['endpoint'] = 'auction'): void {
  const request = asObject(field(fixture, 'mockBidRequest'), 'mockBidRequest') as BidRequest;
  const calls = asArray(field(fixture, 'httpCalls') ?? [], 'httpCalls').map((call, i) => readHttpCall(call, i));
  const pristine = structuredClone(request);
  const bidderName = manifest.name;
  if (typeof manifest.create !== 'function') throw new Error(`adapter "${bidderName}" has no create(); load aliases with loadAdapterManifest`);

  const create = manifest.create;
  const config = {
    name: bidderName,
    endpoint: host.endpoint ?? manifest.info.endpoint ?? '',
    extra: host.extra ?? {},
    ortbVersion: manifest.info.ortbVersion ?? '2.5',
    host: { externalUrl: 'http://hosturl.com', ...host.host },
  };
  const pinned = host.clock === undefined ? undefined : Date.parse(host.clock);
  const now = pinned === undefined ? Date.now : () => pinned;
  const pinnedRandom = host.randomInt63 === undefined ? undefined : BigInt(host.randomInt63);
  const randomInt63 = pinnedRandom === undefined ? undefined : () => pinnedRandom;
  const bidder = guard('create', () => create(config, { logger: silentLogger, now, randomInt63 }), diffs);
  if (!bidder) return;

  const made = guard('makeRequests', () => bidder.makeRequests(request, { bidder: bidderName, endpoint: entryPoint, convertCurrency: requestRates(request) }), diffs);
  const produced = made?.requests ?? [];
  diffs.push(...diffErrors('makeRequests', readExpectedErrors(fixture, 'expectedMakeRequestsErrors'), [...(made?.warnings ?? []), ...(made?.errors ?? [])]));

  const matched = matchRequests(calls, produced, diffs);
  const { responses, errors } = collectBids(bidder, request, calls, matched, diffs);
  diffs.push(...diffBidResponses(readExpectedResponses(fixture), responses, bidderName));
  diffs.push(...diffErrors('makeBids', readExpectedErrors(fixture, 'expectedMakeBidsErrors'), errors));

  diffs.push(...diffJson(pristine, request, 'mockBidRequest').map((line) => `the adapter mutated its input: ${line}`));
}

/**
 * Prebid Server's adapter fixtures convert currency with the rates the request itself carries
 * (`ext.prebid.currency.rates`), and with none when it carries none: then only same-currency "conversions" succeed.
 */
function requestRates(request: BidRequest): (amount: number, from: string, to: string) => number {
  const prebid = request.ext?.prebid as { currency?: { rates?: unknown } } | undefined;
  const table = new RateTable(readRateMap(prebid?.currency?.rates ?? {}).rates);
  return strictConversion((amount, from, to) => {
    const rate = table.rate(from, to);
    return rate === undefined ? undefined : amount * rate;
  });
}

/** Calls into the adapter; a throw is a failure of its own (adapters return errors, they never throw). */
function guard<T>(what: string, call: () => T, diffs: string[]): T | undefined {
  try {
    return call();
  } catch (err) {
    diffs.push(`${what} threw: ${errorText(err)}`);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------

/**
 * Pairs each expected request with a produced one that matches it exactly. A produced request matching several
 * expectations is identical for all of them, so taking the first free exact match never blocks a better pairing.
 */
function matchRequests(calls: HttpCall[], produced: RequestData[], diffs: string[]): Array<RequestData | undefined> {
  if (produced.length !== calls.length) {
    diffs.push(`makeRequests: expected ${calls.length} HTTP calls, got ${produced.length}${describeUris(produced)}`);
  }
  const free = new Set(produced.map((_, i) => i));
  return calls.map((call, callIndex) => {
    let closest: { index: number; diffs: string[] } | undefined;
    for (const index of free) {
      const found = diffRequest(call.expectedRequest, produced[index]!);
      if (found.length === 0) {
        free.delete(index);
        return produced[index];
      }
      if (!closest || found.length < closest.diffs.length) closest = { index, diffs: found };
    }
    if (closest) {
      diffs.push(`httpCalls[${callIndex}]: no produced request matches; closest is request #${closest.index}:`);
      diffs.push(...closest.diffs.map((line) => `  ${line}`));
    } else {
      diffs.push(`httpCalls[${callIndex}]: no produced request left for ${String(field(call.expectedRequest, 'uri'))}`);
    }
    return undefined;
  });
}

function diffRequest(expected: JsonObject, actual: RequestData): string[] {
  const diffs: string[] = [];
  const uri = field(expected, 'uri');
  if (uri !== actual.uri) diffs.push(`uri: expected ${JSON.stringify(uri)}, got ${JSON.stringify(actual.uri)}`);

  const method = field(expected, 'method');
  if (method !== undefined && method !== actual.method) diffs.push(`method: expected ${String(method)}, got ${actual.method}`);

  diffs.push(...diffJson(field(expected, 'body'), wireBody(actual.body), 'body'));

  const headers = field(expected, 'headers');
  if (headers !== undefined) diffs.push(...diffJson(normaliseHeaders(headers), normaliseHeaders(actual.headers ?? {}), 'headers'));

  const impIds = field(expected, 'impIDs');
  if (impIds !== undefined) {
    const want = [...new Set(asArray(impIds, 'impIDs').map(String))].sort();
    const got = [...new Set(actual.impIds ?? [])].sort();
    if (want.join('\u0000') !== got.join('\u0000')) diffs.push(`impIDs: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  return diffs;
}

/** The body as the bidder will see it: the core sends JSON.stringify of a value, or a ready string as is. */
function wireBody(body: unknown): unknown {
  if (body === undefined) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Header names lowercased; values as lists (Prebid Server fixtures write Go's `{"Name": ["value"]}`). */
function normaliseHeaders(headers: unknown): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(asObject(headers, 'headers'))) {
    result[name.toLowerCase()] = Array.isArray(value) ? value.map(String) : [String(value)];
  }
  return result;
}

function describeUris(requests: RequestData[]): string {
  return requests.length === 0 ? '' : ` (${requests.map((r) => r.uri).join(', ')})`;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses and bids
// ---------------------------------------------------------------------------------------------------------------

function collectBids(
  bidder: Bidder,
  request: BidRequest,
  calls: HttpCall[],
  matched: Array<RequestData | undefined>,
  diffs: string[],
): { responses: MakeBidsResult[]; errors: BidderError[] } {
  const responses: MakeBidsResult[] = [];
  const errors: BidderError[] = [];
  calls.forEach((call, i) => {
    // Without a matching produced request, the fixture's own request stands in, so bid parsing is still checked.
    const sent = matched[i] ?? requestFromFixture(call.expectedRequest);
    const result = guard(`makeBids for httpCalls[${i}]`, () => bidder.makeBids(request, sent, toResponseData(call.mockResponse)), diffs);
    if (!result) return;
    errors.push(...(result.warnings ?? []), ...(result.errors ?? []));
    if (result.bids.length > 0 || (result.fledgeAuctionConfigs?.length ?? 0) > 0) responses.push(result);
  });
  return { responses, errors };
}

function requestFromFixture(expected: JsonObject): RequestData {
  const method = field(expected, 'method') === 'GET' ? 'GET' : 'POST';
  return {
    method,
    uri: String(field(expected, 'uri') ?? ''),
    body: field(expected, 'body'),
    headers: Object.fromEntries(Object.entries(normaliseHeaders(field(expected, 'headers') ?? {})).map(([k, v]) => [k, v.join(', ')])),
    impIds: asArray(field(expected, 'impIDs') ?? [], 'impIDs').map(String),
  };
}

/**
 * A mock answer as Prebid Server's harness hands it over: its `body` is the JSON value's own text (a Go
 * `json.RawMessage`), so a string body reaches the adapter with its quotes, as `"invalid"`, and only an absent one
 * is empty. Our own fixtures may give `bodyText` instead: the body as it is on the wire, for answers that are not
 * JSON at all (which Prebid Server's format cannot state).
 */
function toResponseData(mock: JsonObject): ResponseData {
  const body = field(mock, 'body');
  const bodyText = field(mock, 'bodyText');
  const headers = normaliseHeaders(field(mock, 'headers') ?? {});
  return {
    status: Number(field(mock, 'status') ?? 200),
    body: typeof bodyText === 'string' ? bodyText : body === undefined ? '' : JSON.stringify(body),
    headers: Object.fromEntries(Object.entries(headers).map(([name, values]) => [name, values.join(', ')])),
  };
}

function diffBidResponses(expected: JsonObject[], actual: MakeBidsResult[], bidderName: string): string[] {
  const wanted = expected.filter((response) => asArray(field(response, 'bids') ?? [], 'bids').length > 0 || expectedConfigs(response).length > 0);
  const diffs: string[] = [];
  if (wanted.length !== actual.length) {
    diffs.push(`expected ${wanted.length} bid responses with bids, got ${actual.length} (bid counts: ${actual.map((r) => r.bids.length).join(', ') || 'none'})`);
  }
  const n = Math.min(wanted.length, actual.length);
  for (let i = 0; i < n; i++) diffs.push(...diffBidResponse(wanted[i]!, actual[i]!, bidderName, `bidResponses[${i}]`));
  return diffs;
}

function diffBidResponse(expected: JsonObject, actual: MakeBidsResult, bidderName: string, path: string): string[] {
  const diffs: string[] = [];
  const currency = field(expected, 'currency');
  const actualCurrency = actual.currency ?? 'USD';
  if (currency !== undefined && currency !== actualCurrency) diffs.push(`${path}.currency: expected ${String(currency)}, got ${actualCurrency}`);

  const bids = asArray(field(expected, 'bids'), `${path}.bids`).map((bid, i) => asObject(bid, `${path}.bids[${i}]`));
  if (bids.length !== actual.bids.length) diffs.push(`${path}.bids: expected ${bids.length} bids, got ${actual.bids.length}`);
  const n = Math.min(bids.length, actual.bids.length);
  for (let i = 0; i < n; i++) diffs.push(...diffTypedBid(bids[i]!, actual.bids[i]!, bidderName, `${path}.bids[${i}]`));
  diffs.push(...diffAuctionConfigs(expectedConfigs(expected), actual.fledgeAuctionConfigs ?? [], `${path}.fledgeauctionconfigs`));
  return diffs;
}

function expectedConfigs(response: JsonObject): JsonObject[] {
  return asArray(field(response, 'fledgeAuctionConfigs') ?? [], 'fledgeauctionconfigs').map((config, i) => asObject(config, `fledgeauctionconfigs[${i}]`));
}

/** The configs as a set: each expected one pairs with an equal returned one; what is left on either side differs. */
function diffAuctionConfigs(expected: JsonObject[], actual: FledgeAuctionConfig[], path: string): string[] {
  // Prebid Server's adapters name themselves in `bidder`, which the SDK calls `adapter` (the core's `bidder` is the
  // name the bidder ran under); both leave it out when absent.
  const wire = (config: FledgeAuctionConfig): JsonObject => withoutUndefined({ impid: config.impId, bidder: config.adapter || undefined, config: config.config });
  const want = expected.map((config) => withoutUndefined({ impid: field(config, 'impid'), bidder: field(config, 'bidder') || undefined, config: field(config, 'config') }));
  const left = actual.map(wire);
  const diffs: string[] = [];
  for (const config of want) {
    const index = left.findIndex((got) => diffJson(config, got, '').length === 0);
    if (index >= 0) left.splice(index, 1);
    else diffs.push(`${path}: expected ${JSON.stringify(config)}, not returned`);
  }
  for (const config of left) diffs.push(`${path}: unexpected ${JSON.stringify(config)}`);
  return diffs;
}

function withoutUndefined(object: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
}

function diffTypedBid(expected: JsonObject, actual: TypedBid, bidderName: string, path: string): string[] {
  const diffs = diffJson(field(expected, 'bid'), wireBody(actual.bid), `${path}.bid`);
  const type = field(expected, 'type');
  if (type !== actual.type) diffs.push(`${path}.type: expected ${JSON.stringify(type)}, got ${JSON.stringify(actual.type)}`);

  const seat = field(expected, 'seat') ?? bidderName;
  const actualSeat = actual.seat ?? bidderName;
  if (seat !== actualSeat) diffs.push(`${path}.seat: expected ${JSON.stringify(seat)}, got ${JSON.stringify(actualSeat)}`);

  const video = field(expected, 'video');
  if (video !== undefined) {
    const expectedVideo = asObject(video, `${path}.video`);
    const want = { duration: field(expectedVideo, 'duration') ?? 0, primaryCategory: field(expectedVideo, 'primary_category') ?? '' };
    const got = { duration: actual.video?.duration ?? 0, primaryCategory: actual.video?.primaryCategory ?? '' };
    diffs.push(...diffJson(want, got, `${path}.video`));
  }

  const dealPriority = field(expected, 'dealPriority');
  if (dealPriority !== undefined && dealPriority !== (actual.dealPriority ?? 0)) {
    diffs.push(`${path}.dealPriority: expected ${String(dealPriority)}, got ${String(actual.dealPriority ?? 0)}`);
  }
  return diffs;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

function diffErrors(stage: string, expected: ExpectedError[], actual: BidderError[]): string[] {
  const diffs: string[] = [];
  if (expected.length !== actual.length) {
    diffs.push(`${stage}: expected ${expected.length} errors, got ${actual.length}`, ...actual.map((e) => `  [${e.code}] ${e.message}`));
  }
  const n = Math.min(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    const want = expected[i]!;
    const message = actual[i]!.message;
    if (!errorMatches(want, message)) {
      diffs.push(`${stage} error[${i}]: expected (${want.comparison}) ${JSON.stringify(want.value)}, got ${JSON.stringify(message)}`);
    }
  }
  return diffs;
}

function errorMatches(expected: ExpectedError, message: string): boolean {
  switch (expected.comparison) {
    case 'regex':
      return new RegExp(expected.value).test(message);
    case 'startswith':
      return message.startsWith(expected.value);
    default:
      return message === expected.value;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the fixture's structure
// ---------------------------------------------------------------------------------------------------------------

function readHttpCall(call: unknown, index: number): HttpCall {
  const object = asObject(call, `httpCalls[${index}]`);
  return {
    expectedRequest: asObject(field(object, 'expectedRequest'), `httpCalls[${index}].expectedRequest`),
    mockResponse: asObject(field(object, 'mockResponse') ?? { status: 204 }, `httpCalls[${index}].mockResponse`),
  };
}

function readExpectedResponses(fixture: JsonObject): JsonObject[] {
  return asArray(field(fixture, 'expectedBidResponses') ?? [], 'expectedBidResponses').map((r, i) => asObject(r, `expectedBidResponses[${i}]`));
}

function readExpectedErrors(fixture: JsonObject, key: string): ExpectedError[] {
  return asArray(field(fixture, key) ?? [], key).map((entry, i) => {
    const object = asObject(entry, `${key}[${i}]`);
    return { value: String(field(object, 'value') ?? ''), comparison: String(field(object, 'comparison') ?? 'literal') };
  });
}

/** A fixture field by name, ignoring case as Go's JSON decoder does. */
function field(object: JsonObject, name: string): unknown {
  if (name in object) return object[name];
  const lower = name.toLowerCase();
  const key = Object.keys(object).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : object[key];
}

function asObject(value: unknown, what: string): JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`fixture: ${what} must be an object`);
  return value as JsonObject;
}

function asArray(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new Error(`fixture: ${what} must be an array`);
  return value;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
