import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../../core/app/cli.js', import.meta.url));

/** A log line of a served Gavel, parsed (lines that are not JSON are kept as `{msg: <text>}`). */
export type LogLine = Record<string, unknown> & { msg?: string };

/** `gavel serve` in a child process, its log lines collected as they come. */
export interface ServedGavel {
  child: ChildProcess;
  configFile: string;
  url: string;
  admin: string;
  lines: LogLine[];
  /** Resolves with the first line (already seen or to come) that matches; rejects after `withinMs`. */
  waitForLine(matches: (line: LogLine) => boolean, withinMs?: number): Promise<LogLine>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Writes `configText` to a file and serves it; resolves once the public and admin listeners logged their ports (only
 * the admin listener with `adminOnly`: a cluster whose workers cannot boot has no public one).
 */
export async function serveGavel(configText: string, options: { env?: Record<string, string>; adminOnly?: boolean } = {}): Promise<ServedGavel> {
  const env = options.env ?? {};
  const configFile = join(mkdtempSync(join(tmpdir(), 'gavel-served-')), 'gavel.yaml');
  writeFileSync(configFile, configText);
  const child = spawn(process.execPath, [cli, 'serve', '--config', configFile], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: LogLine[] = [];
  const waiters = new Set<{ matches: (line: LogLine) => boolean; resolve: (line: LogLine) => void }>();
  const take = (text: string) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { msg: text };
    }
    lines.push(line);
    for (const waiter of waiters) {
      if (!waiter.matches(line)) continue;
      waiters.delete(waiter);
      waiter.resolve(line);
    }
  };
  createInterface({ input: child.stdout! }).on('line', take);
  createInterface({ input: child.stderr! }).on('line', take);

  const waitForLine = (matches: (line: LogLine) => boolean, withinMs = 10_000) => {
    const seen = lines.find(matches);
    if (seen) return Promise.resolve(seen);
    return new Promise<LogLine>((resolve, reject) => {
      const waiter = { matches, resolve: (line: LogLine) => (clearTimeout(timer), resolve(line)) };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching log line within ${withinMs} ms; lines:\n${lines.map((line) => JSON.stringify(line)).join('\n')}`));
      }, withinMs);
      waiters.add(waiter);
    });
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const failed = exited.then(() => {
    throw new Error(`gavel exited before listening:\n${lines.map((line) => JSON.stringify(line)).join('\n')}`);
  });
  const [admin, listening] = await Promise.race([
    Promise.all([
      waitForLine((line) => line.msg === 'admin endpoints listening', 30_000),
      options.adminOnly ? Promise.resolve(undefined) : waitForLine((line) => line.msg === 'gavel listening', 30_000),
    ]),
    failed,
  ]);
  failed.catch(() => undefined);
  return {
    child,
    configFile,
    url: listening ? `http://127.0.0.1:${String(listening.port)}` : '',
    admin: `http://127.0.0.1:${String(admin.port)}`,
    lines,
    waitForLine,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
