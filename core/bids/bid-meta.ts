import { isJsonObject } from '../api/index.js';

type MetaKind = 'string' | 'strings' | 'integer' | 'raw';

/**
 * Prebid Server's `ExtBidPrebidMeta`, member by member: the response's `ext.prebid.meta` is that struct encoded, so
 * it holds these members only, under these names, and none at its zero value (every member is `omitempty`).
 */
const META_MEMBERS: ReadonlyArray<readonly [name: string, kind: MetaKind]> = [
  ['adaptercode', 'string'], ['advertiserDomains', 'strings'], ['advertiserId', 'integer'], ['advertiserName', 'string'],
  ['agencyId', 'integer'], ['agencyName', 'string'], ['brandId', 'integer'], ['brandName', 'string'], ['dchain', 'raw'],
  ['demandSource', 'string'], ['mediaType', 'string'], ['networkId', 'integer'], ['networkName', 'string'],
  ['primaryCatId', 'string'], ['rendererName', 'string'], ['rendererVersion', 'string'], ['rendererData', 'raw'],
  ['rendererUrl', 'string'], ['secondaryCatIds', 'strings'], ['seat', 'string'],
];

const MEMBERS_BY_LOWER_NAME = new Map(META_MEMBERS.map(([name, kind]) => [name.toLowerCase(), { name, kind }]));

function holdsNonZero(value: unknown, kind: MetaKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string' && value !== '';
    case 'strings':
      return Array.isArray(value) && value.length > 0 && value.every((entry) => typeof entry === 'string');
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && value !== 0;
    case 'raw':
      return value !== undefined;
  }
}

/**
 * A bid's meta as Prebid Server carries it: decoded into its meta struct (members matched ignoring case, as Go's
 * decoder matches them) and encoded again, so a member the struct lacks, one at its zero value, or one of the wrong
 * type is not there. An exact-case member wins over another spelling of it.
 */
export function asPrebidMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const typed: Record<string, unknown> = {};
  for (const key in meta) {
    const member = MEMBERS_BY_LOWER_NAME.get(key.toLowerCase());
    if (member === undefined || (key !== member.name && Object.hasOwn(meta, member.name))) continue;
    const value = meta[key];
    if (holdsNonZero(value, member.kind)) typed[member.name] = member.kind === 'strings' ? [...(value as string[])] : value;
  }
  return typed;
}

/** `meta` when it is an object, as asPrebidMeta reads it; undefined otherwise. */
export function prebidMetaOf(meta: unknown): Record<string, unknown> | undefined {
  return isJsonObject(meta) ? asPrebidMeta(meta) : undefined;
}
