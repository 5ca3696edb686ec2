import { expect } from 'chai';
import type { HookContext, HookResult, ModuleDeps, RequestPayload } from '../../../core/api/index.js';
import validationModule from '../index.js';

/** Requests in these tests are written as loose JSON: many of them are deliberately malformed. */
export type Json = Record<string, any>;

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Appnexus params need a numeric placementId, so that params validation can fail in tests. */
function validateBidderParams(bidder: string, params: unknown): string | undefined {
  if (bidder !== 'appnexus') return undefined;
  const placementId = (params as Json | null)?.placementId;
  return typeof placementId === 'number' ? undefined : 'placementId: must be a number';
}

export function testDeps(bidderNames: string[] = ['appnexus', 'rubicon', 'pubmatic']): ModuleDeps {
  return {
    logger: silentLogger,
    bidders: new Map(bidderNames.map((name) => [name, { adapter: name, capabilities: {}, enabled: true }])),
    validateBidderParams,
    cachePut: async (values) => values.map(() => undefined),
  };
}

/** A request every check accepts; tests break one thing at a time. */
export function validRequest(): Json {
  return {
    id: 'request-1',
    site: { page: 'https://news.example.com/article' },
    imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { appnexus: { placementId: 42 } } }],
  };
}

export function withRequest(edit: (request: Json) => void): Json {
  const request = validRequest();
  edit(request);
  return request;
}

export function validate(request: unknown, namespace: 'svc' | 'prebid' = 'svc', deps = testDeps()): HookResult<RequestPayload> | undefined {
  const hook = validationModule.create({}, deps)['validate-request']?.validate;
  if (hook === undefined) throw new Error('gavel.validation has no validate-request hook');
  const context: HookContext = {
    endpoint: 'auction', namespace, deadline: Date.now() + 1000, secure: true, moduleContext: {}, logger: silentLogger,
  };
  const result = hook({ request: request as RequestPayload['request'] }, context);
  if (result instanceof Promise) throw new Error('validation is expected to be synchronous');
  return result;
}

export function expectRejected(request: unknown, message: string, namespace: 'svc' | 'prebid' = 'svc'): void {
  const result = validate(request, namespace);
  expect(result?.action).to.equal('reject');
  expect(result?.invalid).to.include(message);
}

export function expectAccepted(request: unknown, namespace: 'svc' | 'prebid' = 'svc', deps = testDeps()): HookResult<RequestPayload> | undefined {
  const result = validate(request, namespace, deps);
  expect(result?.invalid ?? [], 'no 400 lines').to.deep.equal([]);
  expect(result?.action).to.not.equal('reject');
  return result;
}

/** Applies a result's changes the way the executor does, to a copy of the request. */
export function applyChanges(result: HookResult<RequestPayload> | undefined, request: Json): Json {
  const payload = { request: structuredClone(request) } as RequestPayload;
  for (const change of result?.changes ?? []) change(payload);
  return payload.request as Json;
}
