/**
 * Prebid Server's floor rules (`ext.prebid.floors`): their shape, the checks Prebid Server makes of them (with its
 * error texts), and the rule lookup: an imp's values for the schema fields, tried from the most specific key to the
 * least (wildcards `*` replacing fields from the right first), the first key the model group has wins.
 */
import { fieldIgnoringCase, isJsonObject, type BidRequest, type Imp, type JsonObject } from '../../core/api/index.js';

export interface FloorSchema {
  fields: string[];
  /** As the rules give it: absent means `|` (applied where keys are split, so the rules echo as they came). */
  delimiter?: string;
}

/** One model group of `data.modelgroups`, read from JSON (wrongly typed members are dropped with an error). */
export interface ModelGroup {
  currency?: string;
  modelweight?: number;
  modelversion?: string;
  skiprate?: number;
  schema: FloorSchema;
  values: Record<string, number>;
  default?: number;
}

export interface FloorData {
  currency?: string;
  skiprate?: number;
  floorsschemaversion?: number;
  modeltimestamp?: number;
  modelgroups: ModelGroup[];
  floorprovider?: string;
  usefetchdatarate?: number;
}

export interface FloorEnforcement {
  enforcejs?: boolean;
  enforcepbs?: boolean;
  floordeals?: boolean;
  bidadjustment?: boolean;
  enforcerate?: number;
}

/** `ext.prebid.floors`, Prebid Server's `PriceFloorRules`. */
export interface PriceFloorRules {
  floormin?: number;
  floormincur?: string;
  skiprate?: number;
  floorendpoint?: { url?: string };
  data?: FloorData;
  enforcement?: FloorEnforcement;
  enabled?: boolean;
  skipped?: boolean;
  floorprovider?: string;
  fetchstatus?: string;
  location?: string;
}

export const DEFAULT_CURRENCY = 'USD';
export const DEFAULT_DELIMITER = '|';
const CATCH_ALL = '*';

/** The schema dimensions Prebid Server knows. */
export const SCHEMA_FIELDS: ReadonlySet<string> = new Set([
  'siteDomain', 'pubDomain', 'domain', 'bundle', 'channel', 'mediaType', 'size', 'gptSlot', 'adUnitCode', 'country', 'deviceType',
]);

// ---- reading untrusted JSON -----------------------------------------------------------------------------------

/** Reads JSON as floor rules: members of the wrong type are left out, each named in `errors`. */
export function readFloorRules(value: unknown, path: string, errors: string[]): PriceFloorRules | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) {
    errors.push(`${path} must be an object`);
    return undefined;
  }
  const reader = new Reader(value, path, errors);
  const rules: PriceFloorRules = {
    floormin: reader.nonZeroNumber('floormin'),
    floormincur: reader.nonEmptyString('floormincur'),
    skiprate: reader.nonZeroNumber('skiprate'),
    enabled: reader.boolean('enabled'),
    skipped: reader.boolean('skipped'),
    floorprovider: reader.nonEmptyString('floorprovider'),
    fetchstatus: reader.nonEmptyString('fetchstatus'),
    location: reader.nonEmptyString('location'),
  };
  const endpoint = reader.object('floorendpoint');
  if (endpoint) rules.floorendpoint = dropUndefined({ url: new Reader(endpoint, `${path}.floorendpoint`, errors).nonEmptyString('url') });
  const enforcement = reader.object('enforcement');
  if (enforcement) {
    const inner = new Reader(enforcement, `${path}.enforcement`, errors);
    rules.enforcement = dropUndefined({
      enforcejs: inner.boolean('enforcejs'),
      enforcepbs: inner.boolean('enforcepbs'),
      floordeals: inner.boolean('floordeals'),
      bidadjustment: inner.boolean('bidadjustment'),
      enforcerate: inner.nonZeroNumber('enforcerate'),
    });
  }
  const data = reader.raw('data');
  if (data !== undefined && data !== null) rules.data = readFloorData(data, `${path}.data`, errors);
  return dropUndefined(rules);
}

