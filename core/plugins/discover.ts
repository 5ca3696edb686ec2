import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import {
  ErrorCode,
  GavelError,
  SDK_VERSION,
  type AdapterManifest,
  type ModuleManifest,
} from '../api/index.js';
import { adapterManifestSchema, moduleManifestSchema } from './manifest-schema.js';
import { SCHEMA_FORMATS } from './schema-errors.js';

/** Where a plugin came from: a built-in folder or an npm package the host named. */
export interface PluginSource { kind: 'folder' | 'package'; location: string }

export interface LoadedAdapter {
  manifest: AdapterManifest;
  source: PluginSource;
  /** Compiled params schema; undefined for a manifest alias, which borrows its target's. */
  validateParams?: ValidateFunction;
}
export interface LoadedModule { manifest: ModuleManifest; source: PluginSource; builtIn: boolean; validateConfig?: ValidateFunction }

export interface PluginCatalog {
  adapters: Map<string, LoadedAdapter>;
  modules: Map<string, LoadedModule>;
}

/** The compiled tree's root (dist/), where the built-in adapters/ and plugins/ folders sit. */
export const distRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const ajv = new Ajv({ allErrors: true, strict: false });
const checkAdapterManifest = ajv.compile(adapterManifestSchema);
const checkModuleManifest = ajv.compile(moduleManifestSchema);
/**
 * A new ajv instance set up as the host's for plugin-supplied schemas: separate from the manifest checks, so a
 * plugin's schema can't clash with ours by `$id`, and knowing the formats Prebid Server's params schemas use, checked
 * as gojsonschema checks them.
 */
export function pluginSchemaAjv(): Ajv {
  const instance = new Ajv({ allErrors: true, strict: false });
  for (const [name, validate] of Object.entries(SCHEMA_FORMATS)) instance.addFormat(name, { type: 'string', validate });
  return instance;
}
const pluginAjv = pluginSchemaAjv();

function invalid(source: PluginSource, message: string): GavelError {
  return new GavelError(ErrorCode.PluginInvalid, `plugin ${source.location} is invalid: ${message}`, { plugin: source.location });
}

function sdkMajor(version: string): string {
  return version.split('.')[0]!;
}

function compileSchema(source: PluginSource, schema: object, what: string): ValidateFunction {
  try {
    return pluginAjv.compile(schema);
  } catch (err) {
    throw invalid(source, `${what} does not compile: ${(err as Error).message}`);
  }
}

function checkManifest(value: unknown, source: PluginSource): { adapter?: LoadedAdapter; module?: LoadedModule } {
  if (typeof value !== 'object' || value === null) throw invalid(source, 'the default export must be a manifest made with defineAdapter or defineModule');
  const kind = (value as { kind?: unknown }).kind;
  const sdkVersion = (value as { sdkVersion?: unknown }).sdkVersion;
  if (typeof sdkVersion === 'string' && sdkMajor(sdkVersion) !== sdkMajor(SDK_VERSION)) {
    throw new GavelError(ErrorCode.PluginSdkMismatch, `plugin ${source.location} targets SDK ${sdkVersion}; this Gavel provides SDK ${SDK_VERSION}`, { plugin: source.location });
  }
  if (kind === 'adapter') {
    if (!checkAdapterManifest(value)) throw invalid(source, ajv.errorsText(checkAdapterManifest.errors, { dataVar: 'manifest' }));
    const manifest = value as unknown as AdapterManifest;
    if (!manifest.info.aliasOf) {
      if (typeof manifest.create !== 'function') throw invalid(source, 'manifest.create must be a function');
      if (!manifest.paramsSchema) throw invalid(source, 'manifest.paramsSchema is required');
    }
    const validateParams = manifest.paramsSchema ? compileSchema(source, manifest.paramsSchema, 'paramsSchema') : undefined;
    return { adapter: { manifest, source, validateParams } };
  }
  if (kind === 'module') {
    if (!checkModuleManifest(value)) throw invalid(source, ajv.errorsText(checkModuleManifest.errors, { dataVar: 'manifest' }));
    const manifest = value as unknown as ModuleManifest;
    if (manifest.create === undefined && manifest.provides === undefined && manifest.analytics === undefined) {
      throw invalid(source, 'a module needs create (stage hooks), provides (hook-point services) or analytics (a reporter)');
    }
    if (manifest.analytics !== undefined && typeof manifest.analytics !== 'function') throw invalid(source, 'manifest.analytics must be a function (config, deps) => reporter');
    if (manifest.create !== undefined && typeof manifest.create !== 'function') throw invalid(source, 'manifest.create must be a function');
    if (manifest.create !== undefined && !manifest.stages) throw invalid(source, 'manifest.stages must list the stages create returns hooks for');
    for (const [point, factory] of Object.entries(manifest.provides ?? {})) {
      if (typeof factory !== 'function') throw invalid(source, `manifest.provides["${point}"] must be a function (config, deps) => service`);
    }
    const validateConfig = manifest.configSchema ? compileSchema(source, manifest.configSchema, 'configSchema') : undefined;
    return { module: { manifest, source, builtIn: false, validateConfig } };
  }
  throw invalid(source, `manifest.kind must be "adapter" or "module", got ${JSON.stringify(kind)}`);
}

