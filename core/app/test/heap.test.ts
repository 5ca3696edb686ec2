import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { HEAP_GROWING_PERCENT, heapGrowthFlag, NODE_FLAGS, SEMI_SPACE_FLAG, workerExecArgv } from '../heap.js';

const repoFile = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), 'utf8');

describe('heap sizing', () => {
  it('gives a worker the flags its parent lacks, after those it has', () => {
    expect(workerExecArgv(['--enable-source-maps'], '')).to.deep.equal(['--enable-source-maps', ...NODE_FLAGS]);
    expect(NODE_FLAGS).to.include(SEMI_SPACE_FLAG);
  });

  it('leaves a heap setting the host chose, however spelt, on the command line or in NODE_OPTIONS', () => {
    const growth = `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
    expect(workerExecArgv(['--max-semi-space-size=32'], '')).to.deep.equal(['--max-semi-space-size=32', growth]);
    expect(workerExecArgv(['--max_semi_space_size=32'], '')).to.deep.equal(['--max_semi_space_size=32', growth]);
    expect(workerExecArgv([], '--max-old-space-size=512 --max-semi-space-size=2 --heap-growing-percent=50')).to.deep.equal([]);
  });

  it('bounds the old generation growth unless the host set it', () => {
    expect(heapGrowthFlag([], '')).to.equal(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--heap-growing-percent=50'], '')).to.equal(undefined);
    expect(heapGrowthFlag([], '--heap_growing_percent=50')).to.equal(undefined);
  });

  it('starts the server with the flags from npm start and from the gavel command', () => {
    const start = (JSON.parse(repoFile('package.json')) as { scripts: Record<string, string> }).scripts.start!;
    const shebang = repoFile('core/app/cli.ts').split('\n')[0]!;
    expect(shebang.startsWith('#!/usr/bin/env -S node ')).to.equal(true);
    for (const flag of NODE_FLAGS) {
      expect(start.split(' '), 'npm start').to.include(flag);
      expect(shebang.split(' '), 'the gavel command').to.include(flag);
    }
  });
});