/** Reads JSON as floor data (`ext.prebid.floors.data`, or a fetched floors file). */
export function readFloorData(value: unknown, path: string, errors: string[]): FloorData | undefined {
  if (!isJsonObject(value)) {
    errors.push(`${path} must be an object`);
    return undefined;
  }
  const reader = new Reader(value, path, errors);
  const groups: ModelGroup[] = [];
  const rawGroups = reader.raw('modelgroups');
  if (rawGroups !== undefined && !Array.isArray(rawGroups)) errors.push(`${path}.modelgroups must be an array`);
  if (Array.isArray(rawGroups)) {
    rawGroups.forEach((group, i) => {
      const read = readModelGroup(group, `${path}.modelgroups[${i}]`, errors);
      if (read) groups.push(read);
    });
  }
  return dropUndefined({
    currency: reader.nonEmptyString('currency'),
    skiprate: reader.nonZeroNumber('skiprate'),
    floorsschemaversion: reader.nonZeroNumber('floorsschemaversion'),
    modeltimestamp: reader.nonZeroNumber('modeltimestamp'),
    modelgroups: groups,
    floorprovider: reader.nonEmptyString('floorprovider'),
    usefetchdatarate: reader.number('usefetchdatarate'),
  });
}

function readModelGroup(value: unknown, path: string, errors: string[]): ModelGroup | undefined {
  if (!isJsonObject(value)) {
    errors.push(`${path} must be an object`);
    return undefined;
  }
  const reader = new Reader(value, path, errors);
  const schema = reader.object('schema') ?? {};
  const schemaReader = new Reader(schema, `${path}.schema`, errors);
  const rawFields = schemaReader.raw('fields');
  const fields = Array.isArray(rawFields) ? rawFields.filter((field): field is string => typeof field === 'string') : [];
  if (rawFields !== undefined && (!Array.isArray(rawFields) || fields.length !== rawFields.length)) errors.push(`${path}.schema.fields must be an array of strings`);
  const values: Record<string, number> = {};
  const rawValues = reader.object('values') ?? {};
  for (const key in rawValues) {
    if (!Object.hasOwn(rawValues, key)) continue;
    const floor = rawValues[key];
    if (typeof floor === 'number' && Number.isFinite(floor)) values[key] = floor;
    else errors.push(`${path}.values[${JSON.stringify(key)}] must be a number`);
  }
  return dropUndefined({
    currency: reader.nonEmptyString('currency'),
    modelweight: reader.number('modelweight'),
    modelversion: reader.nonEmptyString('modelversion'),
    skiprate: reader.nonZeroNumber('skiprate'),
    schema: dropUndefined({ fields, delimiter: schemaReader.string('delimiter') || undefined }),
    values,
    default: reader.nonZeroNumber('default'),
  });
}

// Made once: an arrow written in each call would be a new function object per call, per request.
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

class Reader {
  constructor(
    private readonly source: JsonObject,
    private readonly path: string,
    private readonly errors: string[],
  ) {}

  /**
   * The member as Go decodes it into Prebid Server's floors structs: the key as the struct names it (lower case), else
   * one equal to it ignoring case (`floorMin`, `modelGroups`, `enforcePBS`, as Prebid.js writes them).
   */
  raw(key: string): unknown {
    const value = this.source[key];
    return value !== undefined ? value : fieldIgnoringCase(this.source, key);
  }

  private read<T>(key: string, type: string, ok: (value: unknown) => value is T): T | undefined {
    const value = this.raw(key);
    if (value === undefined || value === null) return undefined;
    if (ok(value)) return value;
    this.errors.push(`${this.path}.${key} must be ${type}`);
    return undefined;
  }

  number(key: string): number | undefined {
    return this.read(key, 'a number', isFiniteNumber);
  }

