/**
 * Prebid Server's `ortb2blocking` module config (`{attributes: {badv, bcat, bapp, btype, battr}}`), read once per
 * config object (the host's at boot, each account's on first use), and the override lookup: the first override whose
 * conditions match the bidder (case-insensitive) and media types, one naming the bidder before one for all bidders,
 * else the attribute's default.
 */
import { isJsonObject, type JsonObject } from '../../core/api/index.js';

export interface Conditions {
  /** Lower-cased; undefined matches every bidder. */
  bidders?: string[];
  /** Lower-cased; undefined matches every media type. */
  mediaTypes?: string[];
  dealIds?: string[];
}

/** An override's value: `true`/`false`, or a list of names and/or ids (Prebid Server splits a list by element type). */
export interface OverrideValue {
  active: boolean;
  names: string[];
  ids: number[];
}

export interface ActionOverride {
  conditions: Conditions;
  override: OverrideValue;
}

type Overrides = Record<string, ActionOverride[]>;

export interface BlockingConfig {
  badv: { blocked_adomain: string[]; block_unknown_adomain: boolean; allowed_adomain_for_deals: string[]; enforce_blocks: boolean; overrides: Overrides };
  bcat: { blocked_adv_cat: string[]; block_unknown_adv_cat: boolean; allowed_adv_cat_for_deals: string[]; category_taxonomy: number; enforce_blocks: boolean; overrides: Overrides };
  bapp: { blocked_app: string[]; allowed_app_for_deals: string[]; enforce_blocks: boolean; overrides: Overrides };
  btype: { blocked_banner_type: number[]; overrides: Overrides };
  battr: {
    blocked_banner_attr: number[];
    blocked_video_attr: number[];
    blocked_audio_attr: number[];
    allowed_banner_attr_for_deals: number[];
    allowed_video_attr_for_deals: number[];
    allowed_audio_attr_for_deals: number[];
    enforce_blocks: boolean;
    overrides: Overrides;
  };
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);
const ints = (value: unknown): number[] => (Array.isArray(value) ? value.filter((item): item is number => typeof item === 'number' && Number.isInteger(item)) : []);
const lower = (value: unknown): string[] | undefined => (Array.isArray(value) ? strings(value).map((item) => item.toLowerCase()) : undefined);

function readOverrides(value: unknown, path: string, errors: string[]): Overrides {
  const overrides: Overrides = {};
  if (!isJsonObject(value)) return overrides;
  for (const field of Object.keys(value)) {
    const list = value[field];
    if (!Array.isArray(list)) {
      errors.push(`${path}.${field} must be an array`);
      continue;
    }
    overrides[field] = list.flatMap((entry, i): ActionOverride[] => {
      if (!isJsonObject(entry)) {
        errors.push(`${path}.${field}[${i}] must be an object`);
        return [];
      }
      const conditions = isJsonObject(entry.conditions) ? entry.conditions : {};
      const raw = entry.override;
      const items = Array.isArray(raw) ? raw : [];
      return [
        {
          conditions: { bidders: lower(conditions.bidders), mediaTypes: lower(conditions.media_types), dealIds: Array.isArray(conditions.deal_ids) ? strings(conditions.deal_ids) : undefined },
          override: { active: raw === true, names: strings(items), ids: ints(items) },
        },
      ];
    });
  }
  return overrides;
}

