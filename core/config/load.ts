import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { isJsonObject, ErrorCode, GavelError, STAGES } from '../api/index.js';
import { defaultConfig } from './defaults.js';
import { unpackDsaDefault } from '../accounts/dsa-default.js';
import { configSchema } from './schema.js';
import type { GavelConfig } from './types.js';

type Json = Record<string, unknown>;
type SchemaNode = { type?: string; properties?: Record<string, SchemaNode>; additionalProperties?: unknown; items?: SchemaNode; enum?: unknown[] };

const ENV_PREFIX = 'GAVEL_';
/** Variables under the prefix that are not config overrides. */
const RESERVED_ENV = /^GAVEL_(CONFIG|WORKER_SLOT|TEST_.*)$/;

const ajv = new Ajv({ allErrors: true, strict: false });
const validateConfig = ajv.compile(configSchema);


/** Objects merge key by key; anything else (arrays included) replaces. */
export function deepMerge(base: Json, override: Json): Json {
  const merged: Json = { ...base };
  for (const [key, value] of Object.entries(override)) {
    merged[key] = isJsonObject(value) && isJsonObject(base[key]) ? deepMerge(base[key] as Json, value) : value;
  }
  return merged;
}

/** The dotted key an ajv error concerns, under `prefix`: JSON pointers escape `/` in keys (`/openrtb2/auction`) as `~1`. */
function keyPath(error: ErrorObject, prefix: string): string {
  const segments = error.instancePath.split('/').slice(1).map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  return [prefix, ...segments].filter((segment) => segment !== '').join('.');
}

function describeError(error: ErrorObject, prefix: string): string {
  const path = keyPath(error, prefix);
  const under = (key: string) => (path ? `${path}.${key}` : key);
  if (error.keyword === 'additionalProperties') {
    const key = (error.params as { additionalProperty: string }).additionalProperty;
    const hint = /\.stages$/.test(path) ? ` (unknown hook stage; stages are: ${STAGES.join(', ')})` : '';
    return `unknown key "${under(key)}"${hint}`;
  }
  if (error.keyword === 'propertyNames') {
    const key = (error.params as { propertyName: string }).propertyName;
    const hint = /\.stages$/.test(path) ? ` (unknown hook stage; stages are: ${STAGES.join(', ')})` : '';
    return `unknown key "${under(key)}"${hint}`;
  }
  if (error.keyword === 'required') return `"${under((error.params as { missingProperty: string }).missingProperty)}" is required`;
  if (error.keyword === 'enum' && error.propertyName !== undefined) return '';
  if (error.keyword === 'enum') {
    return `"${path || '(root)'}" must be one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)}`;
  }
  return `"${path || '(root)'}" ${error.message ?? 'is invalid'}`;
}

/**
 * Each schema error as one line naming the key it concerns, in full (`"cache.redis.url" is required`, `unknown key
 * "server.prot"`): the config's own errors, and a module's config errors under `modules.<code>.config`.
 */
export function describeSchemaErrors(errors: readonly ErrorObject[] | null | undefined, prefix = ''): string[] {
  return [...new Set((errors ?? []).map((error) => describeError(error, prefix)).filter((problem) => problem !== ''))];
}

/** `server.externalUrl` when the host sets none: this listener's own port on localhost. */
function withExternalUrl(config: unknown): unknown {
  if (!isJsonObject(config) || !isJsonObject(config.server) || config.server.externalUrl !== undefined) return config;
  const port = config.server.port;
  return { ...config, server: { ...config.server, externalUrl: `http://localhost:${typeof port === 'number' ? port : 8000}` } };
}

