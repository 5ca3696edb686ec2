import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { run } from '../harness/video-runner.js';

const here = (folder: string) => fileURLToPath(new URL(`./${folder}/`, import.meta.url));

describe('video fixture runner (conformance-cli video)', () => {
  it('passes every sample we wrote: valid ones answered per pod with cached VAST, invalid ones a 400 naming the field', async () => {
    const outcomes = await run([here('samples')]);
    expect(outcomes.map((outcome) => outcome.name)).to.deep.equal([
      'invalid_app_without_id_or_bundle.json',
      'invalid_negative_tmax.json',
      'invalid_protocols.json',
      'invalid_site_and_app.json',
      'valid_app_two_pods.json',
      'valid_gdpr_without_consent.json',
      'valid_one_pod_dropped.json',
      'valid_tmax_too_short.json',
      'valid_us_privacy_invalid.json',
      'video_invalid_no_pods.json',
    ]);
    for (const outcome of outcomes) expect(outcome.diffs, outcome.name).to.deep.equal([]);
  });

  it('fails samples whose expectation does not hold', async () => {
    const outcomes = await run([here('runner-self-check')]);
    expect(outcomes).to.have.length(3);
    for (const outcome of outcomes) expect(outcome.ok, `${outcome.name} should fail`).to.equal(false);
    const byName = Object.fromEntries(outcomes.map((outcome) => [outcome.name, outcome.diffs.join('\n')]));
    expect(byName['invalid_but_expects_200.json']).to.include('status: expected 200, got 400');
    expect(byName['invalid_sample_that_is_valid.json']).to.include('status: expected 400, got 200');
    expect(byName['wrong_message.json']).to.include('expected to contain "request missing required field: PodConfig.Pods"');
  });
});
