import { isJsonObject } from '../api/index.js';
import type { GavelConfig } from '../config/index.js';
import type { AccessLogSettings } from '../http/app.js';
import type { Readiness } from '../metrics/readiness.js';
import type { Logger } from './logger.js';

/** What a running app lets a reload change in place. */
export interface Reloadable {
  config: GavelConfig;
  logger: Logger;
  /** The access log's logger and settings (changed in place). */
  accessLog: { logger: Logger; settings: AccessLogSettings };
  readiness: Readiness;
  /** Drops every cached stored document: a reload also re-reads stored data. */
  invalidateStored(): void;
}

export interface ReloadOutcome {
  /** Keys whose new value is in force. */
  applied: string[];
  /** Keys that changed in the file but take a restart. */
  needsRestart: string[];
}

/** The keys a reload changes live; any other change is reported as needing a restart. */
const LIVE: Record<string, (app: Reloadable, next: GavelConfig) => void> = {
  'logging.level': (app, next) => {
    app.logger.level = next.logging.level;
    app.accessLog.logger.level = next.logging.level === 'silent' ? 'silent' : 'info';
  },
  'logging.accessLog.enabled': (app, next) => (app.accessLog.settings.enabled = next.logging.accessLog.enabled),
  'logging.accessLog.sampleRate': (app, next) => (app.accessLog.settings.sampleRate = next.logging.accessLog.sampleRate),
  'admin.requiredBackends': (app, next) => app.readiness.require(next.admin.requiredBackends),
};

/**
 * Applies a new configuration (already validated) to a running app: the keys that can change live change, the
 * stored-data cache is dropped, and the other changed keys are returned as needing a restart. The running config
 * takes the applied values, so the next reload compares against what is in force.
 */
export function reloadConfig(app: Reloadable, next: GavelConfig): ReloadOutcome {
  const changed = changedKeys(app.config as unknown as Record<string, unknown>, next as unknown as Record<string, unknown>);
  const applied: string[] = [];
  const needsRestart: string[] = [];
  for (const key of changed) {
    const apply = LIVE[key];
    if (!apply) {
      needsRestart.push(key);
      continue;
    }
    apply(app, next);
    setPath(app.config as unknown as Record<string, unknown>, key, structuredClone(getPath(next as unknown as Record<string, unknown>, key)));
    applied.push(key);
  }
  app.invalidateStored();
  return { applied, needsRestart };
}

/** Dotted paths of the leaves (arrays count as leaves) that differ between two configs. */
export function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>, prefix = ''): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  const changed: string[] = [];
  for (const key of keys) {
    const path = prefix ? `${prefix}.${key}` : key;
    const [a, b] = [before[key], after[key]];
    if (isJsonObject(a) && isJsonObject(b)) changed.push(...changedKeys(a, b, path));
    else if (JSON.stringify(a) !== JSON.stringify(b)) changed.push(path);
  }
  return changed;
}

function getPath(root: Record<string, unknown>, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (isJsonObject(node) ? node[key] : undefined), root);
}

function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = root;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys[keys.length - 1]!] = value;
}
