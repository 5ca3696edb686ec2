import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv } from 'ajv';
import { ErrorCode, GavelError } from '../api/index.js';
import type { GavelConfig } from '../config/index.js';

/**
 * Category translation (reference behaviour section 9): the host supplies, per primary ad server, a JSON file that
 * maps IAB content categories to that ad server's own category ids, optionally one file per publisher. Files are
 * read and checked once, at boot, so a broken file stops the server instead of failing requests one by one.
 */

export type AdServer = 'freewheel' | 'dfp';

/** `includebrandcategory.primaryadserver` -> the ad server whose mapping applies. */
export const AD_SERVER_BY_CODE: Readonly<Record<number, AdServer>> = { 1: 'freewheel', 2: 'dfp' };

export interface AdServerCategory {
  id: string;
  name?: string;
}

/** IAB category -> the ad server's category. */
export type CategoryMapping = ReadonlyMap<string, AdServerCategory>;

type MappingConfig = GavelConfig['video']['categoryMappings'];

const ajv = new Ajv({ allErrors: true });
const validateMappingFile = ajv.compile({
  type: 'object',
  additionalProperties: {
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'string', minLength: 1 }, name: { type: 'string' } },
  },
});

/** The mappings a host configured, loaded. */
export class CategoryMappings {
  private constructor(
    private readonly hostMappings: ReadonlyMap<AdServer, CategoryMapping>,
    private readonly publisherMappings: ReadonlyMap<AdServer, ReadonlyMap<string, CategoryMapping>>,
  ) {}

  /**
   * Reads every file `config` names (paths relative to `baseDir`, by default the working directory). Throws a
   * GavelError (ConfigInvalid) naming the config key and the file when a file is missing, not JSON, or not a mapping.
   */
  static load(config: MappingConfig, baseDir: string = process.cwd()): CategoryMappings {
    const filesByPath = new Map<string, CategoryMapping>();
    const read = (key: string, path: string): CategoryMapping => {
      const fullPath = resolve(baseDir, path);
      let mapping = filesByPath.get(fullPath);
      if (!mapping) {
        mapping = readMappingFile(key, fullPath);
        filesByPath.set(fullPath, mapping);
      }
      return mapping;
    };

    const hostMappings = new Map<AdServer, CategoryMapping>();
    const publisherMappings = new Map<AdServer, Map<string, CategoryMapping>>();
    for (const adServer of Object.values(AD_SERVER_BY_CODE)) {
      const hostPath = config[adServer];
      if (hostPath) hostMappings.set(adServer, read(`video.categoryMappings.${adServer}`, hostPath));
      const perPublisher = new Map<string, CategoryMapping>();
      for (const [publisher, path] of Object.entries(config[`${adServer}Publishers`] ?? {})) {
        perPublisher.set(publisher, read(`video.categoryMappings.${adServer}Publishers.${publisher}`, path));
      }
      publisherMappings.set(adServer, perPublisher);
    }
    return new CategoryMappings(hostMappings, publisherMappings);
  }

  /** The mapping for a request: the publisher's own file when the host has one, else the ad server's. */
  mappingFor(adServer: AdServer, publisher: string | undefined): CategoryMapping | undefined {
    const own = publisher ? this.publisherMappings.get(adServer)?.get(publisher) : undefined;
    return own ?? this.hostMappings.get(adServer);
  }
}

function readMappingFile(key: string, path: string): CategoryMapping {
  const fail = (problem: string): never => {
    throw new GavelError(ErrorCode.ConfigInvalid, `${key}: category mapping file ${path} ${problem}`, { key, path });
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    return fail(`cannot be read as JSON: ${(err as Error).message}`);
  }
  if (!validateMappingFile(parsed)) {
    const problems = (validateMappingFile.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`);
    return fail(`must be {"<IAB category>": {"id": "<ad server category id>", "name": "..."}}: ${problems.join('; ')}`);
  }
  const entries = Object.entries(parsed as Record<string, AdServerCategory>).map(([iab, category]): [string, AdServerCategory] => [iab, { id: category.id, name: category.name }]);
  return new Map(entries);
}
