/**
 * The OpenAPI 3.1 document on the admin listener (`GET /openapi.json`) describes every public endpoint (every row of
 * the routing table) and holds to real traffic: each request below is valid against its operation's request schema,
 * and each real answer has a documented status and media type and is valid against that response's schema.
 */
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAdminServer, type AdminServer } from '../../core/metrics/index.js';
import { openApiPath } from '../../core/openapi/index.js';
import { bannerRequest, silentLogger, startGavel, type RunningGavel } from '../support/gavel.js';
import { startMockBidder, type MockBidder } from '../support/mock-bidder.js';

const demoData = (path: string) => fileURLToPath(new URL(`../../scripts/demo-data/${path}`, import.meta.url));

type Json = Record<string, any>;

interface Exchange {
  method: 'GET' | 'POST';
  /** The route pattern the exchange exercises, as the routing table declares it. */
  pattern: string;
  path: string;
  body?: unknown;
  status: number;
}

describe('OpenAPI 3.1 document', function () {
  this.timeout(30_000);
  let dir: string;
  let bidder: MockBidder;
  let gavel: RunningGavel;
  let admin: AdminServer;
  let document: Json;
  let ajv: Ajv2020;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gavel-openapi-'));
    cpSync(demoData('stored'), join(dir, 'stored'), { recursive: true });
    mkdirSync(join(dir, 'stored', 'requests'), { recursive: true });
    writeFileSync(
      join(dir, 'stored', 'requests', 'amp-slot.json'),
      JSON.stringify({ id: 'amp-slot', site: { page: 'https://amp.example/story' }, imp: [{ id: 'slot', banner: { format: [{ w: 300, h: 250 }] }, ext: { prebid: { bidder: { alpha: {} } } } }], ext: { prebid: { targeting: {} } } }),
    );
    bidder = await startMockBidder();
    gavel = await startGavel({
      storedRequests: { filesystem: { dir: join(dir, 'stored') } },
      video: { categoryMappings: { freewheel: demoData('category-mappings/freewheel.json') } },
      bidders: {
        alpha: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=alpha&price=1.87` },
        gamma: { adapter: 'ortb', endpoint: `${bidder.url}/rtb?name=gamma&price=3.10&mtype=2&dur=28&cat=IAB1-5&adm=%3CVAST%20version%3D%223.0%22%3E%3C%2FVAST%3E` },
      },
    });
    admin = await startAdminServer({ host: '127.0.0.1', port: 0, metrics: gavel.app.metrics as never, logger: silentLogger, readiness: () => true, mounts: gavel.app.adminMounts });
    const answer = await fetch(`http://127.0.0.1:${admin.port}/openapi.json`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.equal('application/json');
    document = (await answer.json()) as Json;
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema(document, 'openapi');
  });
  after(async () => {
    await admin?.close();
    await gavel?.close();
    await bidder?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Validates `value` against the schema at a JSON pointer into the document. */
  function check(pointer: string, value: unknown, what: string): void {
    const validate = ajv.getSchema(`openapi#${pointer}`);
    expect(validate, `${what}: no schema at ${pointer}`).to.be.a('function');
    const valid = validate!(value);
    expect(valid, `${what}: ${ajv.errorsText(validate!.errors)}`).to.equal(true);
  }

  const escape = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

  it('is OpenAPI 3.1 with this Gavel’s version', () => {
    expect(document.openapi).to.equal('3.1.0');
    const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(document.info).to.include({ title: 'Gavel', version });
    expect(document.servers).to.deep.equal([{ url: gavel.app.config.server.externalUrl }]);
  });

  it('has one described operation for every row of the routing table, and no other', () => {
    const table = gavel.app.http.routes.paths.flatMap((path) => [...path.methods.keys()].filter((method) => method !== 'HEAD').map((method) => `${method} ${openApiPath(path.pattern)}`)).sort();
    const described = Object.entries(document.paths as Record<string, Json>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    expect(described).to.deep.equal(table);
    const undescribed = described.filter((key) => {
      const [method, path] = key.split(' ');
      return document.paths[path!][method!.toLowerCase()]['x-undocumented'];
    });
    expect(undescribed, 'describe these in core/openapi/document.ts').to.deep.equal([]);
  });

  it('carries the schemas Gavel validates with: each bidder’s params, the video request', () => {
    const params = document.components.schemas.BidderParams.properties as Json;
    expect(params.appnexus.$id).to.equal('urn:gavel:bidder-params:appnexus');
    expect(params.alpha).to.include.keys('type');
    expect(document.paths['/openrtb2/video'].post.requestBody.content['application/json'].schema.properties).to.include.keys('podconfig');
    // A request whose bidder params break the bidder's schema is not valid against the document either.
    expect(ajv.getSchema('openapi#/components/schemas/BidRequest')!(bannerRequest({ appnexus: { placement_id: {} } }))).to.equal(false);
  });

  describe('holds to real requests and answers', () => {
    let uuid = '';
    const exchanges: Exchange[] = [
      { method: 'POST', pattern: '/openrtb2/auction', path: '/openrtb2/auction', status: 200, body: bannerRequest({ alpha: {} }, { ext: { prebid: { targeting: {}, cache: { bids: {} } } } }) },
      { method: 'POST', pattern: '/openrtb2/auction', path: '/openrtb2/auction', status: 400, body: { id: 'no-imps', imp: [] } },
      { method: 'GET', pattern: '/openrtb2/amp', path: '/openrtb2/amp?tag_id=amp-slot&w=300&h=250', status: 200 },
      { method: 'GET', pattern: '/openrtb2/amp', path: '/openrtb2/amp', status: 400 },
      { method: 'POST', pattern: '/openrtb2/video', path: '/openrtb2/video', status: 200, body: JSON.parse(readFileSync(demoData('video-request.json'), 'utf8')) },
      { method: 'POST', pattern: '/openrtb2/video', path: '/openrtb2/video', status: 400, body: { podconfig: { pods: [] } } },
      { method: 'POST', pattern: '/cookie_sync', path: '/cookie_sync', status: 200, body: { bidders: ['appnexus'], limit: 2 } },
      { method: 'GET', pattern: '/setuid', path: '/setuid?bidder=adnxs&uid=u-1&f=i', status: 200 },
      { method: 'GET', pattern: '/setuid', path: '/setuid?uid=u-1', status: 400 },
      { method: 'GET', pattern: '/setuid', path: '/setuid?bidder=adnxs&uid=u-1&gdpr=1&gdpr_consent=not-tcf', status: 400 },
      { method: 'GET', pattern: '/getuids', path: '/getuids', status: 200 },
      { method: 'GET', pattern: '/optout', path: '/optout', status: 200 },
      { method: 'POST', pattern: '/optout', path: '/optout', status: 200, body: { optout: true } },
      { method: 'POST', pattern: '/optout', path: '/optout', status: 400, body: { optout: 'yes' } },
      { method: 'GET', pattern: '/status', path: '/status', status: 200 },
      { method: 'GET', pattern: '/version', path: '/version', status: 200 },
      { method: 'GET', pattern: '/info/bidders', path: '/info/bidders?enabledonly=true', status: 200 },
      { method: 'GET', pattern: '/info/bidders/{name}', path: '/info/bidders/appnexus', status: 200 },
      { method: 'GET', pattern: '/info/bidders/{name}', path: '/info/bidders/alpha', status: 200 },
      { method: 'GET', pattern: '/info/bidders/{name}', path: '/info/bidders/nope', status: 404 },
      { method: 'GET', pattern: '/info/bidders', path: '/info/bidders?enabledonly=maybe', status: 400 },
      { method: 'GET', pattern: '/info/bidders/{name}', path: '/info/bidders/all', status: 200 },
      { method: 'GET', pattern: '/bidders/params', path: '/bidders/params', status: 200 },
      { method: 'POST', pattern: '/cache', path: '/cache', status: 200, body: { puts: [{ type: 'json', value: { a: 1 } }, { type: 'xml', value: '<VAST version="3.0"></VAST>' }] } },
      { method: 'POST', pattern: '/cache', path: '/cache', status: 400, body: { puts: [] } },
      { method: 'GET', pattern: '/cache', path: '/cache?uuid=', status: 400 },
      { method: 'GET', pattern: '/cache', path: '/cache?uuid=<put>', status: 200 },
      { method: 'GET', pattern: '/cache', path: '/cache?uuid=no-such-uuid', status: 404 },
      { method: 'GET', pattern: '/event', path: '/event?t=nope', status: 400 },
      { method: 'GET', pattern: '/event', path: '/event?t=win&b=bid-1', status: 401 },
      { method: 'GET', pattern: '/event', path: '/event?t=win&b=bid-1&a=acct-without-events', status: 401 },
      { method: 'POST', pattern: '/vtrack', path: '/vtrack?a=acct', status: 200, body: { puts: [{ type: 'xml', value: '<VAST version="3.0"><Ad><InLine><Impression></Impression></InLine></Ad></VAST>', bidid: 'bid-1', bidder: 'appnexus', timestamp: 1 }] } },
      { method: 'POST', pattern: '/vtrack', path: '/vtrack', status: 400, body: { puts: [] } },
    ];

    for (const exchange of exchanges) {
      it(`${exchange.method} ${exchange.path} (${exchange.status})`, async () => {
        const operation = document.paths[exchange.pattern]?.[exchange.method.toLowerCase()] as Json | undefined;
        expect(operation, `${exchange.method} ${exchange.pattern} is described`).to.be.an('object');
        const base = `/paths/${escape(exchange.pattern)}/${exchange.method.toLowerCase()}`;
        if (exchange.body !== undefined && exchange.status === 200) check(`${base}/requestBody/content/application~1json/schema`, exchange.body, 'request');
        const answer = await fetch(`${gavel.url}${exchange.path.replace('<put>', uuid)}`, {
          method: exchange.method,
          headers: exchange.body === undefined ? {} : { 'content-type': 'application/json' },
          body: exchange.body === undefined ? undefined : JSON.stringify(exchange.body),
        });
        const text = await answer.text();
        expect(answer.status, text).to.equal(exchange.status);
        const response = operation!.responses[String(answer.status)] as Json | undefined;
        expect(response, `status ${answer.status} is documented`).to.be.an('object');
        const mediaType = answer.headers.get('content-type') ?? '';
        const documented = Object.keys(response!.content ?? {}).find((type) => type.split(';')[0] === mediaType.split(';')[0]);
        expect(documented, `${mediaType} is documented for ${answer.status}`).to.be.a('string');
        const schema = response!.content[documented!].schema as Json;
        const pointer = `${base}/responses/${answer.status}/content/${escape(documented!)}/schema`;
        if (schema.type === 'string' || mediaType.startsWith('image/') || mediaType.includes('xml')) check(pointer, text, 'response');
        else check(pointer, JSON.parse(text), 'response');
        if (exchange.pattern === '/cache' && exchange.method === 'POST' && answer.status === 200) uuid = (JSON.parse(text) as { responses: Array<{ uuid: string }> }).responses[0]!.uuid;
      });
    }
  });
});
