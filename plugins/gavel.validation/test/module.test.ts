import { expect } from 'chai';
import validationModule from '../index.js';
import { validate, validRequest, withRequest } from './support.js';

describe('gavel.validation: module', () => {
  it('is a module that provides the request-validation service and hooks no stage', () => {
    expect(validationModule.kind).to.equal('module');
    expect(validationModule.code).to.equal('gavel.validation');
    expect(Object.keys(validationModule.provides ?? {})).to.deep.equal(['request-validation']);
    expect(validationModule.stages).to.equal(undefined);
    expect(validationModule.create).to.equal(undefined);
  });

  it('finds nothing to say or do for a clean request', () => {
    expect(validate(validRequest())).to.equal(undefined);
  });

  it('rejects with the 400 lines, keeps warnings beside them, and leaves an invalid request as it came', () => {
    const request = withRequest((r) => { r.imp[0].ext.mystery = {}; r.tmax = -1; });
    const result = validate(request);
    expect(result?.action).to.equal('reject');
    expect(result?.invalid).to.deep.equal(['request.tmax must be nonnegative. Got -1']);
    expect(result?.warnings?.general).to.have.length(1);
    expect(result?.request).to.deep.equal(request);
  });

  it('normalises a valid request in place (trimming request.cur to the one currency the auction runs in)', () => {
    const result = validate(withRequest((r) => { r.cur = ['EUR', 'USD']; }));
    expect(result?.action).to.equal('update');
    expect(result?.request.cur).to.deep.equal(['EUR']);
  });

  it('keeps an imp.ext key that names no bidder, with only a warning', () => {
    const result = validate(withRequest((r) => { r.imp[0].ext.mystery = {}; }));
    expect(result?.action).to.not.equal('reject');
    expect(result?.warnings?.general).to.have.length(1);
  });

  it('does not crash on odd shapes', () => {
    const odd = [null, 42, 'text', { imp: 'x' }, { id: 'r', imp: [null, 3, { id: 'i', banner: 'b', ext: [] }] },
      { id: 'r', site: [], device: 'd', regs: 1, user: [], imp: [{ id: 'i', native: { request: 5 }, pmp: { deals: 'x' } }] }];
    for (const request of odd) expect(validate(request)?.action).to.equal('reject');
  });
});
