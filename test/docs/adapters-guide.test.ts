/**
 * docs/adapters.md's command for running one adapter's tests (`npx mocha dist/adapters/acme/test/*.test.js`) runs
 * that adapter's tests and nothing else: the repository's full spec list lives in the `npm test` script, not in
 * .mocharc.json, where mocha would add it to any files named on the command line.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe("docs/adapters.md's test command", () => {
  it('runs only the named adapter test files', function () {
    this.timeout(60_000);
    const guide = readFileSync(join(ROOT, 'docs', 'adapters.md'), 'utf8');
    const command = guide.match(/^npx mocha dist\/adapters\/acme\/test\/\*\.test\.js$/m)?.[0];
    expect(command, 'the guide shows the command').to.be.a('string');
    // The guide's adapter is the scaffold's `acme`; the repository's own `ortb` stands in for it.
    const run = spawnSync('sh', ['-c', `${command!.replace('/acme/', '/ortb/')} --reporter json`], { cwd: ROOT, encoding: 'utf8', timeout: 55_000 });
    expect(run.status, run.stderr).to.equal(0);
    const report = JSON.parse(run.stdout) as { stats: { tests: number }; tests: Array<{ file: string }> };
    expect(report.stats.tests).to.be.greaterThan(0);
    const files = new Set(report.tests.map((test) => test.file.slice(ROOT.length)));
    expect([...files]).to.deep.equal(['dist/adapters/ortb/test/ortb.test.js']);
  });
});
