import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv';
import {
  compileEndpoint,
  ErrorCode,
  GavelError,
  type Bidder,
  type BidderInfo,
  type EndpointTemplate,
  type PluginLogger,
} from '../api/index.js';
import type { GavelConfig } from '../config/index.js';
import type { LoadedAdapter, PluginCatalog } from '../plugins/discover.js';
import { configuredUserSync } from '../usersync/syncers.js';

/** A bidder this host can call: an adapter (or alias of one) with its endpoint and settings resolved at boot. */
export interface BidderEntry {
  /** Name in requests and responses (lower-case for lookups; the seat name). */
  name: string;
  /** The adapter whose code serves it. */
  adapter: string;
  /** Set when the entry borrows another adapter's code: a config alias, or a manifest alias. */
  aliasOf?: string;
  info: BidderInfo;
  enabled: boolean;
  /** Why a bidder is disabled (for the host's tools: `/info/bidders/<name>` keeps Prebid Server's shape). */
  disabledReason?: string;
  endpoint?: EndpointTemplate;
  /** The OpenRTB version the bidder is sent: `bidders.<name>.ortbVersion`, else its manifest's, else 2.5. */
  ortbVersion: '2.5' | '2.6';
  /** Whether its calls may show in `ext.debug.httpcalls` without the override header: `debug.allow`, true when unset. */
  debugAllow: boolean;
  bidder?: Bidder;
  validateParams?: ValidateFunction;
  paramsSchema?: object;
}

export interface BidderCatalog {
  /** Every known bidder by lower-case name, enabled or not. */
  readonly entries: ReadonlyMap<string, BidderEntry>;
  /** Case-insensitive lookup. */
  get(name: string): BidderEntry | undefined;
}

/**
 * This Gavel's version, from the package.json beside `dist/` (this module runs as `dist/core/bidders/catalog.js`),
 * read once, at the first boot: adapters report it to bidders that ask which server version calls them.
 */
let gavelVersion: string | undefined;
export function hostVersion(): string {
  gavelVersion ??= (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return gavelVersion;
}

function targetOf(adapter: LoadedAdapter, catalog: PluginCatalog): LoadedAdapter {
  return adapter.manifest.info.aliasOf ? catalog.adapters.get(adapter.manifest.info.aliasOf)! : adapter;
}

/**
 * Builds the bidder catalog: every installed adapter is a bidder under its own name, and every `bidders.<name>`
 * entry in config adds or adjusts one (`adapter:` or `aliasOf:` names the adapter whose code and schema it uses;
 * `endpoint`, `enabled`, `extra`, `ortbVersion`, `modifyingVastXmlAllowed`, `userSync`, `debug` override). A bidder
 * without an endpoint is disabled.
 */
export function buildBidderCatalog(config: GavelConfig, plugins: PluginCatalog, logger: PluginLogger): BidderCatalog {
  const entries = new Map<string, BidderEntry>();
  // Bidder names are case-insensitive: keyed in lower case, shown as the adapter (or the host's config) spells them.
  const names = new Map<string, string>();
  for (const name of plugins.adapters.keys()) names.set(name.toLowerCase(), name);
  for (const name of Object.keys(config.bidders)) if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);

  for (const [key, name] of names) {
    const settings = Object.entries(config.bidders).find(([configured]) => configured.toLowerCase() === key)?.[1] ?? {};
    const adapterName = settings.adapter ?? settings.aliasOf ?? name;
    const own = plugins.adapters.get(adapterName) ?? [...plugins.adapters.values()].find((adapter) => adapter.manifest.name.toLowerCase() === adapterName.toLowerCase());
    if (!own) {
      throw new GavelError(ErrorCode.BidderUnknownAdapter, `bidders.${name} uses adapter "${adapterName}", which is not installed (installed: ${[...plugins.adapters.keys()].join(', ')})`);
    }
    const code = targetOf(own, plugins);
    const info: BidderInfo = {
      ...code.manifest.info,
      ...own.manifest.info,
      aliasOf: own.manifest.name.toLowerCase() !== key ? own.manifest.name : own.manifest.info.aliasOf,
    };
    if (settings.modifyingVastXmlAllowed !== undefined) info.modifyingVastXmlAllowed = settings.modifyingVastXmlAllowed;
    if (settings.userSync) info.userSync = configuredUserSync(name, settings.userSync);
    if (settings.debug) info.debug = { allow: settings.debug.allow };
    const endpointText = settings.endpoint ?? own.manifest.info.endpoint ?? code.manifest.info.endpoint;
    const entry: BidderEntry = {
      name,
      adapter: code.manifest.name,
      aliasOf: info.aliasOf,
      info,
      // A bidder shipped disabled comes on when the host enables it or gives it an endpoint of its own.
      enabled: settings.enabled ?? (!own.manifest.info.disabled || settings.endpoint !== undefined),
      validateParams: code.validateParams,
      paramsSchema: code.manifest.paramsSchema,
      ortbVersion: settings.ortbVersion ?? info.ortbVersion ?? '2.5',
      debugAllow: info.debug?.allow ?? true,
    };
    if (!entry.enabled) {
      entry.disabledReason = settings.enabled === false ? 'disabled by config' : `needs host setup: set bidders.${name}.endpoint (see the adapter's README)`;
    }
    else if (!endpointText) {
      entry.enabled = false;
      entry.disabledReason = `no endpoint: set bidders.${name}.endpoint`;
    } else {
      try {
        entry.endpoint = compileEndpoint(endpointText);
      } catch (err) {
        // A host's own endpoint must be right; an adapter's shipped default that is only a placeholder (some
        // bidders need per-host setup) leaves the bidder disabled until the host configures it.
        if (settings.endpoint) throw new GavelError(ErrorCode.EndpointUnsafe, `bidders.${name}.endpoint: ${(err as Error).message}`);
        entry.enabled = false;
        entry.disabledReason = `the adapter's default endpoint "${endpointText}" is not usable: set bidders.${name}.endpoint`;
      }
    }
    if (entry.enabled && entry.endpoint) {
      entry.bidder = code.manifest.create!(
        { name, endpoint: entry.endpoint.template, extra: settings.extra ?? {}, ortbVersion: entry.ortbVersion, host: { externalUrl: config.server.externalUrl, gvlId: config.server.gvlId, datacenter: config.server.dataCenter, version: hostVersion() } },
        { logger, now: Date.now },
      );
    }
    entries.set(key, entry);
  }
  return {
    entries,
    get: (name) => entries.get(name) ?? entries.get(name.toLowerCase()),
  };
}
