import { expect } from 'chai';
import { allowedDurations, fitDuration, podImpDurations } from '../../core/video/durations.js';

describe('video durations', () => {
  describe('allowedDurations', () => {
    it('sorts the allowed durations and drops repeats', () => {
      expect(allowedDurations([30, 15, 30, 60])).to.deep.equal([15, 30, 60]);
    });
  });

  describe('podImpDurations (pod -> imps)', () => {
    it('makes floor(pod / shortest) imps, each capped at the longest duration, when durations are not exact', () => {
      expect(podImpDurations(70, [15, 30], false)).to.deep.equal([
        { maxduration: 30 }, { maxduration: 30 }, { maxduration: 30 }, { maxduration: 30 },
      ]);
    });

    it('makes no imp for a pod shorter than the shortest duration', () => {
      expect(podImpDurations(10, [15, 30], false)).to.deep.equal([]);
    });

    it('shares the imps out among exact durations in order, the last duration taking the remainder', () => {
      const durations = podImpDurations(75, [15, 30], true).map((imp) => [imp.minduration, imp.maxduration]);
      // floor(75 / 15) = 5 imps, floor(5 / 2) = 2 per duration, the fifth falls to the last duration.
      expect(durations).to.deep.equal([[15, 15], [15, 15], [30, 30], [30, 30], [30, 30]]);
    });

    it('gives exact durations at least one imp each, even when the pod is short', () => {
      const durations = podImpDurations(20, [15, 30, 60], true).map((imp) => imp.maxduration);
      expect(durations).to.deep.equal([15, 30, 60]);
    });

    it('a single exact duration: every imp asks for it', () => {
      expect(podImpDurations(150, [30], true)).to.have.length(5).and.to.deep.include({ minduration: 30, maxduration: 30 });
    });
  });

  describe('fitDuration (bid -> allowed duration)', () => {
    const allowed = [15, 30];

    it('rounds a bid up to the nearest allowed duration', () => {
      expect(fitDuration(10, allowed, false)).to.deep.equal({ ok: true, seconds: 15 });
      expect(fitDuration(18, allowed, false)).to.deep.equal({ ok: true, seconds: 30 });
      expect(fitDuration(30, allowed, false)).to.deep.equal({ ok: true, seconds: 30 });
    });

    it('rejects a bid longer than the longest allowed duration', () => {
      const fit = fitDuration(45, allowed, false);
      expect(fit.ok).to.equal(false);
      expect(fit).to.have.property('reason').that.includes('longer than the longest allowed duration');
    });

    it('with exact durations, accepts only a listed duration', () => {
      expect(fitDuration(15, allowed, true)).to.deep.equal({ ok: true, seconds: 15 });
      const fit = fitDuration(18, allowed, true);
      expect(fit.ok).to.equal(false);
      expect(fit).to.have.property('reason').that.includes('requires an exact duration');
    });

    it('counts a bid with no duration as 0 s: the shortest slot, or rejected when exact', () => {
      expect(fitDuration(undefined, allowed, false)).to.deep.equal({ ok: true, seconds: 15 });
      expect(fitDuration(undefined, allowed, true).ok).to.equal(false);
    });

    it('rejects negative and non-finite durations', () => {
      expect(fitDuration(-5, allowed, false).ok).to.equal(false);
      expect(fitDuration(Number.NaN, allowed, false).ok).to.equal(false);
    });
  });
});
