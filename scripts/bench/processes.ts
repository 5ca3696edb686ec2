import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** A failure that makes the benchmark meaningless: reported plainly, exit code 1. */
export class BenchFailure extends Error {}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** True when the module at `moduleUrl` is the script node was started with (entry-point files double as libraries). */
export function isEntryPoint(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === moduleUrl;
}

export function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** `taskset -c <cpus>` in front of a command, when pinning is on; taskset execs the command, so the pid stays the command's. */
export function pinnedCommand(cpus: string | undefined, command: string, args: string[]): [string, string[]] {
  return cpus === undefined ? [command, args] : ['taskset', ['-c', cpus, command, ...args]];
}

export interface ManagedProcess {
  name: string;
  pid: number;
  logFile: string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  isRunning(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  logTail(lines?: number): string;
}

/**
 * Every process the benchmark starts, so that none outlives it: stopped one by one at the end, and sent SIGTERM if
 * the benchmark itself exits early.
 */
export class ProcessGroup {
  private readonly running = new Set<ChildProcess>();

  constructor(private readonly logDir: string) {
    process.on('exit', () => {
      for (const child of this.running) child.kill('SIGTERM');
    });
  }

  spawn(name: string, command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ManagedProcess {
    const logFile = join(this.logDir, `${name}.log`);
    const logFd = openSync(logFile, 'a');
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', logFd, logFd] });
    closeSync(logFd);
    if (child.pid === undefined) throw new BenchFailure(`could not start ${name} (${command})`);
    this.running.add(child);
    let running = true;
    const exited = new Promise<number | string>((resolve) => {
      child.once('exit', (code, signal) => {
        running = false;
        this.running.delete(child);
        resolve(code ?? signal ?? 'unknown');
      });
      child.once('error', () => {
        running = false;
        this.running.delete(child);
        resolve('spawn-error');
      });
    });
    return {
      name,
      pid: child.pid,
      logFile,
      exited,
      isRunning: () => running,
      async stop(graceMs = 5000) {
        if (!running) return;
        child.kill('SIGTERM');
        const stopped = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
        if (!stopped) {
          child.kill('SIGKILL');
          await exited;
        }
      },
      logTail(lines = 20) {
        try {
          return readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
        } catch {
          return '';
        }
      },
    };
  }

  async stopAll(): Promise<void> {
    for (const child of [...this.running]) {
      child.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** Fails when something already listens on the port: the benchmark would otherwise measure a leftover server. */
export async function assertPortFree(port: number, host = '127.0.0.1'): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', () => reject(new BenchFailure(`port ${port} is already in use (a leftover server or nginx? nginx's pid is in /tmp/lab-nginx.pid)`)));
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

function canConnect(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until the process accepts connections on the port; fails if it exits first or takes too long. */
export async function waitForPort(owner: ManagedProcess, port: number, timeoutMs = 20000, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!owner.isRunning()) throw new BenchFailure(`${owner.name} exited before listening on ${port}:\n${owner.logTail()}`);
    if (await canConnect(port, host)) return;
    await sleep(50);
  }
  throw new BenchFailure(`${owner.name} did not listen on ${port} within ${timeoutMs} ms:\n${owner.logTail()}`);
}

/** Runs a command to completion and collects its output (the load generators). */
export function runCommand(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
