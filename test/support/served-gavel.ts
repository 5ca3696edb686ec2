import { spawn, type ChildProcess } from 'node:child_process';

/** A `gavel serve` running as its own process, its log read line by line. */
export interface ServedGavel {
  child: ChildProcess;
  /** The public listener's port, from its `gavel listening` line. */
  port: number;
  /** Every stdout line, parsed; a line that is not JSON is kept as `{ raw: line }`. */
  lines: Array<Record<string, unknown>>;
  /** Everything it wrote to stderr. */
  stderr(): string;
  /** Resolves with the first line (already written or to come) that matches, or rejects after `timeoutMs`. */
  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM to its process group; resolves when it exited. */
  stop(): Promise<void>;
}

/**
 * Starts a command that serves Gavel (`node cli.js serve ...`, `npx gavel serve ...`) in its own process group, and
 * resolves once it logs `gavel listening`.
 */
export function startServedGavel(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ServedGavel> {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<{ match: (line: Record<string, unknown>) => boolean; resolve: (line: Record<string, unknown>) => void }> = [];
  let partial = '';
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout!.on('data', (chunk: Buffer) => {
    partial += chunk.toString();
    for (let end = partial.indexOf('\n'); end >= 0; end = partial.indexOf('\n')) {
      const text = partial.slice(0, end);
      partial = partial.slice(end + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        line = { raw: text };
      }
      lines.push(line);
      for (const waiter of waiters.slice()) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const waitFor = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 10_000) => {
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (line: Record<string, unknown>) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const timer = setTimeout(() => {
        waiters.splice(waiters.indexOf(waiter), 1);
        reject(new Error(`no such log line within ${timeoutMs} ms; stdout: ${JSON.stringify(lines)}; stderr: ${stderr}`));
      }, timeoutMs);
      waiters.push(waiter);
    });
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await exited;
  };
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr}${JSON.stringify(lines)}`)));
    waitFor((line) => line.msg === 'gavel listening', 30_000).then(
      (listening) => resolve({ child, port: Number(listening.port), lines, stderr: () => stderr, waitFor, stop }),
      async (err: unknown) => {
        await stop();
        reject(err as Error);
      },
    );
  });
}
