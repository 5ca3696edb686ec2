import { videoRequestSchema } from '../video/video-request.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { Route } from '../http/routes.js';
import { adapterManifestSchema } from '../plugins/manifest-schema.js';
import { componentSchemas, ref } from './schemas.js';

type Json = Record<string, unknown>;

const TEXT = 'text/plain; charset=utf-8';

function text(description: string): Json {
  return { description, content: { [TEXT]: { schema: { type: 'string' } } } };
}

function json(description: string, schema: Json, mediaType = 'application/json'): Json {
  return { description, content: { [mediaType]: { schema } } };
}

function query(name: string, description: string, schema: Json = { type: 'string' }, required = false): Json {
  return { name, in: 'query', required, description, schema };
}

const badRequest = text('`Invalid request: <message>` lines, one per problem, each naming the field and how to fix it');
const storedDataDown = text('The stored-data backend failed or was too slow: retry');
const tooLarge = text('The body is larger than `server.maxRequestBytes` (after decompression)');

/** Each public endpoint's operation, by `METHOD pattern` as the routing table declares it. */
const OPERATIONS: Record<string, Json> = {
  'POST /openrtb2/auction': {
    summary: 'Run an OpenRTB auction (Prebid.js and Prebid Server clients)',
    description: 'JSON, or gzip with `Content-Encoding: gzip` (or `?gzip=1`). A module that ends the auction early answers 200 `{id, nbr}`.',
    requestBody: { required: true, content: { 'application/json': { schema: ref('BidRequest') } } },
    responses: { 200: json('The OpenRTB BidResponse', ref('BidResponse')), 400: badRequest, 413: tooLarge, 503: storedDataDown },
  },
  'GET /openrtb2/amp': {
    summary: "AMP real-time config callout: the stored request's auction as targeting key-values",
    parameters: [
      query('tag_id', 'Id of the stored request holding the slot', { type: 'string', minLength: 1 }, true),
      query('w', 'amp-ad width'),
      query('h', 'amp-ad height'),
      query('ow', 'data-override-width'),
      query('oh', 'data-override-height'),
      query('ms', 'data-multi-size: `WxH,WxH`'),
      query('slot', 'data-slot, sent as imp[0].tagid'),
      query('curl', 'The canonical URL of the page'),
      query('timeout', 'The RTC timeout of the page, ms'),
      query('targeting', 'JSON of the amp-ad json.targeting'),
      query('account', 'The publisher account id'),
      query('consent_string', 'The consent string (gdpr_consent is its older name)'),
      query('gdpr_consent', 'The consent string'),
      query('consent_type', '1 TCF v1, 2 TCF v2, 3 US privacy, 4 GPP'),
      query('gdpr_applies', '`true` or `false`'),
      query('addtl_consent', "Google's additional consent"),
      query('attl_consent', "Google's additional consent (the other spelling in use)"),
      query('gpp', 'A GPP string, sent as regs.gpp'),
      query('gpp_sid', 'The GPP section ids in force, `2,6`: sent as regs.gpp_sid'),
      query('debug', '`1` adds the auction debug output'),
      query('amp_timeout_adjustment_ms', 'Latency between the AMP runtime and Gavel, kept back from the timeout'),
      query('__amp_source_origin', 'The origin the CORS answer names'),
    ],
    responses: {
      200: json('The targeting, as JSON text (AMP reads the body as text and parses it)', ref('AmpResponse'), TEXT),
      400: badRequest,
      500: text('A critical error, as the AMP protocol reports it'),
      503: storedDataDown,
    },
  },
  'POST /openrtb2/video': {
    summary: 'Video ad pods for server-side ad insertion',
    requestBody: { required: true, content: { 'application/json': { schema: videoRequestSchema } } },
    responses: { 200: json('One answer per pod', ref('VideoResponse')), 400: badRequest, 413: tooLarge, 503: storedDataDown },
  },
  'POST /cookie_sync': {
    summary: 'Which bidders to sync, and their sync URLs',
    requestBody: { content: { 'application/json': { schema: ref('CookieSyncRequest') } } },
    responses: { 200: json('The bidders to sync', ref('CookieSyncResponse')), 400: badRequest, 401: text('The user opted out of syncing') },
  },
  'GET /setuid': {
    summary: "Store a bidder's user id in the uids cookie",
    parameters: [
      query('bidder', 'The bidder (or its uids cookie key) whose id this is', { type: 'string' }, true),
      query('uid', 'The id; empty or absent removes it'),
      query('f', '`i`: answer a 1x1 PNG, `b`: blank HTML', { enum: ['i', 'b'] }),
      query('gdpr', '0 or 1'),
      query('gdpr_consent', 'The consent string, required when gdpr=1'),
    ],
    responses: {
      200: { description: 'Stored (the cookie is in Set-Cookie)', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } }, 'text/html': { schema: { type: 'string' } }, [TEXT]: { schema: { type: 'string' } } } },
      400: badRequest,
      401: text('The user opted out of syncing'),
      451: text('Privacy forbids storing this id: the `syncUser` activity, or no GDPR purpose 1 consent (Prebid Server\'s text)'),
    },
  },
  'GET /getuids': {
    summary: 'The live ids of the uids cookie',
    responses: { 200: json('`{"buyeruids": {<cookie key>: <id>}}`, or `{}` when there are none', { type: 'object', properties: { buyeruids: { type: 'object', additionalProperties: { type: 'string' } } } }) },
  },
  'GET /optout': {
    summary: 'A page saying whether the user opted out of user syncing, with the switch',
    responses: { 200: { description: 'The page', content: { 'text/html; charset=utf-8': { schema: { type: 'string' } } } } },
  },
  'POST /optout': {
    summary: 'Opt out of user syncing (sets the opt-out cookie, deletes the uids cookie) or back in',
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['optout'], properties: { optout: { type: 'boolean' } } } } } },
    responses: { 200: json('The new state', { type: 'object', properties: { optout: { type: 'boolean' } } }), 400: badRequest },
  },
  'GET /status': { summary: 'Liveness: 200 while the server is up', responses: { 200: json('Up', ref('Status')) } },
  'GET /version': {
    summary: "This server's version (Prebid Server's shape)",
    responses: { 200: json('The version', { type: 'object', required: ['revision', 'version'], properties: { revision: { type: 'string' }, version: { type: 'string' } } }) },
  },
  'GET /info/bidders': {
    summary: 'Names of the bidders this host knows',
    parameters: [
      query('enabledonly', '`true`: only the enabled ones (any letter case)', { type: 'string' }),
      query('baseadaptersonly', '`true`: no aliases (any letter case)', { type: 'string' }),
    ],
    responses: {
      200: json('Bidder names, sorted', { type: 'array', items: { type: 'string' } }),
      400: text("A flag that is neither true nor false: Invalid value for '<flag>' query param, must be of boolean type"),
    },
  },
  'GET /info/bidders/{name}': {
    summary: "A bidder's capabilities, maintainer, alias target and state",
    parameters: [{ name: 'name', in: 'path', required: true, description: 'The bidder (any letter case); `all` for every bidder by name', schema: { type: 'string' } }],
    responses: { 200: json('The bidder (for `all`, an object of them by name)', { anyOf: [ref('BidderInfo'), { type: 'object', additionalProperties: ref('BidderInfo') }] }), 404: text('Unknown bidder: an empty body') },
  },
  'GET /bidders/params': {
    summary: "Each bidder's params JSON schema (what imp.ext.<bidder> must be)",
    responses: {
      200: json('Schemas by bidder name (the ones in components.schemas.BidderParams)', { type: 'object', additionalProperties: { type: 'object', description: 'A JSON schema' } }),
    },
  },
  'POST /cache': {
    summary: 'Store values in the embedded bid cache (Prebid Cache protocol)',
    requestBody: { required: true, content: { 'application/json': { schema: ref('CachePutRequest') } } },
    responses: { 200: json('One uuid per put, in order', ref('CachePutResponse')), 400: badRequest, 413: tooLarge },
  },
  'GET /event': {
    summary: 'A win or impression notification (the URLs in bids\' `ext.<ns>.events`), handed to analytics',
    parameters: [
      query('t', 'Event type', { enum: ['win', 'imp', 'vast'] }, true),
      query('b', 'The bid id (`ext.<ns>.bidid` when the host generates bid ids)', { type: 'string', minLength: 1 }, true),
      query('a', 'The account id', { type: 'string', minLength: 1 }, true),
      query('bidder', 'The bidder (seat) of the bid'),
      query('ts', 'The auction start, epoch ms'),
      query('f', '`i`: answer a 1x1 PNG, `b` (default): an empty 204', { enum: ['b', 'i'] }),
      query('x', '`0`: not for analytics (an empty 204, nothing read or reported)', { enum: ['0', '1'] }),
      query('int', 'Integration type: letters, digits, `-` and `_`, at most 64'),
      query('vtype', 'VAST event type with `t=vast`', { enum: ['start', 'firstQuartile', 'midPoint', 'thirdQuartile', 'complete'] }),
    ],
    responses: {
      200: { description: 'Accepted; the pixel (`f=i`)', content: { 'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } } } },
      204: { description: 'Accepted (or `x=0`)' },
      400: text('`invalid request: <problem>` lines, one per malformed parameter; or the account service\'s refusal'),
      401: text("No account (`a`), or the account does not enable events: `Account '<id>' doesn't support events`"),
      500: text('The account could not be read'),
      503: text('The account is disabled or malformed'),
      504: text('The account could not be read within `events.timeoutMs`'),
    },
  },
  'POST /vtrack': {
    summary: 'Put VAST in the bid cache with an impression tracker (`/event?t=imp`) inserted, for the bidders that allow it',
    parameters: [query('a', 'The account id', { type: 'string', minLength: 1 }, true), query('int', 'Integration type, carried into the tracker URL')],
    requestBody: { required: true, content: { 'application/json': { schema: ref('VtrackRequest') } } },
    responses: {
      200: json('One uuid per put, in order', ref('CachePutResponse')),
      400: text('No account, a malformed body or integration type (`Invalid request: <problem>`), or the account service\'s refusal'),
      413: tooLarge,
      500: text('The account could not be read, or the bid cache did not store every value'),
      503: text('The account is disabled or malformed'),
      504: text('The account could not be read within `events.timeoutMs`'),
    },
  },
  'GET /cache': {
    summary: 'Fetch a cached value',
    parameters: [query('uuid', 'The id a put returned', { type: 'string', minLength: 1 }, true)],
    responses: {
      200: { description: 'The value as it was put', content: { 'application/json': { schema: {} }, 'application/xml': { schema: { type: 'string' } } } },
      400: badRequest,
      404: text('No value under this uuid (never stored, or expired)'),
    },
  },
};

/** A route's pattern in OpenAPI's spelling: `/info/bidders/:name` is `/info/bidders/{name}`. */
export function openApiPath(pattern: string): string {
  return pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * The bidders' params schemas, each an embedded resource of its own (`$id`), so that its internal `#/definitions`
 * references resolve inside it; `$schema` goes (a 2020-12 document names its dialect once).
 */
function bidderParams(bidders: BidderCatalog): Json {
  const properties: Json = {};
  for (const entry of [...bidders.entries.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const { $schema: _dialect, ...schema } = (entry.paramsSchema ?? {}) as Json;
    properties[entry.name] = { ...schema, $id: `urn:gavel:bidder-params:${entry.name}` };
  }
  return { type: 'object', description: "Params by bidder: each the schema Gavel checks that bidder's imp.ext params against", properties };
}

/** `GET /info/bidders/<name>`, Prebid Server's shape: the adapter manifest's own schemas for the parts it copies from `info`. */
function bidderInfo(): Json {
  const info = (adapterManifestSchema.properties.info as { properties: Record<string, Json> }).properties;
  return {
    type: 'object',
    required: ['status'],
    properties: {
      status: { enum: ['ACTIVE', 'DISABLED'] },
      usesHttps: { type: 'boolean', description: 'Enabled bidders: whether the endpoint is https' },
      maintainer: info.maintainer,
      capabilities: { ...info.capabilities, description: 'Enabled bidders: media types by app, site, dooh' },
      aliasOf: { type: 'string' },
    },
  };
}

export interface OpenApiFacts {
  /** The public routing table, as the HTTP edge serves it. */
  routes: readonly Route[];
  bidders: BidderCatalog;
  version: string;
  externalUrl: string;
}

/**
 * The OpenAPI 3.1 description of every public endpoint: one operation per row of the routing table (a row this
 * file does not describe still appears, marked `x-undocumented`, and a test fails on it), with the schemas Gavel
 * validates with where it has them (the video request, the bidders' params, the adapter info) and schemas.ts for
 * the rest.
 */
export function buildOpenApiDocument(facts: OpenApiFacts): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of facts.routes) {
    const path = openApiPath(route.path);
    const operation = OPERATIONS[`${route.method} ${path}`] ?? { summary: 'Not described yet', 'x-undocumented': true, responses: { default: { description: 'Not described yet' } } };
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Gavel',
      version: facts.version,
      description: 'Header-bidding auction server (Prebid Server protocol). Letter case and one trailing slash of a path are ignored; HEAD is served wherever GET is; OPTIONS is the CORS preflight.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: facts.externalUrl }],
    paths,
    components: { schemas: { ...componentSchemas, BidderParams: bidderParams(facts.bidders), BidderInfo: bidderInfo() } },
  };
}
