/**
 * Registry-wide SSRF check: no bidder param can move an adapter's call off its configured scheme and host. For every
 * adapter folder (found by scanning adapters/, so new folders are covered without being named), each of its own
 * fixtures' requests is replayed with every string-valued param in `imp.ext.bidder` (nested ones too) replaced by
 * hostile values, and every URI `makeRequests` produces must be one `compileEndpoint(<configured endpoint>).allows`.
 * Returning an error instead of a call is fine; throwing is not (adapters never throw).
 *
 * The configured endpoint is the one of the adapter's `test/host-config.json` when it has one, else the shipped
 * `info.endpoint`. When that is not a usable template (a test host's bare path, or no endpoint at all), the bidder is
 * created with a neutral one instead, so the check still says whether params can steer the call. An origin the
 * adapter calls on its own (its host-config's `fixedHosts`) is allowed too.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  compileEndpoint,
  defineAdapter,
  isJsonObject,
  SDK_VERSION,
  type AdapterManifest,
  type BidRequest,
  type EndpointTemplate,
  type Imp,
} from '../../core/api/index.js';
import { testBidderConfig, testRequestInfo } from '../harness/adapter-kit.js';
import { loadAdapterManifest } from '../harness/adapter-runner.js';
import { silentLogger } from '../support/gavel.js';
import { repoRoot } from './plugin-root.js';

/** Values that would change the host, port, user info or path if pasted into a URL, as an attacker would write them. */
const HOSTILE_VALUES = ['evil.example', '127.0.0.1:9', 'a@evil.example', 'a#b', 'a/b', '%2F', 'a\nb', '..'];
const NEUTRAL_ENDPOINT = 'https://ssrf-check.example/endpoint';

interface TestHost {
  endpoint?: string;
  extra?: Record<string, unknown>;
  /** Origins the adapter calls on its own, whatever the endpoint (see FixtureHost.fixedHosts). */
  fixedHosts?: string[];
}

/** What one check found: each URI that leaves the configured host, and each throw, described for the report. */
type Violations = string[];

function adapterFolders(): string[] {
  const dir = join(repoRoot, 'adapters');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

function readTestHost(folder: string): TestHost {
  const path = join(repoRoot, 'adapters', folder, 'test', 'host-config.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as TestHost) : {};
}

/** Each fixture's `mockBidRequest` (field names matched ignoring case, as the fixture runner does), by file name. */
function fixtureRequests(folder: string): Array<{ name: string; request: BidRequest }> {
  const dir = join(repoRoot, 'adapters', folder, 'test', 'fixtures');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const fixture = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
      const key = Object.keys(fixture).find((name) => name.toLowerCase() === 'mockbidrequest');
      const request = key === undefined ? undefined : fixture[key];
      return isJsonObject(request) && Array.isArray(request.imp) ? [{ name: file, request: request as BidRequest }] : [];
    });
}

function usableTemplate(endpoint: string | undefined): EndpointTemplate | undefined {
  if (!endpoint) return undefined;
  try {
    return compileEndpoint(endpoint);
  } catch {
    return undefined;
  }
}

/** Paths of the string values inside `value` (a key, or an array index, per step). */
function stringPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => stringPaths(item, [...path, index]));
  if (isJsonObject(value)) return Object.keys(value).flatMap((key) => stringPaths(value[key], [...path, key]));
  return [];
}

