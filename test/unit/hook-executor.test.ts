import { expect } from 'chai';
import { STAGES, type Hook, type HookResult, type RequestPayload, type Stage } from '../../core/api/index.js';
import { systemClock } from '../../core/app/tokens.js';
import { RequestContext, resolveAuctionContext } from '../../core/context/request-context.js';
import { runStage } from '../../core/hooks/executor.js';
import { ExecutionPlanner, type AvailableHooks, type StagePlan } from '../../core/hooks/plan.js';
import { silentLogger, testConfig } from '../support/gavel.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const noPlans = new ExecutionPlanner(new Map(), { defaultGroupTimeoutMs: 200 }, silentLogger);

/** A resolved request context with `tmax` ms to its deadline. */
function context(trace?: 'basic' | 'verbose', tmax = 1000): RequestContext {
  const entered = new RequestContext('auction', systemClock.now(), false, silentLogger, systemClock, noPlans);
  const request = { id: 'r', imp: [], tmax, ext: trace ? { svc: { trace } } : {} };
  resolveAuctionContext(entered, request, 'svc', { id: '' }, { defaultTmaxMs: 1000, maxTmaxMs: 3000 });
  return entered;
}

function plan(groups: Array<{ timeoutMs?: number; hooks: Array<[string, Hook<any>]> }>): StagePlan {
  return groups.map((group) => ({
    timeoutMs: group.timeoutMs ?? 100,
    hooks: group.hooks.map(([name, run]) => ({ module: `test.${name}`, hook: name, run: run as Hook })),
  }));
}

const payload = (): RequestPayload => ({ request: { id: 'r', imp: [], ext: { order: [] as string[] } } });
const appendOrder = (label: string) => (p: RequestPayload) => {
  (p.request.ext!.order as string[]).push(label);
};

