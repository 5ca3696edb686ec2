import { expect } from 'chai';
import { ErrorCode } from '../../core/api/index.js';
import { RouteTable, type Route } from '../../core/http/routes.js';
import { HttpError } from '../../core/http/body.js';
import { METRIC_NAMES, type PrometheusMetrics } from '../../core/metrics/index.js';
import { valueOf } from '../metrics/exposition.js';
import { bannerRequest, fetchAnswer, type HttpAnswer, useGavelWithBidders } from '../support/gavel.js';

/**
 * The public endpoints as this test expects them, written out by hand rather than read from the server, so an
 * endpoint that appears, disappears, changes method or lane fails the first test until this table says so; every
 * other test runs over the whole table.
 */
interface Endpoint {
  pattern: string;
  methods: Array<'GET' | 'POST'>;
  lane: 'fast' | 'koa';
  /** A concrete path for a pattern with parameters. */
  path?: string;
  query?: string;
  body?: () => unknown;
}

const ENDPOINTS: Endpoint[] = [
  { pattern: '/openrtb2/auction', methods: ['POST'], lane: 'fast', body: () => bannerRequest({ alpha: {} }) },
  { pattern: '/openrtb2/video', methods: ['POST'], lane: 'fast', body: () => ({ id: 'v1', podconfig: { durationrangesec: [15, 30], pods: [] } }) },
  { pattern: '/openrtb2/amp', methods: ['GET'], lane: 'fast', query: '?tag_id=no-such-tag' },
  { pattern: '/cookie_sync', methods: ['POST'], lane: 'fast', body: () => ({}) },
  { pattern: '/setuid', methods: ['GET'], lane: 'fast', query: '?bidder=adnxs&uid=u-1' },
  { pattern: '/getuids', methods: ['GET'], lane: 'fast' },
  { pattern: '/optout', methods: ['GET', 'POST'], lane: 'fast', body: () => ({ optout: false }) },
  { pattern: '/status', methods: ['GET'], lane: 'fast' },
  { pattern: '/version', methods: ['GET'], lane: 'fast' },
  { pattern: '/event', methods: ['GET'], lane: 'fast', query: '?t=win&b=bid-1&a=acct&x=0' },
  { pattern: '/vtrack', methods: ['POST'], lane: 'fast', query: '?a=acct', body: () => ({ puts: [] }) },
  { pattern: '/info/bidders', methods: ['GET'], lane: 'fast', query: '?enabledonly=true' },
  { pattern: '/info/bidders/:name', methods: ['GET'], lane: 'fast', path: '/info/bidders/alpha' },
  { pattern: '/bidders/params', methods: ['GET'], lane: 'fast' },
  { pattern: '/cache', methods: ['GET', 'POST'], lane: 'koa', query: '?uuid=', body: () => ({ puts: [{ type: 'json', value: { a: 1 } }] }) },
];

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The methods an endpoint must refuse: HEAD too where there is no GET. */
function refused(endpoint: Endpoint): string[] {
  const served = new Set<string>(endpoint.methods);
  if (served.has('GET')) served.add('HEAD');
  return [...ALL_METHODS, 'HEAD'].filter((method) => !served.has(method));
}

