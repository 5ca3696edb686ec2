import { readFileSync } from 'node:fs';

export type JsonSchema = Record<string, unknown>;

export interface PluginLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

/** Version of this SDK. A plugin states the SDK major it was built against in `sdkVersion`. */
export const SDK_VERSION = '2.0.0';

/**
 * Reads a JSON file that sits beside the calling module, e.g. an adapter's `params.schema.json`:
 * `readJsonBeside(import.meta.url, './params.schema.json')`. Runs once, at module load.
 */
export function readJsonBeside<T = JsonSchema>(moduleUrl: string, relativePath: string): T {
  return JSON.parse(readFileSync(new URL(relativePath, moduleUrl), 'utf8')) as T;
}
