import { expect } from 'chai';
import { STAGES } from '../../../core/api/index.js';
import validationModule from '../index.js';
import { testDeps, validate, validRequest, withRequest } from './support.js';

describe('gavel.validation: module', () => {
  it('is a module with one validate-request hook', () => {
    expect(validationModule.kind).to.equal('module');
    expect(validationModule.code).to.equal('gavel.validation');
    expect(validationModule.stages).to.deep.equal(['validate-request']);
    expect(STAGES).to.include('validate-request');
    const hooks = validationModule.create({}, testDeps());
    expect(Object.keys(hooks)).to.deep.equal(['validate-request']);
    expect(Object.keys(hooks['validate-request'] ?? {})).to.deep.equal(['validate']);
  });

  it('answers nothing for a clean request, so the executor has nothing to do', () => {
    expect(validate(validRequest())).to.equal(undefined);
  });

  it('rejects with the 400 lines and keeps warnings beside them', () => {
    const result = validate(withRequest((r) => { r.imp[0].ext.mystery = {}; r.tmax = -1; }));
    expect(result?.action).to.equal('reject');
    expect(result?.invalid).to.deep.equal(['request.tmax must be nonnegative. Got -1']);
    expect(result?.warnings?.general).to.have.length(1);
    expect(result?.changes).to.equal(undefined);
  });

  it('never edits the payload it is given', () => {
    const request = withRequest((r) => { r.imp[0].ext.mystery = {}; });
    const before = structuredClone(request);
    validate(request);
    expect(request).to.deep.equal(before);
  });

  it('does not crash on odd shapes', () => {
    const odd = [null, 42, 'text', { imp: 'x' }, { id: 'r', imp: [null, 3, { id: 'i', banner: 'b', ext: [] }] },
      { id: 'r', site: [], device: 'd', regs: 1, user: [], imp: [{ id: 'i', native: { request: 5 }, pmp: { deals: 'x' } }] }];
    for (const request of odd) expect(validate(request)?.action).to.equal('reject');
  });
});