describe('hook executor', () => {
  it('runs groups in sequence and applies changes in plan order, not completion order', async () => {
    const calls: string[] = [];
    const slow: Hook<any> = async () => {
      calls.push('slow:start');
      await sleep(30);
      calls.push('slow:end');
      return { action: 'update', changes: [appendOrder('slow')] } as HookResult<RequestPayload>;
    };
    const fast: Hook<any> = async () => {
      calls.push('fast');
      return { action: 'update', changes: [appendOrder('fast')] } as HookResult<RequestPayload>;
    };
    const second: Hook<any> = (p) => {
      calls.push(`second saw ${(p as RequestPayload).request.ext!.order}`);
      return { action: 'update', changes: [appendOrder('second')] } as HookResult<RequestPayload>;
    };
    const outcome = await runStage('raw-auction-request', plan([{ hooks: [['slow', slow], ['fast', fast]] }, { hooks: [['second', second]] }]), payload(), context());
    expect(outcome.payload.request.ext!.order).to.deep.equal(['slow', 'fast', 'second']);
    expect(calls).to.deep.equal(['slow:start', 'fast', 'slow:end', 'second saw slow,fast']);
  });

  it('stays synchronous when every hook is synchronous', () => {
    const outcome = runStage('raw-auction-request', plan([{ hooks: [['a', () => ({ action: 'update', changes: [appendOrder('a')] }) as HookResult<RequestPayload>]] }]), payload(), context());
    expect(outcome).to.not.be.instanceOf(Promise);
    expect((outcome as { payload: RequestPayload }).payload.request.ext!.order).to.deep.equal(['a']);
  });

  it('ignores a hook that overruns its time box or throws, and records both in the trace', async () => {
    const request = context('basic');
    const hang: Hook<any> = () => new Promise(() => undefined);
    const boom: Hook<any> = () => {
      throw new Error('boom');
    };
    const good: Hook<any> = () => ({ action: 'update', changes: [appendOrder('good')] }) as HookResult<RequestPayload>;
    const started = Date.now();
    const outcome = await runStage('raw-auction-request', plan([{ timeoutMs: 40, hooks: [['hang', hang], ['boom', boom], ['good', good]] }]), payload(), request);
    expect(Date.now() - started).to.be.below(200);
    expect(outcome.payload.request.ext!.order).to.deep.equal(['good']);
    expect(request.journal.trace!.map((entry) => [entry.hook, entry.status])).to.deep.equal([
      ['hang', 'timeout'],
      ['boom', 'failure'],
      ['good', 'success'],
    ]);
  });

  it('never lets a group run past the request deadline, whatever its own time box', async () => {
    const hang: Hook<any> = () => new Promise(() => undefined);
    const started = Date.now();
    await runStage('raw-auction-request', plan([{ timeoutMs: 5000, hooks: [['hang', hang]] }]), payload(), context(undefined, 60));
    expect(Date.now() - started).to.be.within(40, 400);
  });

  it('a reject at a request stage stops the stage; later stages cannot reject', async () => {
    const reject: Hook<any> = () => ({ action: 'reject', nbr: 2 });
    const after: Hook<any> = () => ({ action: 'update', changes: [appendOrder('after')] }) as HookResult<RequestPayload>;
    const early = await runStage('processed-auction-request', plan([{ hooks: [['reject', reject]] }, { hooks: [['after', after]] }]), payload(), context());
    expect(early.rejection?.nbr).to.equal(2);
    expect(early.payload.request.ext!.order).to.deep.equal([]);
    const request = context('basic');
    const late = await runStage('auction-response', plan([{ hooks: [['reject', reject]] }]), { request: payload().request, response: { id: 'r' } }, request);
    expect(late.rejection).to.equal(undefined);
    expect(request.journal.trace![0]!.message).to.match(/cannot reject/);
  });

  it('gives each module its own scratch space for the whole request, reading through to the request context', async () => {
    const request = context();
    const write: Hook<any> = (_p, ctx) => {
      ctx.moduleContext.seen = (ctx.moduleContext.seen as number | undefined ?? 0) + 1;
      return undefined;
    };
    await runStage('raw-auction-request', plan([{ hooks: [['a', write]] }]), payload(), request);
    await runStage('processed-auction-request', plan([{ hooks: [['a', write]] }]), payload(), request);
    expect(request.hookContext('test.a').moduleContext.seen).to.equal(2);
    expect(request.hookContext('test.b').moduleContext.seen).to.equal(undefined);
    expect(request.hookContext('test.a').deadline).to.equal(request.deadline);
  });

  it('shows a module what the request context resolves after its scope was made, and reports through it', () => {
    const request = context();
    const scope = request.hookContext('test.a');
    request.currency = 'EUR';
    request.convertCurrency = (amount, from, to) => (from === 'USD' && to === 'EUR' ? amount * 0.5 : undefined);
    expect(scope.currency).to.equal('EUR');
    expect(scope.convertCurrency(4, 'USD', 'EUR')).to.equal(2);
    scope.warn('prebid', { code: 10999, message: 'from a module' });
    scope.fail('alpha', { code: 2, message: 'bad' });
    expect(request.journal.warnings!.prebid![0]!.message).to.equal('from a module');
    expect(request.journal.errors!.alpha![0]!.message).to.equal('bad');
    // The scope is not an object whose prototype is the context (which would give each context a shape of its own).
    expect(Object.getPrototypeOf(scope)).to.not.equal(request);
  });
});