  string(key: string): string | undefined {
    return this.read(key, 'a string', isString);
  }

  /**
   * A member Prebid Server holds in a plain (not pointer) `omitempty` field: its zero value is the same as no value
   * and is not written back, so the rules echo without it.
   */
  nonZeroNumber(key: string): number | undefined {
    const value = this.number(key);
    return value === 0 ? undefined : value;
  }

  nonEmptyString(key: string): string | undefined {
    const value = this.string(key);
    return value === '' ? undefined : value;
  }

  boolean(key: string): boolean | undefined {
    return this.read(key, 'a boolean', isBoolean);
  }

  object(key: string): JsonObject | undefined {
    return this.read(key, 'an object', isJsonObject);
  }
}

/** The members that are set: copied into a new object (a `delete` would leave the object slow to read). */
function dropUndefined<T extends object>(object: T): T {
  const out = {} as T;
  for (const key in object) if (object[key] !== undefined) out[key] = object[key];
  return out;
}

// ---- Prebid Server's checks ------------------------------------------------------------------------------------

/** Prebid Server's `validateFloorParams`: the rules as a whole. */
export function floorParamsError(rules: PriceFloorRules): string | undefined {
  const data = rules.data;
  if (data?.floorsschemaversion !== undefined && data.floorsschemaversion !== 0 && data.floorsschemaversion !== 2) {
    return `Invalid FloorsSchemaVersion = '${data.floorsschemaversion}', supported version 2`;
  }
  if (data?.skiprate !== undefined && (data.skiprate < 0 || data.skiprate > 100)) return `Invalid SkipRate = '${data.skiprate}' at ext.prebid.floors.data.skiprate`;
  if (rules.skiprate !== undefined && (rules.skiprate < 0 || rules.skiprate > 100)) return `Invalid SkipRate = '${rules.skiprate}' at ext.prebid.floors.skiprate`;
  if (rules.floormin !== undefined && rules.floormin < 0) return `Invalid FloorMin = '${rules.floormin}', value should be >= 0`;
  return undefined;
}

/** Go's `%v` of a string slice. */
const goList = (fields: readonly string[]): string => `[${fields.join(' ')}]`;

export interface GroupLimits {
  maxSchemaDims: number;
  maxRules: number;
}

/** Prebid Server's `selectValidFloorModelGroups`: the groups that pass, and why the others did not. */
export function validModelGroups(groups: readonly ModelGroup[], limits: GroupLimits, errors: string[]): ModelGroup[] {
  if (groups.length === 0) {
    errors.push('No model group present in floors.data');
    return [];
  }
  const valid: ModelGroup[] = [];
  for (const group of groups) {
    const version = group.modelversion ?? '';
    const unknown = group.schema.fields.find((field) => !SCHEMA_FIELDS.has(field));
    if (unknown !== undefined) {
      errors.push(`Invalid schema dimension provided = '${unknown}' in Schema Fields = '${goList(group.schema.fields)}'`);
      continue;
    }
    const ruleCount = Object.keys(group.values).length;
    if (limits.maxSchemaDims > 0 && group.schema.fields.length > limits.maxSchemaDims) {
      errors.push(`Invalid Floor Model = '${version}' due to number of schema fields = '${group.schema.fields.length}' are greater than limit ${limits.maxSchemaDims}`);
    } else if (limits.maxRules > 0 && ruleCount > limits.maxRules) {
      errors.push(`Invalid Floor Model = '${version}' due to number of rules = '${ruleCount}' are greater than limit ${limits.maxRules}`);
    } else if (group.skiprate !== undefined && (group.skiprate < 0 || group.skiprate > 100)) {
      errors.push(`Invalid Floor Model = '${version}' due to SkipRate = '${group.skiprate}' is out of range (1-100)`);
    } else if (group.modelweight !== undefined && (group.modelweight < 1 || group.modelweight > 100)) {
      errors.push(`Invalid Floor Model = '${version}' due to ModelWeight = '${group.modelweight}' is out of range (1-100)`);
    } else if (group.default !== undefined && group.default < 0) {
      errors.push(`Invalid Floor Model = '${version}' due to Default = '${group.default}' is less than 0`);
    } else {
      valid.push(group);
    }
  }
  return valid;
}