/** Validates a whole config; throws GavelError(ConfigInvalid) listing every problem with the key it concerns. */
export function checkConfig(input: unknown, source: string): GavelConfig {
  const config = withExternalUrl(input);
  if (!validateConfig(config)) {
    const problems = describeSchemaErrors(validateConfig.errors);
    throw new GavelError(ErrorCode.ConfigInvalid, `invalid configuration (${source}): ${problems.join('; ')}`, { problems });
  }
  const typed = config as unknown as GavelConfig;
  if (typed.auction.defaultTmaxMs > typed.auction.maxTmaxMs) {
    throw new GavelError(ErrorCode.ConfigInvalid, `invalid configuration (${source}): "auction.defaultTmaxMs" must not exceed "auction.maxTmaxMs"`);
  }
  // Prebid Server does not start with a default DSA object it cannot unpack.
  const dsaDefault = typed.accounts.defaults.privacy?.dsa?.default;
  const unpacked = typeof dsaDefault === 'string' ? unpackDsaDefault(dsaDefault) : undefined;
  if (unpacked && 'error' in unpacked) {
    throw new GavelError(ErrorCode.ConfigInvalid, `invalid configuration (${source}): "accounts.defaults.privacy.dsa.default" is an invalid default account DSA: ${unpacked.error}`);
  }
  return typed;
}

export function readConfigFile(path: string): Json {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new GavelError(ErrorCode.ConfigUnreadable, `cannot read config file ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new GavelError(ErrorCode.ConfigInvalid, `config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isJsonObject(parsed)) throw new GavelError(ErrorCode.ConfigInvalid, `config file ${path} must hold a mapping at the top level`);
  return parsed;
}

function coerce(raw: string, node: SchemaNode | undefined, variable: string): unknown {
  const type = node?.type;
  if (type === 'integer' || type === 'number') {
    const value = Number(raw);
    if (raw.trim() === '' || Number.isNaN(value)) throw new GavelError(ErrorCode.ConfigInvalid, `${variable} must be a number, got "${raw}"`);
    return value;
  }
  if (type === 'boolean') {
    if (raw !== 'true' && raw !== 'false') throw new GavelError(ErrorCode.ConfigInvalid, `${variable} must be true or false, got "${raw}"`);
    return raw === 'true';
  }
  if (type === 'array' || type === 'object') {
    try {
      return JSON.parse(raw);
    } catch {
      if (type === 'array') return raw.split(',').map((item) => item.trim()).filter(Boolean);
      throw new GavelError(ErrorCode.ConfigInvalid, `${variable} must be JSON`);
    }
  }
  return raw;
}

/**
 * Turns `GAVEL_SERVER__PORT=8001` into `{server: {port: 8001}}`. Path segments match schema keys case-insensitively
 * (`GAVEL_SERVER__MAXREQUESTBYTES` is `server.maxRequestBytes`); names under maps (bidders, modules) are lower-cased.
 */
export function envOverrides(env: NodeJS.ProcessEnv): Json {
  const overrides: Json = {};
  for (const [variable, raw] of Object.entries(env)) {
    if (!variable.startsWith(ENV_PREFIX) || RESERVED_ENV.test(variable) || raw === undefined) continue;
    const segments = variable.slice(ENV_PREFIX.length).split('__');
    let node: SchemaNode | undefined = configSchema as unknown as SchemaNode;
    const path: string[] = [];
    for (const segment of segments) {
      const known: string | undefined = node?.properties && Object.keys(node.properties).find((key) => key.toLowerCase() === segment.toLowerCase());
      if (known) {
        path.push(known);
        node = node!.properties![known];
      } else if (node && isJsonObject(node.additionalProperties)) {
        path.push(segment.toLowerCase());
        node = node.additionalProperties as SchemaNode;
      } else {
        throw new GavelError(ErrorCode.ConfigInvalid, `environment variable ${variable} names unknown key "${[...path, segment.toLowerCase()].join('.')}"`);
      }
    }
    let target = overrides;
    for (const key of path.slice(0, -1)) target = (target[key] = isJsonObject(target[key]) ? target[key] : {}) as Json;
    target[path[path.length - 1]!] = coerce(raw, node, variable);
  }
  return overrides;
}

/** Defaults, then the file (if any), then `GAVEL_*` variables; validated as a whole. */
export function loadConfig(options: { file?: string; env?: NodeJS.ProcessEnv; overrides?: Json } = {}): GavelConfig {
  const env = options.env ?? process.env;
  const file = options.file ?? env.GAVEL_CONFIG;
  let merged: Json = structuredClone(defaultConfig) as unknown as Json;
  if (file) merged = deepMerge(merged, readConfigFile(file));
  merged = deepMerge(merged, envOverrides(env));
  if (options.overrides) merged = deepMerge(merged, options.overrides);
  return checkConfig(merged, file ?? 'defaults');
}
