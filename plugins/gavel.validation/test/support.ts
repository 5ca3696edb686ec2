import { expect } from 'chai';
import type { BidRequest, ModuleDeps, Warning } from '../../../core/api/index.js';
import { testContext } from '../../../core/api/testing.js';
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

/**
 * A request every check accepts and none changes (its bidders in the namespace form, which validation moves
 * direct-form bidders to); tests break one thing at a time.
 */
export function validRequest(): Json {
  return {
    id: 'request-1',
    site: { page: 'https://news.example.com/article' },
    imp: [{ id: 'imp-1', banner: { format: [{ w: 300, h: 250 }] }, ext: { svc: { bidder: { appnexus: { placementId: 42 } } } } }],
  };
}

export function withRequest(edit: (request: Json) => void): Json {
  const request = validRequest();
  edit(request);
  return request;
}

/** What one validation did: its 400 lines, its warnings, and the request as the service left it. */
export interface ValidationView {
  action: 'reject' | 'update' | 'no-op';
  invalid?: string[];
  warnings?: { general: Warning[] };
  /** The request after validation: normalised when valid, untouched when not. */
  request: Json;
}

/** Runs the request-validation service on a copy of the request; undefined when it found nothing to say or do. */
export function validate(request: unknown, namespace: 'svc' | 'prebid' = 'svc', deps = testDeps()): ValidationView | undefined {
  const validator = validationModule.provides?.['request-validation']?.({}, deps);
  if (validator === undefined) throw new Error('gavel.validation provides no request-validation service');
  const context = testContext({ namespace });
  const copy = structuredClone(request) as BidRequest;
  const invalid = validator.validate(copy, context);
  const warnings = context.warnings.general;
  const changed = JSON.stringify(copy) !== JSON.stringify(request);
  if (invalid === undefined && warnings === undefined && !changed) return undefined;
  const view: ValidationView = { action: invalid !== undefined ? 'reject' : changed ? 'update' : 'no-op', request: copy as Json };
  if (invalid !== undefined) view.invalid = invalid;
  if (warnings !== undefined) view.warnings = { general: warnings };
  return view;
}

export function expectRejected(request: unknown, message: string, namespace: 'svc' | 'prebid' = 'svc'): void {
  const result = validate(request, namespace);
  expect(result?.action).to.equal('reject');
  expect(result?.invalid).to.include(message);
}

export function expectAccepted(request: unknown, namespace: 'svc' | 'prebid' = 'svc', deps = testDeps()): ValidationView | undefined {
  const result = validate(request, namespace, deps);
  expect(result?.invalid ?? [], 'no 400 lines').to.deep.equal([]);
  expect(result?.action).to.not.equal('reject');
  return result;
}

/** The request as validation left it. */
export function applyChanges(result: ValidationView | undefined, request: Json): Json {
  return result?.request ?? request;
}
