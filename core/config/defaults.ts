import { Value } from '@sinclair/typebox/value';
import { configSchema } from './schema.js';
import type { GavelConfig } from './types.js';

/**
 * The embedded defaults, read from the schema's `default` keywords: `npm start` runs on these alone, with no file
 * and no other service. Files and environment variables are merged over a copy of it (load.ts).
 */
export const defaultConfig: GavelConfig = Value.Default(configSchema, {}) as GavelConfig;
