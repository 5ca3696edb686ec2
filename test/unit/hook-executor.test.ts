import { expect } from 'chai';
import type { Hook, HookResult, RequestPayload, Stage } from '../../core/api/index.js';
import { HookRequestState, runStage } from '../../core/hooks/executor.js';
import { buildExecutionPlans, type AvailableHooks, type StagePlan } from '../../core/hooks/plan.js';
import { silentLogger, testConfig } from '../support/gavel.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function state(trace?: 'basic' | 'verbose'): HookRequestState {
  return new HookRequestState({ endpoint: 'auction', namespace: 'svc', deadline: Date.now() + 1000, secure: false, logger: silentLogger }, trace);
}

function plan(groups: Array<{ timeoutMs?: number; hooks: Array<[string, Hook<any>]> }>): StagePlan {
  return groups.map((group) => ({
    timeoutMs: group.timeoutMs ?? 100,
    hooks: group.hooks.map(([name, run]) => ({ module: `test.${name}`, hook: name, run: run as Hook, builtIn: false })),
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
    const outcome = await runStage('raw-auction-request', plan([{ hooks: [['slow', slow], ['fast', fast]] }, { hooks: [['second', second]] }]), payload(), state(), silentLogger);
    expect(outcome.payload.request.ext!.order).to.deep.equal(['slow', 'fast', 'second']);
    expect(calls).to.deep.equal(['slow:start', 'fast', 'slow:end', 'second saw slow,fast']);
  });

  it('stays synchronous when every hook is synchronous', () => {
    const outcome = runStage('raw-auction-request', plan([{ hooks: [['a', () => ({ action: 'update', changes: [appendOrder('a')] }) as HookResult<RequestPayload>]] }]), payload(), state(), silentLogger);
    expect(outcome).to.not.be.instanceOf(Promise);
    expect((outcome as { payload: RequestPayload }).payload.request.ext!.order).to.deep.equal(['a']);
  });

  it('ignores a hook that overruns its time box or throws, and records both in the trace', async () => {
    const hookState = state('basic');
    const hang: Hook<any> = () => new Promise(() => undefined);
    const boom: Hook<any> = () => {
      throw new Error('boom');
    };
    const good: Hook<any> = () => ({ action: 'update', changes: [appendOrder('good')] }) as HookResult<RequestPayload>;
    const started = Date.now();
    const outcome = await runStage('raw-auction-request', plan([{ timeoutMs: 40, hooks: [['hang', hang], ['boom', boom], ['good', good]] }]), payload(), hookState, silentLogger);
    expect(Date.now() - started).to.be.below(200);
    expect(outcome.payload.request.ext!.order).to.deep.equal(['good']);
    expect(hookState.trace!.map((entry) => [entry.hook, entry.status])).to.deep.equal([
      ['hang', 'timeout'],
      ['boom', 'failure'],
      ['good', 'success'],
    ]);
  });

  it('a reject at a request stage stops the stage; later stages cannot reject', async () => {
    const reject: Hook<any> = () => ({ action: 'reject', nbr: 2 });
    const after: Hook<any> = () => ({ action: 'update', changes: [appendOrder('after')] }) as HookResult<RequestPayload>;
    const early = await runStage('processed-auction-request', plan([{ hooks: [['reject', reject]] }, { hooks: [['after', after]] }]), payload(), state(), silentLogger);
    expect(early.rejection?.nbr).to.equal(2);
    expect(early.payload.request.ext!.order).to.deep.equal([]);
    const hookState = state('basic');
    const late = await runStage('auction-response', plan([{ hooks: [['reject', reject]] }]), { request: payload().request, response: { id: 'r' } }, hookState, silentLogger);
    expect(late.rejection).to.equal(undefined);
    expect(hookState.trace![0]!.message).to.match(/cannot reject/);
  });

  it('validate-request rejections carry the 400 messages', async () => {
    const invalid: Hook<any> = () => ({ action: 'reject', invalid: ['request.id is required'] });
    const outcome = await runStage('validate-request', plan([{ hooks: [['v', invalid]] }]), payload(), state(), silentLogger);
    expect(outcome.invalid).to.deep.equal(['request.id is required']);
  });
});

describe('execution plans', () => {
  const hookA: Hook<any> = () => undefined;
  const available: AvailableHooks = new Map<string, { builtIn: boolean; hooks: Partial<Record<Stage, Record<string, Hook>>> }>([
    ['gavel.core', { builtIn: true, hooks: { 'raw-auction-request': { core: hookA } } }],
    ['acme.extra', { builtIn: false, hooks: { 'raw-auction-request': { extra: hookA }, 'bidder-request': { check: hookA } } }],
  ]);

  it('by default runs built-ins first, then each enabled module, at every endpoint', () => {
    const plans = buildExecutionPlans(testConfig(), available);
    expect(plans.auction['raw-auction-request'].map((group) => group.hooks.map((hook) => hook.module))).to.deep.equal([['gavel.core'], ['acme.extra']]);
    expect(plans.amp['bidder-request'][0]!.hooks[0]!.hook).to.equal('check');
  });

  it('a configured stage runs exactly the groups listed, in order', () => {
    const config = testConfig({ hooks: { plans: { auction: { 'raw-auction-request': [{ timeoutMs: 5, hooks: [{ module: 'acme.extra', hook: 'extra' }, { module: 'gavel.core', hook: 'core' }] }] } } } });
    const plans = buildExecutionPlans(config, available);
    expect(plans.auction['raw-auction-request']).to.have.length(1);
    expect(plans.auction['raw-auction-request'][0]!.hooks.map((hook) => hook.module)).to.deep.equal(['acme.extra', 'gavel.core']);
    expect(plans.auction['raw-auction-request'][0]!.timeoutMs).to.equal(5);
  });

  it('a plan naming an unknown module or hook is a boot error with a code', () => {
    const missingModule = testConfig({ hooks: { plans: { auction: { 'raw-auction-request': [{ hooks: [{ module: 'acme.nope', hook: 'x' }] }] } } } });
    expect(() => buildExecutionPlans(missingModule, available)).to.throw().with.property('code', 'GAVEL_E_HOOK_UNKNOWN');
    const wrongStage = testConfig({ hooks: { plans: { auction: { 'exitpoint': [{ hooks: [{ module: 'acme.extra', hook: 'extra' }] }] } } } });
    expect(() => buildExecutionPlans(wrongStage, available)).to.throw().with.property('code', 'GAVEL_E_HOOK_UNKNOWN');
  });

  it('every stage of the closed list has a plan entry', () => {
    const plans = buildExecutionPlans(testConfig(), available);
    const stages: Stage[] = Object.keys(plans.video) as Stage[];
    expect(stages).to.have.length(13);
  });
});