/** Prebid Server's `selectFloorModelGroup`: one group, by weight (a group without one weighs 1). */
export function pickModelGroup(groups: readonly ModelGroup[], random: () => number): ModelGroup {
  if (groups.length === 1) return groups[0]!;
  const weighted = groups.map((group) => ({ group, weight: group.modelweight ?? 1 })).sort((a, b) => a.weight - b.weight);
  const total = weighted.reduce((sum, entry) => sum + entry.weight, 0);
  // Go's rand.Intn(total + 1): 0..total.
  let win = Math.floor(random() * (total + 1));
  for (const entry of weighted) {
    win -= entry.weight;
    if (win <= 0) return entry.group;
  }
  return weighted[0]!.group;
}

/** Prebid Server's `shouldSkipFloors`: the model group's skip rate, else the data's, else the root's. */
export function shouldSkip(group: ModelGroup, data: FloorData | undefined, rules: PriceFloorRules, random: () => number): boolean {
  const rate = (group.skiprate ?? 0) > 0 ? group.skiprate! : (data?.skiprate ?? 0) > 0 ? data!.skiprate! : (rules.skiprate ?? 0);
  if (rate === 0) return false;
  // Go's rand.Intn(101): 0..100.
  return rate >= Math.floor(random() * 101);
}

/** The floors' currency: the model group's, else the data's, else USD. */
export function floorCurrency(group: ModelGroup | undefined, data: FloorData | undefined): string {
  return group?.currency || data?.currency || DEFAULT_CURRENCY;
}

// ---- the lookup ------------------------------------------------------------------------------------------------

/** A model group ready for lookups: rule keys lower-cased, those with the wrong number of fields dropped. */
export interface CompiledGroup {
  group: ModelGroup;
  fields: readonly string[];
  delimiter: string;
  values: ReadonlyMap<string, number>;
  /**
   * The group's rules as Prebid Server leaves them in the request once it has validated them (keys lower-cased, those
   * with the wrong number of fields deleted: it edits the rules in place), when that differs from what they were.
   */
  checkedValues?: Record<string, number>;
}

/** Prebid Server's `validateFloorRulesAndLowerValidRuleKey`, once per model group. */
export function compileGroup(group: ModelGroup, errors: string[]): CompiledGroup {
  const fields = group.schema.fields;
  const delimiter = group.schema.delimiter || DEFAULT_DELIMITER;
  const values = new Map<string, number>();
  let changed = false;
  for (const key in group.values) {
    if (!Object.hasOwn(group.values, key)) continue;
    if (key.split(delimiter).length !== fields.length) {
      errors.push(`Invalid Floor Rule = '${key}' for Schema Fields = '${goList(fields)}'`);
      changed = true;
      continue;
    }
    const lower = key.toLowerCase();
    if (lower !== key) changed = true;
    values.set(lower, group.values[key]!);
  }
  const compiledGroup: CompiledGroup = { group, fields, delimiter, values };
  if (changed) compiledGroup.checkedValues = Object.fromEntries(values);
  return compiledGroup;
}

/**
 * The order keys are tried in, per number of fields: as bit masks of the fields replaced by `*`, fewest wildcards
 * first and, among equals, by Prebid Server's weight (`sortCombinations`, a stable sort): a wildcard on field i weighs
 * 2^(2^count - i) in Go's 64-bit int, so up to five fields the left-most fields are the more specific (wildcards on
 * the right tried first). From six fields on, Go's shifts and sums overflow (a shift of 64 or more is 0, of 63 the
 * lowest int, sums wrap) and the order is what those wrapped weights make it; from seven on every weight is 0 and
 * the masks stay in the order they were made (increasing, field 0 the lowest bit). Made once per count.
 */
