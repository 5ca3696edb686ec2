import { expect } from 'chai';
import { allowedDurations, podImpDurations } from '../../core/video/durations.js';

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

    it('reads exact durations as given, neither sorted nor rid of repeats (reference behaviour 9)', () => {
      // floor(60 / 15) = 4 imps, 2 per duration, in the request's order.
      expect(podImpDurations(60, [30, 15], true).map((imp) => imp.maxduration)).to.deep.equal([30, 30, 15, 15]);
      // A repeat counts: max(floor(30 / 15), 3) = 3 imps, one per listed duration.
      expect(podImpDurations(30, [15, 15, 30], true).map((imp) => [imp.minduration, imp.maxduration])).to.deep.equal([[15, 15], [15, 15], [30, 30]]);
    });

    it('takes the shortest and longest of an unsorted list when durations are not exact', () => {
      expect(podImpDurations(60, [30, 15], false)).to.deep.equal([{ maxduration: 30 }, { maxduration: 30 }, { maxduration: 30 }, { maxduration: 30 }]);
    });

    it('a single exact duration: every imp asks for it', () => {
      expect(podImpDurations(150, [30], true)).to.have.length(5).and.to.deep.include({ minduration: 30, maxduration: 30 });
    });
  });
});