function withValueAt(value: unknown, path: Array<string | number>, replacement: string): unknown {
  if (path.length === 0) return replacement;
  const [step, ...rest] = path;
  const copy = (Array.isArray(value) ? [...value] : { ...(value as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[step!] = withValueAt(copy[step!], rest, replacement);
  return copy;
}

/** The request with one param of one imp replaced. */
function withHostileParam(request: BidRequest, impIndex: number, path: Array<string | number>, value: string): BidRequest {
  const imps = request.imp.map((imp, index): Imp => (index === impIndex ? { ...imp, ext: { ...imp.ext, bidder: withValueAt(imp.ext?.bidder, path, value) } } : imp));
  return { ...request, imp: imps };
}

/** Scheme, host and port of a URI (a URI the parser refuses stands for itself, and matches no origin). */
function originOf(uri: string): string {
  try {
    return new URL(uri).origin;
  } catch {
    return uri;
  }
}

/**
 * Replays each request with each string param of each imp set to each hostile value, and lists the calls that leave
 * the configured host (and the throws).
 */
function hostileParamViolations(manifest: AdapterManifest, requests: Array<{ name: string; request: BidRequest }>, host: TestHost): Violations {
  const configured = usableTemplate(host.endpoint ?? manifest.info.endpoint);
  const endpoint = configured ?? compileEndpoint(NEUTRAL_ENDPOINT);
  const bidder = manifest.create!(testBidderConfig(manifest.name, endpoint.template, { extra: host.extra ?? {} }), { logger: silentLogger });
  const fixedHosts = new Set(host.fixedHosts ?? []);
  const violations: Violations = [];
  for (const { name, request } of requests) {
    request.imp.forEach((imp, impIndex) => {
      // A fixture may hold a null imp (Go decodes it as an empty one): it has no params to make hostile.
      for (const path of stringPaths((imp as Imp | null)?.ext?.bidder)) {
        for (const value of HOSTILE_VALUES) {
          const where = `${name}: imp[${impIndex}].ext.bidder.${path.join('.')} = ${JSON.stringify(value)}`;
          try {
            const { requests: calls } = bidder.makeRequests(withHostileParam(request, impIndex, path, value), testRequestInfo(manifest.name));
            for (const call of calls) if (!endpoint.allows(call.uri) && !fixedHosts.has(originOf(call.uri))) violations.push(`${where} -> ${call.uri}`);
          } catch (err) {
            violations.push(`${where} -> threw ${(err as Error).message}`);
          }
        }
      }
    });
  }
  return violations;
}

describe('adapter endpoints under hostile params (every adapter folder)', () => {
  for (const folder of adapterFolders()) {
    it(`adapters/${folder}: no param moves a call off the configured host`, async function () {
      this.timeout(30_000);
      const requests = fixtureRequests(folder);
      expect(requests, `adapters/${folder}/test/fixtures has no fixture with a mockBidRequest`).to.not.be.empty;
      const manifest = await loadAdapterManifest(folder);
      expect(manifest.create, `adapters/${folder} builds no bidder`).to.be.a('function');
      expect(hostileParamViolations(manifest, requests, readTestHost(folder))).to.deep.equal([]);
    });
  }
});

describe('the hostile-params check itself', () => {
  const request: BidRequest = { id: 'r', imp: [{ id: 'i', banner: { w: 1, h: 1 }, ext: { bidder: { region: 'us', nested: { publisher: 'p1' } } } }] };
  const adapter = (name: string, uriOf: (params: Record<string, unknown>, endpoint: string) => string): AdapterManifest =>
    defineAdapter({
      name,
      version: '1.0.0',
      sdkVersion: SDK_VERSION,
      info: { endpoint: 'https://{{region}}.bidder.example/bid', maintainer: { email: 'tests@gavel.dev' }, capabilities: { site: { mediaTypes: ['banner'] } } },
      paramsSchema: { type: 'object' },
      create: (config) => ({
        makeRequests(incoming) {
          const params = (incoming.imp[0]?.ext?.bidder ?? {}) as Record<string, unknown>;
          return { requests: [{ method: 'POST', uri: uriOf(params, config.endpoint), body: incoming, impIds: ['i'] }] };
        },
        makeBids: () => ({ bids: [] }),
      }),
    });

  it('catches an adapter that pastes a param into the host', () => {
    const pasting = adapter('pasting', (params) => `https://${String(params.region)}.bidder.example/bid`);
    const violations = hostileParamViolations(pasting, [{ name: 'inline', request }], {});
    expect(violations).to.include('inline: imp[0].ext.bidder.region = "evil.example" -> https://evil.example.bidder.example/bid');
    expect(violations.some((line) => line.includes('127.0.0.1:9'))).to.equal(true);
  });

  it('catches a param pasted into a nested place, and a throw', () => {
    const nested = adapter('nested', (params) => `https://${String((params.nested as Record<string, unknown>).publisher)}/bid`);
    expect(hostileParamViolations(nested, [{ name: 'inline', request }], { endpoint: 'https://us.bidder.example/bid' })).to.not.be.empty;
    const throwing = adapter('throwing', () => {
      throw new Error('boom');
    });
    expect(hostileParamViolations(throwing, [{ name: 'inline', request }], {})[0]).to.match(/-> threw boom$/);
  });

  it('passes an adapter that fills its template with compileEndpoint (host values refused, the rest encoded)', () => {
    const careful = adapter('careful', (params, endpoint) => {
      try {
        return compileEndpoint(`${endpoint}?pub={{publisher}}`).expand({ region: String(params.region), publisher: String((params.nested as Record<string, unknown>).publisher) });
      } catch {
        return 'https://us.bidder.example/bid';
      }
    });
    expect(hostileParamViolations(careful, [{ name: 'inline', request }], {})).to.deep.equal([]);
  });

  it("lets calls reach an origin the adapter calls on its own only when its host config names it (fixedHosts)", () => {
    const fixed = adapter('fixed', () => 'https://fixed.bidder.example/ortb');
    expect(hostileParamViolations(fixed, [{ name: 'inline', request }], { endpoint: 'https://us.bidder.example/bid' })).to.not.be.empty;
    expect(hostileParamViolations(fixed, [{ name: 'inline', request }], { endpoint: 'https://us.bidder.example/bid', fixedHosts: ['https://fixed.bidder.example'] })).to.deep.equal([]);
    const pasting = adapter('pasting', (params) => `https://${String(params.region)}.bidder.example/bid`);
    expect(hostileParamViolations(pasting, [{ name: 'inline', request }], { fixedHosts: ['https://us.bidder.example'] })).to.not.be.empty;
  });
});
