import type { Static } from '@sinclair/typebox';
import type { configSchema, ExecutionPlanSchema, HookGroupSchema } from './schema.js';

/** The validated configuration: derived from the schema, never written by hand. */
export type GavelConfig = Static<typeof configSchema>;

export type HookGroupConfig = Static<typeof HookGroupSchema>;
export type ExecutionPlanConfig = Static<typeof ExecutionPlanSchema>;
