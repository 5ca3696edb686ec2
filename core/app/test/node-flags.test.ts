import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { HEAP_GROWING_PERCENT, INLINING_BUDGET_BYTES, missingRuntimeFlags, NODE_FLAGS, SEMI_SPACE_FLAG, workerExecArgv } from '../node-flags.js';

const repoFile = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), 'utf8');

const growth = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
const inlining = `--max-inlined-bytecode-size-cumulative=${INLINING_BUDGET_BYTES}`;

describe('node flags', () => {
  it('are the young generation size, the old generation growth bound and the inlining budget', () => {
    expect(NODE_FLAGS).to.deep.equal([SEMI_SPACE_FLAG, growth, inlining]);
  });

  it('gives a worker the flags its parent lacks, after those it has', () => {
    expect(workerExecArgv(['--enable-source-maps'], '')).to.deep.equal(['--enable-source-maps', ...NODE_FLAGS]);
  });

  it('leaves a flag the host chose, however spelt, on the command line or in NODE_OPTIONS', () => {
    expect(workerExecArgv(['--max-semi-space-size=32'], '')).to.deep.equal(['--max-semi-space-size=32', growth, inlining]);
    expect(workerExecArgv(['--max_semi_space_size=32'], '')).to.deep.equal(['--max_semi_space_size=32', growth, inlining]);
    expect(workerExecArgv([], `--max-old-space-size=512 --max-semi-space-size=2 --heap-growing-percent=50 ${inlining}`)).to.deep.equal([]);
  });

  it('sets at run time only the settable flags the process started without', () => {
    expect(missingRuntimeFlags([SEMI_SPACE_FLAG], '')).to.deep.equal([growth, inlining]);
    expect(missingRuntimeFlags(['--heap-growing-percent=50'], '')).to.deep.equal([inlining]);
    expect(missingRuntimeFlags([], '--heap_growing_percent=50 --max-inlined-bytecode-size-cumulative=920')).to.deep.equal([]);
  });

  it('starts the server with them from npm start and from the gavel command', () => {
    const start = (JSON.parse(repoFile('package.json')) as { scripts: Record<string, string> }).scripts.start!;
    const shebang = repoFile('core/app/cli.ts').split('\n')[0]!;
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).to.equal(true);
    for (const flag of NODE_FLAGS) {
      expect(start.split(' '), 'npm start').to.include(flag);
      expect(shebang.split(' '), 'the gavel command').to.include(flag);
    }
  });
});