/** What `Allow` must list: the declared methods, HEAD wherever GET is, and OPTIONS. */
function expectedAllow(endpoint: Endpoint): string[] {
  return [...endpoint.methods, ...(endpoint.methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort();
}

function allowOf(answer: HttpAnswer): string[] {
  return (answer.headers.get('allow') ?? '').split(',').map((method) => method.trim()).filter(Boolean).sort();
}

/** The path as declared, with a trailing slash, in upper case, in mixed case, and both. */
function spellings(path: string): string[] {
  const mixed = path.replace(/\/(\w)/g, (_, first: string) => `/${first.toUpperCase()}`);
  return [path, `${path}/`, path.toUpperCase(), mixed, `${mixed.toUpperCase()}/`];
}

/** Paths that must be 404 under every method: near misses of the real ones included. */
const UNKNOWN_PATHS = ['/', '/nope', '/status//', '//status', '/statuses', '/status/x', '/openrtb2', '/openrtb2/auction/x', '/info/bidders/alpha/extra', '/cache/x', '/wp-login.php'];

describe('HTTP routing: one rule for every endpoint', function () {
  this.timeout(30_000);
  const servers = useGavelWithBidders({ alpha: 'name=alpha&price=1.25' });
  let cacheUuid: string;

  before(async () => {
    const put = await fetchAnswer(`${servers.gavel.url}/cache`, { method: 'POST', body: JSON.stringify({ puts: [{ type: 'json', value: { a: 1 } }] }) });
    cacheUuid = put.json.responses[0].uuid;
  });

  function request(endpoint: Endpoint, method: string, path = endpoint.path ?? endpoint.pattern, origin?: string): Promise<HttpAnswer> {
    const query = endpoint.pattern === '/cache' ? `?uuid=${cacheUuid}` : (endpoint.query ?? '');
    const body = method === 'POST' && endpoint.body ? JSON.stringify(endpoint.body()) : undefined;
    const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
    if (origin) headers.origin = origin;
    return fetchAnswer(`${servers.gavel.url}${path}${query}`, { method, body, headers });
  }

  it('serves exactly the endpoints of this table, on the lanes it names', () => {
    const declared = servers.gavel.app.http.routes.paths.map((path) => ({
      pattern: path.pattern,
      methods: [...path.methods.entries()].filter(([method]) => method !== 'HEAD').map(([method]) => method).sort(),
      lane: new Set([...path.methods.values()].map((route) => route.lane)),
    }));
    const expected = ENDPOINTS.map((endpoint) => ({ pattern: endpoint.pattern, methods: [...endpoint.methods].sort(), lane: new Set([endpoint.lane]) }));
    const byPattern = (a: { pattern: string }, b: { pattern: string }) => a.pattern.localeCompare(b.pattern);
    expect(declared.sort(byPattern)).to.deep.equal(expected.sort(byPattern));
  });

  for (const endpoint of ENDPOINTS) {
    describe(`${endpoint.methods.join('/')} ${endpoint.pattern} (${endpoint.lane} lane)`, () => {
      for (const method of endpoint.methods) {
        it(`${method}: a trailing slash and any letter case answer as the declared path does`, async () => {
          const reference = await request(endpoint, method);
          expect(reference.status, reference.text).to.not.be.oneOf([404, 405]);
          for (const path of spellings(endpoint.path ?? endpoint.pattern)) {
            const answer = await request(endpoint, method, path);
            expect({ path, status: answer.status, type: answer.headers.get('content-type') }).to.deep.equal({
              path,
              status: reference.status,
              type: reference.headers.get('content-type'),
            });
          }
        });
      }

      if (endpoint.methods.includes('GET')) {
        it('HEAD: the GET answer\'s status and headers, no body, in every spelling', async () => {
          for (const path of spellings(endpoint.path ?? endpoint.pattern)) {
            const get = await request(endpoint, 'GET', path);
            const head = await request(endpoint, 'HEAD', path);
            expect({ path, status: head.status, type: head.headers.get('content-type'), length: head.headers.get('content-length'), body: head.text }).to.deep.equal({
              path,
              status: get.status,
              type: get.headers.get('content-type'),
              length: get.headers.get('content-length'),
              body: '',
            });
          }
        });
      }

      it('any other method: 405 with Allow listing the methods, in every spelling', async () => {
        for (const method of refused(endpoint)) {
          for (const path of spellings(endpoint.path ?? endpoint.pattern)) {
            const answer = await request(endpoint, method, path);
            expect({ method, path, status: answer.status, allow: allowOf(answer) }).to.deep.equal({ method, path, status: 405, allow: expectedAllow(endpoint) });
          }
        }
      });

      it('OPTIONS: 204 with Allow and the CORS preflight headers, in every spelling', async () => {
        for (const path of spellings(endpoint.path ?? endpoint.pattern)) {
          const answer = await request(endpoint, 'OPTIONS', path, 'https://pub.example');
          expect({ path, status: answer.status, allow: allowOf(answer), origin: answer.headers.get('access-control-allow-origin') }).to.deep.equal({
            path,
            status: 204,
            allow: expectedAllow(endpoint),
            origin: 'https://pub.example',
          });
        }
      });
    });
  }

  it('any other path: 404 under every method', async () => {
    for (const path of UNKNOWN_PATHS) {
      for (const method of [...ALL_METHODS, 'HEAD', 'OPTIONS']) {
        const answer = await fetchAnswer(`${servers.gavel.url}${path}`, { method });
        expect({ path, method, status: answer.status }).to.deep.equal({ path, method, status: 404 });
      }
    }
  });

  it('a parameter that is not valid percent-encoding is a 400, not a 500', async () => {
    const answer = await fetchAnswer(`${servers.gavel.url}/info/bidders/%ZZ`);
    expect(answer.status).to.equal(400);
    expect(answer.text).to.match(/^Invalid request: /);
  });

  it('records every answer once, under the route pattern whatever the spelling, unknown paths as other', async () => {
    const before = await (servers.gavel.app.metrics as PrometheusMetrics).render();
    const count = (text: string, route: string, status: string) => valueOf(text, METRIC_NAMES.httpRequests, { route, status }) ?? 0;
    const url = servers.gavel.url;
    await fetchAnswer(`${url}/STATUS/`);
    await fetchAnswer(`${url}/status`, { method: 'HEAD' });
    await fetchAnswer(`${url}/Status`, { method: 'PUT' });
    await fetchAnswer(`${url}/Info/Bidders/ALPHA/`);
    await fetchAnswer(`${url}/CACHE/?uuid=${cacheUuid}`);
    await fetchAnswer(`${url}/cache`, { method: 'DELETE' });
    await fetchAnswer(`${url}/no/such/path`);
    const after = await (servers.gavel.app.metrics as PrometheusMetrics).render();
    const delta = (route: string, status: string) => count(after, route, status) - count(before, route, status);
    expect(delta('/status', '200')).to.equal(2);
    expect(delta('/status', '405')).to.equal(1);
    expect(delta('/info/bidders/:name', '200')).to.equal(1);
    expect(delta('/cache', '200')).to.equal(1);
    expect(delta('/cache', '405')).to.equal(1);
    expect(delta('other', '404')).to.equal(1);
    expect(after).to.not.match(/route="\/(STATUS|Status|CACHE|no)/);
  });
});

describe('RouteTable', () => {
  const handler = async () => ({ status: 200, headers: {}, body: 'ok' });
  const table = new RouteTable([
    { method: 'POST', path: '/openrtb2/auction', lane: 'fast', handler },
    { method: 'GET', path: '/info/bidders/:name', lane: 'fast', handler },
    { method: 'GET', path: '/info/bidders', lane: 'fast', handler },
    { method: 'GET', path: '/cache', lane: 'koa', handler: async () => {} },
    { method: 'POST', path: '/cache', lane: 'koa', handler: async () => {} },
  ]);

  it('finds a fixed path as sent without copying it, and in any other spelling as the same entry', () => {
    const exact = table.find('/openrtb2/auction');
    expect(exact?.path).to.equal('/openrtb2/auction');
    expect(table.find('/OpenRTB2/Auction/')).to.equal(exact);
  });

  it('gives a parameter route its declared spelling and the parameter as sent, decoded', () => {
    const found = table.find('/INFO/Bidders/YahooAds%20X/');
    expect(found?.routes.pattern).to.equal('/info/bidders/:name');
    expect(found?.params).to.deep.equal({ name: 'YahooAds X' });
    expect(found?.path).to.equal('/info/bidders/YahooAds%20X');
  });

  it('prefers a fixed path to a parameter route', () => {
    expect(table.find('/info/bidders/')?.routes.pattern).to.equal('/info/bidders');
  });

  it('lists HEAD with GET, and OPTIONS, in Allow; its 405 carries a stable code', () => {
    const cache = table.find('/cache')!.routes;
    expect(cache.allow).to.equal('GET, HEAD, POST, OPTIONS');
    expect(cache.methods.get('HEAD')).to.equal(cache.methods.get('GET'));
    expect(cache.notAllowed).to.be.instanceOf(HttpError).and.to.include({ status: 405, code: ErrorCode.MethodNotAllowed });
    expect(cache.notAllowed.headers).to.deep.equal({ allow: 'GET, HEAD, POST, OPTIONS' });
    expect(table.find('/openrtb2/auction')!.routes.allow).to.equal('POST, OPTIONS');
  });

  it('finds nothing for a path no pattern matches', () => {
    for (const path of ['/', '/openrtb2/auction//', '/info/bidders/a/b', '/nope']) expect(table.find(path), path).to.equal(undefined);
  });

  it('answers a malformed parameter with a coded 400', () => {
    expect(() => table.find('/info/bidders/%E0%A4%A')).to.throw(HttpError).with.property('code', ErrorCode.RequestMalformed);
  });

  it('refuses a route declared twice in any spelling, and patterns it would not match as written', () => {
    const route = (method: 'GET' | 'POST', path: string): Route => ({ method, path, lane: 'fast', handler });
    expect(() => new RouteTable([route('GET', '/status'), route('GET', '/Status')])).to.throw(/declared twice/);
    expect(() => new RouteTable([route('GET', '/status/')])).to.throw(/trailing slash/);
    expect(() => new RouteTable([route('GET', '/files/*path')])).to.throw(/only :name parameters/);
    expect(() => new RouteTable([route('GET', '/status'), route('POST', '/STATUS')])).to.not.throw();
  });
});
