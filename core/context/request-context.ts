import { isJsonObject, type AccountSettings, type AuctionBid, type AuctionContext, type BidderError, type BidRequest, type EndpointName, type HookContext, type Namespace, type PluginLogger, type PrivacySignals, type Stage, type TraceLevel, type Warning } from '../api/index.js';
import type { Clock } from '../app/tokens.js';
import type { ExecutionPlanConfig } from '../config/index.js';
import type { EndpointPlan, ExecutionPlanner } from '../hooks/plan.js';
import type { StoredResponses } from '../stored-responses/index.js';
import type { AuctionObserver } from './observer.js';

export interface HookTraceEntry {
  stage: Stage;
  module: string;
  hook: string;
  status: 'success' | 'timeout' | 'failure' | 'rejected';
  action: 'no-op' | 'update' | 'reject';
  executiontimemillis: number;
  message?: string;
  messages?: string[];
}

/** A bid left out of the answer, why (a `NonBidReason`), and the error reported for it, if any. */
export interface RejectedBid {
  bid: AuctionBid;
  reason: number;
  error?: BidderError;
}

/** An imp a bidder made no bid for because its call failed (timeout, unreachable, failure status), and why. */
export interface RejectedImp {
  seat: string;
  impId: string;
  reason: number;
}

/** What a request leaves for its answer: warnings, errors, rejected bids and the module trace, from any stage or service. */
export interface RequestJournal {
  warnings?: Record<string, Warning[]>;
  errors?: Record<string, BidderError[]>;
  rejectedBids?: RejectedBid[];
  /** Seat non-bids without a bid: the imps of a bidder's failed calls (Prebid Server's `rejectImps`). */
  rejectedImps?: RejectedImp[];
  trace?: HookTraceEntry[];
  traceLevel?: TraceLevel;
  /**
   * By imp id, the stored imp's `video` for imps that asked for it back (`imp.ext.<ns>.options.echovideoattrs`):
   * their bids carry it as `ext.storedrequestattributes`, as in Prebid Server.
   */
  echoedVideo?: ReadonlyMap<string, unknown>;
}

/** The host settings a request context is resolved under. */
export interface ContextSettings {
  defaultTmaxMs: number;
  maxTmaxMs: number;
  /** The host's auction currency (USD when not given). */
  currency?: string;
}

/** Converts with no rates at all: what a context can do before the auction's rates are known. */
function sameCurrencyOnly(amount: number, from: string, to: string): number | undefined {
  return from === to ? amount : undefined;
}

const NO_PRIVACY: PrivacySignals = Object.freeze({});


/**
 * A request's context, from the moment the HTTP exchange reaches an endpoint. Until `resolveAuctionContext` runs it
 * is only an entrypoint context (no namespace, deadline or account); after, it is the request's one AuctionContext.
 * Its fields are plain and fixed in shape, so every request's context is the same hidden class.
 */
export class RequestContext implements AuctionContext {
  namespace: Namespace = 'svc';
  tmax = 0;
  deadline = 0;
  accountId = '';
  account: AccountSettings = { id: '' };
  debug = false;
  /** The host's debug override header was sent with the right token: debug output whatever the request and account say. */
  debugOverride = false;
  /**
   * The request came from another site's page with the visitor's cookies: debug output (which echoes the request,
   * uids included) is then off unless the account allows it (`debug_allow_cross_origin`).
   */
  crossOriginCredentialed = false;
  trace: TraceLevel | undefined = undefined;
  privacy: PrivacySignals = NO_PRIVACY;
  currency = 'USD';
  /** The auction's price converter, set by the pipeline once the request's rates are known. */
  convertCurrency: (amount: number, from: string, to: string) => number | undefined = sameCurrencyOnly;
  /** The stored auction and bid responses the request names, fetched when the context is settled. */
  storedResponses: StoredResponses | undefined = undefined;
  /** The hook plan of this endpoint: the host's until the account's is known. */
  plan: EndpointPlan;
  /** Set when the debug log or the auction inspector watches this request (core/inspector). */
  observer: AuctionObserver | undefined = undefined;
  readonly journal: RequestJournal = {};
  private scopes: Map<string, HookContext> | undefined = undefined;

