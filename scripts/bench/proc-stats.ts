import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the kernel says a server process (and its cluster workers) cost: CPU time from /proc/<pid>/stat and the
 * resident-set high-water mark from /proc/<pid>/status. Linux only; elsewhere every reading is undefined.
 */

const clockTicksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function readProcFile(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the command name, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  const stat = readProcFile(pid, 'stat');
  if (!stat) return undefined;
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// Positions in statFields (stat(5) numbers them from 1 with the pid and name first: ppid is 4, utime 14, stime 15).
const PPID = 1;
const UTIME = 11;
const STIME = 12;

/** The process and all its descendants (a cluster primary and its workers). */
export function processTree(rootPid: number): number[] {
  const childrenOf = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [rootPid];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[PPID]);
    if (!Number.isFinite(ppid)) continue;
    const siblings = childrenOf.get(ppid) ?? [];
    siblings.push(Number(entry));
    childrenOf.set(ppid, siblings);
  }
  const tree: number[] = [];
  const pending = [rootPid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    tree.push(pid);
    pending.push(...(childrenOf.get(pid) ?? []));
  }
  return tree;
}

/** User + system CPU time of the processes, in microseconds; undefined when /proc cannot tell. */
export function cpuTimeMicros(pids: number[]): number | undefined {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (!fields) return undefined;
    ticks += Number(fields[UTIME]) + Number(fields[STIME]);
  }
  return (ticks * 1_000_000) / clockTicksPerSecond;
}

function statusKb(pid: number, key: 'VmHWM' | 'VmRSS'): number | undefined {
  const match = readProcFile(pid, 'status')?.match(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm'));
  return match ? Number(match[1]) : undefined;
}

/** Peak resident memory of the processes, summed, in MB (VmHWM; VmRSS where the kernel has no high-water mark). */
export function peakRssMb(pids: number[]): number | undefined {
  let kb = 0;
  for (const pid of pids) {
    const value = statusKb(pid, 'VmHWM') ?? statusKb(pid, 'VmRSS');
    if (value === undefined) return undefined;
    kb += value;
  }
  return kb / 1024;
}

/** Resident memory of the processes now, summed, in MB (VmRSS). */
export function currentRssMb(pids: number[]): number | undefined {
  let kb = 0;
  for (const pid of pids) {
    const value = statusKb(pid, 'VmRSS');
    if (value === undefined) return undefined;
    kb += value;
  }
  return kb / 1024;
}
