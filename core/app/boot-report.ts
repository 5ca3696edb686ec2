import type { BidderCatalog } from '../bidders/catalog.js';
import { hostVersion } from '../bidders/catalog.js';
import type { GavelConfig } from '../config/index.js';
import type { PluginCatalog } from '../plugins/discover.js';
import { isModuleEnabled } from './boot.js';

/** A bidder as the boot line and `gavel plugins` show it. */
export interface BidderSummary {
  name: string;
  adapter: string;
  aliasOf?: string;
  /** The host of its endpoint (a template's `{{macros}}` as written), or undefined when it has none. */
  endpointHost?: string;
  enabled: boolean;
  /** Declared or adjusted under `bidders.<name>` in config. */
  configured: boolean;
}

function endpointHost(template: string | undefined): string | undefined {
  if (!template) return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]+)/i.exec(template);
  return match ? match[1] : template;
}

export function bidderSummaries(config: GavelConfig, bidders: BidderCatalog): BidderSummary[] {
  const configured = new Set(Object.keys(config.bidders).map((name) => name.toLowerCase()));
  return [...bidders.entries.values()]
    .map((entry) => ({
      name: entry.name,
      adapter: entry.adapter,
      ...(entry.aliasOf && { aliasOf: entry.aliasOf }),
      endpointHost: endpointHost(entry.endpoint?.template),
      enabled: entry.enabled,
      configured: configured.has(entry.name.toLowerCase()),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export interface Listeners {
  /** The public listener, as bound (`http://0.0.0.0:8000`). */
  public: string;
  /** The admin listener, when there is one. */
  admin?: string;
}

/**
 * The one info line a boot writes once Gavel serves: which Gavel, from which config file, where it listens, and
 * which bidders (adapter, endpoint host, enabled) and modules (version, enabled) it runs. Enough to tell from the
 * log alone whether the host got what it configured.
 */
export function bootLine(config: GavelConfig, plugins: PluginCatalog, bidders: BidderCatalog, facts: { configFile?: string; listeners: Listeners }): Record<string, unknown> {
  return {
    version: hostVersion(),
    node: process.version,
    configFile: facts.configFile ?? null,
    listeners: facts.listeners,
    bidders: bidderSummaries(config, bidders).map(({ configured: _configured, ...bidder }) => bidder),
    modules: [...plugins.modules.values()].map((module) => ({
      code: module.manifest.code,
      version: module.manifest.version,
      builtIn: module.builtIn,
      enabled: isModuleEnabled(config, module),
    })),
  };
}
