import { ErrorCode, GavelError } from '../api/index.js';
import type { BidderCatalog } from '../bidders/catalog.js';
import type { GavelConfig } from '../config/index.js';
import type { PluginCatalog } from '../plugins/discover.js';

/** A config setting that boots but is most likely not what the host meant: logged at boot, printed by validate-config. */
export interface ConfigWarning {
  /** The config key it concerns (`modules.acme.page-guard.config`). */
  key: string;
  message: string;
}

/**
 * Checks what only the loaded plugins can tell about a config that passed its schema. Refuses (a boot error) a
 * bidder the host declared or configured that ends up with no endpoint: it could never bid, and a newcomer's auction
 * would simply lack it. Warns about module settings that boot but do nothing the host can see: config for a module
 * that declares no config schema (passed on unchecked, so a misspelt key goes unnoticed), and a third-party module
 * configured but not switched on (it will not run).
 */
export function reviewConfig(config: GavelConfig, plugins: PluginCatalog, bidders: BidderCatalog): ConfigWarning[] {
  for (const [name, settings] of Object.entries(config.bidders)) {
    const entry = bidders.get(name);
    if (settings.enabled === false || !entry || entry.endpoint) continue;
    throw new GavelError(
      ErrorCode.BidderConfigInvalid,
      `bidders.${name}.endpoint: bidder ${name} (adapter ${entry.adapter}) has no endpoint, so it could never be called: set bidders.${name}.endpoint, or enabled: false to keep it off`,
      { bidder: name },
    );
  }
  const warnings: ConfigWarning[] = [];
  for (const [code, settings] of Object.entries(config.modules)) {
    const module = plugins.modules.get(code);
    if (!module) continue;
    if (settings.config !== undefined && !module.validateConfig) {
      warnings.push({ key: `modules.${code}.config`, message: `module ${code} declares no config schema: this config is passed to it unchecked` });
    }
    if (!module.builtIn && !module.manifest.enabledByDefault && settings.enabled === undefined) {
      warnings.push({ key: `modules.${code}.enabled`, message: `module ${code} is configured but not switched on, so it will not run: add modules.${code}.enabled: true (or false to silence this)` });
    }
  }
  return warnings;
}