  constructor(
    readonly endpoint: EndpointName,
    readonly receivedAt: number,
    readonly secure: boolean,
    readonly logger: PluginLogger,
    private readonly clock: Clock,
    readonly planner: ExecutionPlanner,
    /** The request's id (`X-Request-Id`), in its log lines and for analytics; '' when the edge gave none. */
    readonly requestId: string = '',
  ) {
    this.plan = planner.planFor(endpoint);
  }

  now(): number {
    return this.clock.now();
  }

  warn(scope: string, warning: Warning): void {
    ((this.journal.warnings ??= {})[scope] ??= []).push(warning);
  }

  fail(bidder: string, error: BidderError): void {
    ((this.journal.errors ??= {})[bidder] ??= []).push(error);
  }

  rejectBid(bid: AuctionBid, reason: number, error?: BidderError, scope?: string): void {
    (this.journal.rejectedBids ??= []).push(error ? { bid, reason, error } : { bid, reason });
    if (error) this.fail(scope ?? bid.bidder, error);
  }

  /** Records that `seat` made no bid for these imps because its call failed (`reason`, a `NonBidReason`). */
  rejectImps(seat: string, impIds: readonly string[], reason: number): void {
    const rejected = (this.journal.rejectedImps ??= []);
    for (const impId of impIds) rejected.push({ seat, impId, reason });
  }

  /** Asks for the module trace (from the body at entry, from the merged request once it is known). */
  traceAt(level: TraceLevel | undefined): void {
    this.trace = level;
    this.journal.traceLevel = level;
    if (level && !this.journal.trace) this.journal.trace = [];
  }

  /**
   * The context one module's hooks see: this context, plus the module's scratch space (kept for the whole request)
   * and its account settings. It reads through to this context, so what is resolved later is seen by every module.
   */
  hookContext(module: string): HookContext {
    let scope = (this.scopes ??= new Map()).get(module);
    if (!scope) {
      scope = new ModuleScope(this, module);
      this.scopes.set(module, scope);
    }
    return scope;
  }
}

/**
 * One module's view of a request context: its own scope, everything else read through (getters) from the context.
 * Not an object whose prototype is the context: V8 gives an object used as a prototype a hidden class of its own, and
 * every request's context would then be a new shape to each inline cache of the core that reads it.
 */
class ModuleScope implements HookContext {
  readonly moduleContext: Record<string, unknown> = {};
  readonly accountConfig: unknown;

  constructor(
    private readonly base: RequestContext,
    module: string,
  ) {
    this.accountConfig = moduleAccountConfig(base.account, module);
  }

  get endpoint(): EndpointName {
    return this.base.endpoint;
  }
  get receivedAt(): number {
    return this.base.receivedAt;
  }
  get secure(): boolean {
    return this.base.secure;
  }
  get requestId(): string {
    return this.base.requestId;
  }
  get logger(): PluginLogger {
    return this.base.logger;
  }
  get namespace(): Namespace {
    return this.base.namespace;
  }
  get tmax(): number {
    return this.base.tmax;
  }
  get deadline(): number {
    return this.base.deadline;
  }
  get accountId(): string {
    return this.base.accountId;
  }
  get account(): AccountSettings {
    return this.base.account;
  }
  get debug(): boolean {
    return this.base.debug;
  }
  get trace(): TraceLevel | undefined {
    return this.base.trace;
  }
  get privacy(): PrivacySignals {
    return this.base.privacy;
  }
  get currency(): string {
    return this.base.currency;
  }
  now(): number {
    return this.base.now();
  }
  warn(scope: string, warning: Warning): void {
    this.base.warn(scope, warning);
  }
  fail(bidder: string, error: BidderError): void {
    this.base.fail(bidder, error);
  }
  convertCurrency(amount: number, from: string, to: string): number | undefined {
    return this.base.convertCurrency(amount, from, to);
  }
  rejectBid(bid: AuctionBid, reason: number, error?: BidderError, scope?: string): void {
    this.base.rejectBid(bid, reason, error, scope);
  }
}

