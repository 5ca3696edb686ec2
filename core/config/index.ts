export * from './types.js';
export { defaultConfig } from './defaults.js';
export { configSchema } from './schema.js';
export { loadConfig, checkConfig, describeSchemaErrors, envOverrides, deepMerge, readConfigFile } from './load.js';