/** Reads `{attributes: ...}`; members of the wrong type are named in `errors` and left out. */
export function readBlockingConfig(value: unknown, path: string, errors: string[]): BlockingConfig {
  const attributes = isJsonObject(value) && isJsonObject(value.attributes) ? value.attributes : {};
  const section = (name: string): JsonObject => (isJsonObject(attributes[name]) ? (attributes[name] as JsonObject) : {});
  const badv = section('badv');
  const bcat = section('bcat');
  const bapp = section('bapp');
  const btype = section('btype');
  const battr = section('battr');
  const at = (name: string) => `${path}.attributes.${name}.action_overrides`;
  return {
    badv: {
      blocked_adomain: strings(badv.blocked_adomain),
      block_unknown_adomain: badv.block_unknown_adomain === true,
      allowed_adomain_for_deals: strings(badv.allowed_adomain_for_deals),
      enforce_blocks: badv.enforce_blocks === true,
      overrides: readOverrides(badv.action_overrides, at('badv'), errors),
    },
    bcat: {
      blocked_adv_cat: strings(bcat.blocked_adv_cat),
      block_unknown_adv_cat: bcat.block_unknown_adv_cat === true,
      allowed_adv_cat_for_deals: strings(bcat.allowed_adv_cat_for_deals),
      category_taxonomy: typeof bcat.category_taxonomy === 'number' ? bcat.category_taxonomy : 0,
      enforce_blocks: bcat.enforce_blocks === true,
      overrides: readOverrides(bcat.action_overrides, at('bcat'), errors),
    },
    bapp: {
      blocked_app: strings(bapp.blocked_app),
      allowed_app_for_deals: strings(bapp.allowed_app_for_deals),
      enforce_blocks: bapp.enforce_blocks === true,
      overrides: readOverrides(bapp.action_overrides, at('bapp'), errors),
    },
    btype: { blocked_banner_type: ints(btype.blocked_banner_type), overrides: readOverrides(btype.action_overrides, at('btype'), errors) },
    battr: {
      blocked_banner_attr: ints(battr.blocked_banner_attr),
      blocked_video_attr: ints(battr.blocked_video_attr),
      blocked_audio_attr: ints(battr.blocked_audio_attr),
      allowed_banner_attr_for_deals: ints(battr.allowed_banner_attr_for_deals),
      allowed_video_attr_for_deals: ints(battr.allowed_video_attr_for_deals),
      allowed_audio_attr_for_deals: ints(battr.allowed_audio_attr_for_deals),
      enforce_blocks: battr.enforce_blocks === true,
      overrides: readOverrides(battr.action_overrides, at('battr'), errors),
    },
  };
}

/** The media types, in Prebid Server's order for its warning text. */
const ORDERED = ['audio', 'banner', 'native', 'video'];

export function describeMediaTypes(types: ReadonlySet<string>): string {
  return ORDERED.filter((type) => types.has(type)).join(', ');
}

export type OverridePick<T> = (override: OverrideValue) => T | string;

export const pickNames: OverridePick<string[]> = (override) => (override.names.length > 0 ? override.names : 'empty override field');
export const pickIds: OverridePick<number[]> = (override) => (override.ids.length > 0 ? override.ids : 'empty override field');
export const pickActive: OverridePick<boolean> = (override) => override.active;

/**
 * Prebid Server's `firstOrDefaultOverride`. Returns the value, and a warning when more than one override matched, or
 * an error (a string in `error`) for a condition with neither bidders nor media types, or an empty list.
 */
export function firstOrDefault<T>(bidder: string, mediaTypes: ReadonlySet<string>, pick: OverridePick<T>, overrides: readonly ActionOverride[] | undefined, fallback: T): { value: T; warning?: string; error?: string } {
  if (!overrides || overrides.length === 0) return { value: fallback };
  const name = bidder.toLowerCase();
  let forBidder: T | undefined;
  let forAll: T | undefined;
  let matches = 0;
  for (const { conditions, override } of overrides) {
    if (conditions.bidders === undefined && conditions.mediaTypes === undefined) {
      return { value: fallback, error: 'bidders and media_types absent from conditions, at least one of the fields must be present' };
    }
    const allBidders = conditions.bidders === undefined;
    if (!allBidders && !conditions.bidders!.includes(name)) continue;
    if (conditions.mediaTypes !== undefined && !conditions.mediaTypes.some((type) => mediaTypes.has(type))) continue;
    const value = pick(override);
    if (typeof value === 'string') return { value: fallback, error: value };
    matches++;
    if (allBidders) forAll ??= value as T;
    else forBidder ??= value as T;
  }
  const warning = matches > 1 ? `More than one condition matches request. Bidder: ${bidder}, request media types: ${describeMediaTypes(mediaTypes)}` : undefined;
  return { value: forBidder ?? forAll ?? fallback, warning };
}

/** Prebid Server's `findDealExceptionsOverridesOrDefault`: the deal's exceptions from overrides, plus the default ones. */
export function dealExceptions<T>(dealId: string, pick: OverridePick<T[]>, overrides: readonly ActionOverride[] | undefined, fallback: T[]): { value: T[]; error?: string } {
  const found: T[] = [];
  for (const { conditions, override } of overrides ?? []) {
    if (conditions.dealIds === undefined) return { value: fallback, error: 'conditions field in account configuration must contain deal_ids' };
    if (!conditions.dealIds.includes(dealId)) continue;
    const value = pick(override);
    if (typeof value === 'string') return { value: fallback, error: value };
    found.push(...value);
  }
  return { value: found.length === 0 ? fallback : [...found, ...fallback] };
}