/** `hooks.modules.<vendor>.<module>` of the account, as Prebid Server keeps module settings per account. */
function moduleAccountConfig(account: AccountSettings, module: string): unknown {
  const hooks = account.hooks;
  if (!isJsonObject(hooks) || !isJsonObject(hooks.modules)) return undefined;
  const dot = module.indexOf('.');
  const vendor = hooks.modules[module.slice(0, dot)];
  return isJsonObject(vendor) ? vendor[module.slice(dot + 1)] : undefined;
}

/** The effective tmax: the request's, else the host default; never above the host maximum. */
function effectiveTmax(request: BidRequest, settings: ContextSettings): number {
  const asked = typeof request.tmax === 'number' && request.tmax > 0 ? request.tmax : settings.defaultTmaxMs;
  return Math.min(asked, settings.maxTmaxMs);
}

/** `ext.<ns>.trace` of a request, when it asks for a trace. */
export function traceLevelOf(request: { ext?: unknown }, namespace: Namespace): TraceLevel | undefined {
  const ext = isJsonObject(request.ext) ? request.ext[namespace] : undefined;
  const trace = isJsonObject(ext) ? ext.trace : undefined;
  return trace === 'basic' || trace === 'verbose' ? trace : undefined;
}

/** Prebid Server's warning for debug asked or not, but not given to the account: one object, read-only, for every answer. */
const ACCOUNT_DEBUG_DISABLED: Warning = Object.freeze({ code: 10002, message: 'debug turned off for account' });

/**
 * Debug output, as Prebid Server decides it: asked for by the request (`test: 1` or `ext.<ns>.debug`) and allowed
 * by the account (`debug_allow`), or forced by the host's override header whatever the account says. When the
 * account's debug is not in effect, the answer says so (`debug turned off for account`), as Prebid Server's does.
 */
function decideDebug(context: RequestContext, requested: boolean, account: AccountSettings): void {
  const crossOriginRefused = context.crossOriginCredentialed && account.debug_allow_cross_origin !== true;
  const accountDebug = requested && account.debug_allow === true && !crossOriginRefused;
  context.debug = accountDebug || context.debugOverride;
  if (!accountDebug && !context.debugOverride) {
    context.warn('general', requested && crossOriginRefused && account.debug_allow === true ? CROSS_ORIGIN_DEBUG_DISABLED : ACCOUNT_DEBUG_DISABLED);
  }
}

const CROSS_ORIGIN_DEBUG_DISABLED: Warning = Object.freeze({
  code: 10002,
  message: "debug turned off for a cross-origin request with cookies (the account's debug_allow_cross_origin allows it)",
});

/**
 * A request another site's page sent with the visitor's cookies: it carries a Cookie header and an Origin (or a
 * Sec-Fetch-Site) saying the page is not on this host.
 */
export function isCrossOriginCredentialed(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  if (!headers.cookie) return false;
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = headers.origin;
  if (typeof origin !== 'string' || origin === '' || origin === 'null') return origin === 'null';
  const host = headers['x-forwarded-host'] ?? headers.host;
  try {
    return new URL(origin).host !== String(host).split(',')[0]!.trim();
  } catch {
    return true;
  }
}

/**
 * Makes the request context an AuctionContext, once the request is merged: the one place a request's deadline is
 * computed. Every endpoint that runs an auction calls it with its merged request.
 */
export function resolveAuctionContext(
  context: RequestContext,
  request: BidRequest,
  namespace: Namespace,
  account: AccountSettings,
  settings: ContextSettings,
): AuctionContext {
  const options = isJsonObject(request.ext) && isJsonObject(request.ext[namespace]) ? (request.ext[namespace] as Record<string, unknown>) : undefined;
  context.namespace = namespace;
  context.tmax = effectiveTmax(request, settings);
  context.deadline = context.receivedAt + context.tmax;
  context.accountId = account.id;
  context.account = account;
  context.currency = Array.isArray(request.cur) && typeof request.cur[0] === 'string' ? request.cur[0] : (settings.currency ?? 'USD');
  decideDebug(context, request.test === 1 || options?.debug === true, account);
  context.traceAt(traceLevelOf(request, namespace));
  const hooks = account.hooks;
  const accountPlan = isJsonObject(hooks) && isJsonObject(hooks.execution_plan) ? (hooks.execution_plan as ExecutionPlanConfig) : undefined;
  if (accountPlan) context.plan = context.planner.planFor(context.endpoint, accountPlan);
  return context;
}