describe('execution plans', () => {
  const hookA: Hook<any> = () => undefined;
  const available: AvailableHooks = new Map<string, Partial<Record<Stage, Record<string, Hook>>>>([
    ['acme.first', { 'raw-auction-request': { core: hookA } }],
    ['acme.extra', { 'raw-auction-request': { extra: hookA }, 'bidder-request': { check: hookA } }],
  ]);
  const planner = (hooks: Record<string, unknown> = {}) => new ExecutionPlanner(available, testConfig({ hooks }).hooks, silentLogger);
  const groupOf = (module: string, hook: string, timeout?: number) => ({ ...(timeout ? { timeout } : {}), hook_sequence: [{ module_code: module, hook_impl_code: hook }] });

  it('without a plan, runs each enabled module\'s hooks at every endpoint, in module order', () => {
    const plans = planner();
    expect(plans.planFor('auction')['raw-auction-request'].map((group) => group.hooks.map((hook) => hook.module))).to.deep.equal([['acme.first'], ['acme.extra']]);
    expect(plans.planFor('amp')['bidder-request'][0]!.hooks[0]!.hook).to.equal('check');
  });

  it('takes Prebid Server\'s plan shape: a planned stage runs exactly the groups listed, in order, `_` spellings included', () => {
    const plans = planner({
      hostExecutionPlan: { endpoints: { '/openrtb2/auction': { stages: { raw_auction_request: { groups: [{ timeout: 5, hook_sequence: [{ module_code: 'acme.extra', hook_impl_code: 'extra' }, { module_code: 'acme.first', hook_impl_code: 'core' }] }] } } } } },
    });
    const stage = plans.planFor('auction')['raw-auction-request'];
    expect(stage).to.have.length(1);
    expect(stage[0]!.hooks.map((hook) => hook.module)).to.deep.equal(['acme.extra', 'acme.first']);
    expect(stage[0]!.timeoutMs).to.equal(5);
    // Other endpoints keep the default.
    expect(plans.planFor('amp')['raw-auction-request']).to.have.length(2);
  });

  it('runs the host plan, then the account\'s own plan (or the default account plan), as Prebid Server does', () => {
    const plans = planner({
      hostExecutionPlan: { endpoints: { '/openrtb2/auction': { stages: { 'raw-auction-request': { groups: [groupOf('acme.first', 'core')] } } } } },
      defaultAccountExecutionPlan: { endpoints: { '/openrtb2/auction': { stages: { 'raw-auction-request': { groups: [groupOf('acme.extra', 'extra')] } } } } },
    });
    const modules = (endpointPlan: ReturnType<ExecutionPlanner['planFor']>) => endpointPlan['raw-auction-request'].map((group) => group.hooks[0]!.module);
    expect(modules(plans.planFor('auction'))).to.deep.equal(['acme.first', 'acme.extra']);
    const accountPlan = { endpoints: { '/openrtb2/auction': { stages: { 'raw-auction-request': { groups: [groupOf('acme.first', 'any-label')] } } } } };
    expect(modules(plans.planFor('auction', accountPlan))).to.deep.equal(['acme.first', 'acme.first']);
    expect(plans.planFor('auction', accountPlan)).to.equal(plans.planFor('auction', accountPlan), 'compiled once per account plan');
  });

  it('an account plan naming an unknown hook skips it (an account cannot stop the server)', () => {
    const accountPlan = { endpoints: { '/openrtb2/auction': { stages: { 'raw-auction-request': { groups: [groupOf('acme.nope', 'x')] } } } } };
    expect(planner().planFor('auction', accountPlan)['raw-auction-request']).to.deep.equal([]);
  });

  it('a host plan naming an unknown module or hook is a boot error with a code', () => {
    const plan = (module: string, hook: string, stage: string) => ({ hostExecutionPlan: { endpoints: { '/openrtb2/auction': { stages: { [stage]: { groups: [groupOf(module, hook)] } } } } } });
    expect(() => planner(plan('acme.nope', 'x', 'raw-auction-request'))).to.throw().with.property('code', 'GAVEL_E_HOOK_UNKNOWN');
    expect(() => planner(plan('acme.extra', 'extra', 'exitpoint'))).to.throw().with.property('code', 'GAVEL_E_HOOK_UNKNOWN');
  });

  it('every stage of the closed list has a plan entry', () => {
    expect(Object.keys(planner().planFor('video')).sort()).to.deep.equal([...STAGES].sort());
    expect(STAGES).to.have.length(8);
  });
});
