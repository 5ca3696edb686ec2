import { pino, type Logger } from 'pino';
import type { GavelConfig } from '../config/index.js';

export type { Logger };

/** Structured JSON logs on stdout. */
export function createLogger(config: GavelConfig): Logger {
  return pino({ level: config.logging.level, base: { service: 'gavel', pid: process.pid } });
}
