import { pino, type Logger } from 'pino';
import type { GavelConfig } from '../config/index.js';

export type { Logger };

/** Structured JSON logs on stdout; a cluster worker's lines also name its slot (`worker`, 1..N). */
export function createLogger(config: GavelConfig): Logger {
  const slot = process.env.GAVEL_WORKER_SLOT;
  return pino({ level: config.logging.level, base: { service: 'gavel', pid: process.pid, ...(slot && { worker: Number(slot) }) } });
}

/**
 * The access log's own logger: its lines are written at info whatever `logging.level` says (a host at `warn` still
 * gets them), except when logging is off altogether.
 */
export function createAccessLogger(logger: Logger): Logger {
  return logger.child({ log: 'access' }, { level: logger.level === 'silent' ? 'silent' : 'info' });
}