const wildcardOrders = new Map<number, readonly number[]>();

/** Prebid Server's weight of a wildcard set, in Go's int (int64) arithmetic. */
function goWildcardWeight(mask: number, count: number): bigint {
  const totalComb = 2 ** count;
  let total = 0n;
  for (let i = 0; i < count; i++) {
    if (((mask >> i) & 1) === 0) continue;
    const shift = totalComb - i;
    if (shift < 64) total = BigInt.asIntN(64, total + BigInt.asIntN(64, 1n << BigInt(shift)));
  }
  return total;
}

function wildcardOrder(count: number): readonly number[] {
  let order = wildcardOrders.get(count);
  if (!order) {
    const ones = (mask: number): number => mask.toString(2).replaceAll('0', '').length;
    const masks = Array.from({ length: 1 << count }, (_, mask) => ({ mask, ones: ones(mask), weight: goWildcardWeight(mask, count) }));
    // Array.prototype.sort is stable, as Go's sort.SliceStable.
    order = masks.sort((a, b) => a.ones - b.ones || (a.weight < b.weight ? -1 : a.weight > b.weight ? 1 : 0)).map((entry) => entry.mask);
    wildcardOrders.set(count, order);
  }
  return order;
}

/** The rule an imp matches: its key and value, or undefined. `values` are the imp's field values, lower-cased. */
export function findRule(compiled: CompiledGroup, values: readonly string[]): { rule: string; value: number } | undefined {
  if (compiled.values.size === 0) return undefined;
  for (const mask of wildcardOrder(values.length)) {
    let key = '';
    for (let i = 0; i < values.length; i++) {
      if (i > 0) key += compiled.delimiter;
      key += (mask >> i) & 1 ? CATCH_ALL : values[i];
    }
    const value = compiled.values.get(key);
    if (value !== undefined) return { rule: key, value };
  }
  return undefined;
}

/** What the request-wide schema fields read, worked out once per request and only for the fields a schema names. */
export class RequestFields {
  private readonly cache = new Map<string, string>();

  constructor(
    private readonly request: BidRequest,
    private readonly namespace: string,
  ) {}

  value(field: string, imp: Imp): string {
    switch (field) {
      case 'mediaType':
        return mediaType(imp);
      case 'size':
        return size(imp);
      case 'gptSlot':
        return gptSlot(imp);
      case 'adUnitCode':
        return adUnitCode(imp);
      default: {
        let value = this.cache.get(field);
        if (value === undefined) {
          value = this.requestValue(field);
          this.cache.set(field, value);
        }
        return value;
      }
    }
  }

  /** The imp's values for the fields, lower-cased, as keys are compared. */
  values(fields: readonly string[], imp: Imp): string[] {
    return fields.map((field) => this.value(field, imp).toLowerCase());
  }

  private requestValue(field: string): string {
    const { site, app, device } = this.request;
    switch (field) {
      case 'domain':
        if (site) return site.domain || site.publisher?.domain || CATCH_ALL;
        if (app) return app.domain || app.publisher?.domain || CATCH_ALL;
        return CATCH_ALL;
      case 'siteDomain':
        return site?.domain || app?.domain || CATCH_ALL;
      case 'pubDomain':
        return site?.publisher?.domain || app?.publisher?.domain || CATCH_ALL;
      case 'bundle':
        return app?.bundle || CATCH_ALL;
      // A geo without a country, or a channel without a name, is the empty value, not the catch-all, as Prebid
      // Server reads the field once its holder is there.
      case 'country': {
        const geo = device?.geo;
        if (!isJsonObject(geo)) return CATCH_ALL;
        return typeof geo.country === 'string' ? geo.country : '';
      }
      case 'deviceType':
        return deviceType(device?.ua);
      case 'channel': {
        const ext = isJsonObject(this.request.ext) ? this.request.ext[this.namespace] : undefined;
        const channel = isJsonObject(ext) ? ext.channel : undefined;
        if (!isJsonObject(channel)) return CATCH_ALL;
        return typeof channel.name === 'string' ? channel.name : '';
      }
      default:
        return CATCH_ALL;
    }
  }
}

