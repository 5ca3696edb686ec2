export * from './types.js';
export { defaultConfig } from './defaults.js';
export { configSchema } from './schema.js';
export { loadConfig, checkConfig, envOverrides, deepMerge, readConfigFile } from './load.js';
