import { expect } from 'chai';
import { applyDeviation, checkWithDeviation, FIXTURE_DEVIATIONS } from './fixture-deviations.js';

const label = 'exchange/multi-bids-error.json';
const recorded = () => ({
  response: { bids: { seatbid: [{ bid: [] }, { bid: [{ id: 'apn-bid', ext: { prebid: { targeting: { hb_pb_appnexus: '0.20' } } } }] }] } },
});

describe('fixture deviations', () => {
  it('every deviation says why, and every edit names the value it replaces', () => {
    for (const [name, deviation] of Object.entries(FIXTURE_DEVIATIONS)) {
      expect(deviation.reason, name).to.have.length.above(40);
      for (const edit of deviation.edits) expect(edit, `${name} ${edit.path}`).to.have.property('was');
    }
  });

  it('edits the expectation to what Gavel must answer, leaving the recorded fixture untouched', () => {
    const fixture = recorded();
    const applied = applyDeviation(label, fixture);
    expect(applied.stale).to.equal(undefined);
    expect(applied.reason).to.contain('reference-behaviour.md section 4');
    expect(applied.fixture.response.bids.seatbid[1].bid[0].ext.prebid.targeting.hb_pb_appnexus).to.equal('0.30');
    expect(fixture.response.bids.seatbid[1].bid[0].ext.prebid.targeting.hb_pb_appnexus).to.equal('0.20');
  });

  it('fails the fixture when the recorded value changed upstream: the deviation must be reviewed', async () => {
    const fixture = recorded();
    fixture.response.bids.seatbid[1].bid[0].ext.prebid.targeting.hb_pb_appnexus = '0.25';
    let checked = false;
    const outcome = await checkWithDeviation(label, fixture, async () => {
      checked = true;
      return { name: label, ok: true, diffs: [] };
    });
    expect(checked).to.equal(false);
    expect(outcome.ok).to.equal(false);
    expect(outcome.diffs[0]).to.contain('deviation no longer applies: /response/bids/seatbid/1/bid/0/ext/prebid/targeting/hb_pb_appnexus holds "0.25"');
  });

  it('reports a passing fixture with its deviation, and a failing one as failed', async () => {
    const passed = await checkWithDeviation(label, recorded(), async () => ({ name: label, ok: true, diffs: [] }));
    expect(passed).to.include({ ok: true });
    expect(passed.deviation).to.contain('exactly');
    const failed = await checkWithDeviation(label, recorded(), async () => ({ name: label, ok: false, diffs: ['x'] }));
    expect(failed.ok).to.equal(false);
  });

  it('leaves a fixture without a deviation as it is', () => {
    const fixture = recorded();
    expect(applyDeviation('exchange/other.json', fixture)).to.deep.equal({ fixture });
  });

  it('a fixture that needs a feature Gavel lacks is not run, and not counted as passed', async () => {
    const lacking = { 'exchange/some-feature.json': { reason: 'some feature is not built: this fixture cannot pass until it is', edits: [], notBuilt: true as const } };
    let checked = false;
    const outcome = await checkWithDeviation(
      'exchange/some-feature.json',
      {},
      async () => {
        checked = true;
        return { name: 'x', ok: true, diffs: [] };
      },
      lacking,
    );
    expect(checked).to.equal(false);
    expect(outcome.ok).to.equal(false);
    expect(outcome.notRun).to.contain('some feature is not built');
  });

  it('runs the fledge fixture now that auction configs are built', async () => {
    expect(FIXTURE_DEVIATIONS).to.not.have.property('exchange/fledge-with-bids.json');
    const outcome = await checkWithDeviation('exchange/fledge-with-bids.json', {}, async () => ({ name: 'x', ok: true, diffs: [] }));
    expect(outcome).to.deep.equal({ name: 'x', ok: true, diffs: [] });
  });
});