const PHONE = /Phone|iPhone|Android.*Mobile|Mobile.*Android/i;
const TABLET = /tablet|iPad|touch.*Windows NT|Windows NT.*touch|Android/i;

/** Prebid Server's device type from the user agent (once per request, only when a schema names it). */
function deviceType(ua: string | undefined): string {
  if (!ua) return CATCH_ALL;
  if (PHONE.test(ua)) return 'phone';
  if (TABLET.test(ua)) return 'tablet';
  return 'desktop';
}

function mediaType(imp: Imp): string {
  let value = CATCH_ALL;
  let count = 0;
  if (imp.banner) (count++, (value = 'banner'));
  if (imp.video) (count++, (value = imp.video.placement === 1 ? 'video' : 'video-outstream'));
  if (imp.audio) (count++, (value = 'audio'));
  if (imp.native) (count++, (value = 'native'));
  return count > 1 ? CATCH_ALL : value;
}

function size(imp: Imp): string {
  let w = 0;
  let h = 0;
  if (imp.banner) {
    const formats = imp.banner.format;
    if (Array.isArray(formats) && formats.length === 1) ((w = formats[0]?.w ?? 0), (h = formats[0]?.h ?? 0));
    else if (!Array.isArray(formats) || formats.length === 0) ((w = imp.banner.w ?? 0), (h = imp.banner.h ?? 0));
  } else if (imp.video) {
    ((w = imp.video.w ?? 0), (h = imp.video.h ?? 0));
  }
  return w !== 0 && h !== 0 ? `${w}x${h}` : CATCH_ALL;
}

function impData(imp: Imp): JsonObject | undefined {
  const data = imp.ext?.data;
  return isJsonObject(data) ? data : undefined;
}

/**
 * A string member of an object Prebid Server decodes into a struct (`imp.ext.data`, `imp.ext.prebid`): Go's decoder
 * matches member names ignoring case, so `pbAdSlot` is read as `pbadslot`. Empty when absent or not a string.
 */
function goString(object: JsonObject | undefined, name: string): string {
  const value = object === undefined ? undefined : fieldIgnoringCase(object, name);
  return typeof value === 'string' ? value : '';
}

function goObject(object: JsonObject | undefined, name: string): JsonObject | undefined {
  const value = object === undefined ? undefined : fieldIgnoringCase(object, name);
  return isJsonObject(value) ? value : undefined;
}

function gptSlot(imp: Imp): string {
  const data = impData(imp);
  if (!data) return CATCH_ALL;
  const adserver = goObject(data, 'adserver');
  if (adserver && goString(adserver, 'name') === 'gam') return goString(adserver, 'adslot') || CATCH_ALL;
  return goString(data, 'pbadslot') || CATCH_ALL;
}

function adUnitCode(imp: Imp): string {
  const gpid = imp.ext?.gpid;
  if (typeof gpid === 'string' && gpid !== '') return gpid;
  if (imp.tagid) return imp.tagid;
  const pbadslot = goString(impData(imp), 'pbadslot');
  if (pbadslot !== '') return pbadslot;
  for (const ns of ['prebid', 'svc']) {
    const own = imp.ext?.[ns];
    const stored = goString(goObject(isJsonObject(own) ? own : undefined, 'storedrequest'), 'id');
    if (stored !== '') return stored;
  }
  return CATCH_ALL;
}

/** Rounds to four decimals, as Prebid Server rounds floors. */
export function roundFloor(value: number): number {
  return Math.round(value * 10000) / 10000;
}
