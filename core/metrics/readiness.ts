/**
 * Readiness: whether this instance should receive traffic. It is ready once it listens, until it drains, and while
 * every backend the host marked as required (`admin.requiredBackends`) is up.
 */

/** The backends a host can make readiness depend on. */
export const BACKENDS = ['storedData', 'cache'] as const;
export type BackendName = (typeof BACKENDS)[number];

/**
 * Whether one backend is usable, as the code using it saw it last: its own calls and probes mark it up or down.
 * Listeners hear of each change (the metric, the cluster primary).
 */
export class BackendStatus {
  private state: { up: boolean; since: number; reason?: string } = { up: true, since: Date.now() };
  private readonly listeners: Array<(up: boolean, reason?: string) => void> = [];

  constructor(readonly name: BackendName) {}

  get up(): boolean {
    return this.state.up;
  }

  get reason(): string | undefined {
    return this.state.reason;
  }

  markUp(): void {
    if (!this.state.up) this.change(true);
  }

  markDown(reason: string): void {
    if (this.state.up) this.change(false, reason);
    else this.state.reason = reason;
  }

  onChange(listener: (up: boolean, reason?: string) => void): void {
    this.listeners.push(listener);
  }

  private change(up: boolean, reason?: string): void {
    this.state = { up, since: Date.now(), reason };
    for (const listener of this.listeners) listener(up, reason);
  }
}

/** What `/health` answers: ready or not, and each backend's state. */
export interface ReadinessReport {
  ready: boolean;
  backends: Partial<Record<BackendName, 'up' | 'down'>>;
}

/** The readiness of one process: listening and not draining, and every required backend up. */
export class Readiness {
  listening = false;
  draining = false;
  private readonly statuses = new Map<BackendName, BackendStatus>();

  constructor(private required: readonly BackendName[]) {}

  /** Adds a backend this process uses; backends it does not use (no Redis configured) are never waited for. */
  track(status: BackendStatus | undefined): void {
    if (status) this.statuses.set(status.name, status);
  }

  /** Changes which backends are required (a reload). */
  require(required: readonly BackendName[]): void {
    this.required = required;
  }

  report(): ReadinessReport {
    const backends: ReadinessReport['backends'] = {};
    let backendsReady = true;
    for (const [name, status] of this.statuses) {
      backends[name] = status.up ? 'up' : 'down';
      if (!status.up && this.required.includes(name)) backendsReady = false;
    }
    return { ready: this.listening && !this.draining && backendsReady, backends };
  }
}

/**
 * Checks a backend every `intervalMs`, so readiness follows it even without traffic (and notices when it is back):
 * a check that fails marks it down, one that answers marks it up.
 */
export function startProbe(intervalMs: number, check: () => Promise<void>, status: BackendStatus): { stop(): void } {
  if (intervalMs <= 0) return { stop: () => undefined };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    check().then(
      () => status.markUp(),
      (err: unknown) => status.markDown(err instanceof Error ? err.message : String(err)),
    ).finally(() => (running = false));
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