async function importManifest(url: string, source: PluginSource): Promise<unknown> {
  try {
    const loaded = (await import(url)) as { default?: unknown };
    return loaded.default;
  } catch (err) {
    throw invalid(source, `cannot be loaded: ${(err as Error).message}`);
  }
}

function pluginFolders(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'index.js')))
    .map((entry) => join(root, entry.name))
    .sort();
}

function resolvePackage(name: string, cwd: string): string {
  if (name.startsWith('.') || isAbsolute(name)) {
    const folder = resolve(cwd, name);
    try {
      return createRequire(join(folder, 'package.json')).resolve(folder);
    } catch (err) {
      throw new GavelError(ErrorCode.PluginNotFound, `plugin package "${name}" named in config "plugins" cannot be loaded from ${folder}: ${(err as Error).message.split('\n')[0]}`, { plugin: name });
    }
  }
  try {
    return createRequire(join(cwd, 'package.json')).resolve(name);
  } catch {
    throw new GavelError(ErrorCode.PluginNotFound, `plugin package "${name}" named in config "plugins" is not installed (npm install ${name})`, { plugin: name });
  }
}

/**
 * Finds every plugin: each folder under dist/adapters and dist/plugins (no list to edit), then each npm package the
 * host names in `plugins`. Every manifest is validated; the first invalid one stops boot with a coded error naming it.
 * Modules whose code starts with `gavel.` and that sit in the built-in plugins folder are the core's own built-ins.
 */
export async function discoverPlugins(options: { root?: string; packages?: string[]; cwd?: string } = {}): Promise<PluginCatalog> {
  const root = options.root ?? distRoot;
  const catalog: PluginCatalog = { adapters: new Map(), modules: new Map() };
  const entries: Array<{ url: string; source: PluginSource; builtInFolder: boolean }> = [];
  for (const folder of pluginFolders(join(root, 'adapters'))) entries.push({ url: pathToFileURL(join(folder, 'index.js')).href, source: { kind: 'folder', location: folder }, builtInFolder: false });
  for (const folder of pluginFolders(join(root, 'plugins'))) entries.push({ url: pathToFileURL(join(folder, 'index.js')).href, source: { kind: 'folder', location: folder }, builtInFolder: true });
  for (const name of options.packages ?? []) {
    entries.push({ url: pathToFileURL(resolvePackage(name, options.cwd ?? process.cwd())).href, source: { kind: 'package', location: name }, builtInFolder: false });
  }

  const manifests = await Promise.all(entries.map((entry) => importManifest(entry.url, entry.source)));
  entries.forEach((entry, index) => {
    const { adapter, module } = checkManifest(manifests[index], entry.source);
    if (adapter) {
      const existing = catalog.adapters.get(adapter.manifest.name);
      if (existing) throw new GavelError(ErrorCode.PluginDuplicate, `adapter name "${adapter.manifest.name}" is used by both ${existing.source.location} and ${entry.source.location}`, { plugin: entry.source.location });
      catalog.adapters.set(adapter.manifest.name, adapter);
    }
    if (module) {
      const existing = catalog.modules.get(module.manifest.code);
      if (existing) throw new GavelError(ErrorCode.PluginDuplicate, `module code "${module.manifest.code}" is used by both ${existing.source.location} and ${entry.source.location}`, { plugin: entry.source.location });
      module.builtIn = entry.builtInFolder && module.manifest.code.startsWith('gavel.');
      catalog.modules.set(module.manifest.code, module);
    }
  });
  for (const { manifest, source } of catalog.adapters.values()) {
    const target = manifest.info.aliasOf;
    if (target && !catalog.adapters.get(target)) throw invalid(source, `info.aliasOf names "${target}", which is not an installed adapter`);
    if (target && catalog.adapters.get(target)!.manifest.info.aliasOf) throw invalid(source, `info.aliasOf names "${target}", which is itself an alias`);
  }
  return catalog;
}
