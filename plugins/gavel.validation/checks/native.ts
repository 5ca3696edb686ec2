/**
 * Native requests (OpenRTB Native 1.1/1.2, as Prebid Server checks them): `imp.native.request` is a JSON string whose
 * context, placement type, assets and event trackers must be valid. Asset ids (decision, reference behaviour section
 * 2): ids the request gives are kept when they are unique integers, an asset without one gets its index (or, when
 * another asset already holds that number, the next free one), and only duplicate or non-integer ids are refused.
 * Validation parses the request once and hands back the numbered form.
 */
import { goDecodeProblem, goStructType, isJsonObject, type GoType } from '../../../core/api/index.js';
import { isPresent, type JsonObject } from './values.js';

export type NativeOutcome = { error: string } | { normalisedRequest: string };

/** Values at or above this are exchange-specific, and valid wherever the spec lists types. */
const EXCHANGE_SPECIFIC = 500;
const SPEC_1_2 = 'https://iabtechlab.com/wp-content/uploads/2016/07/OpenRTB-Native-Ads-Specification-Final-1.2.pdf';
const SPEC_2_5 = 'https://www.iab.com/wp-content/uploads/2016/03/OpenRTB-API-Specification-Version-2-5-FINAL.pdf';

/** Context types (Native 1.2, 7.1): content, social, product; and the subtypes each allows (7.2). */
const CONTEXT_SUBTYPES: Readonly<Record<number, readonly [number, number]>> = { 1: [10, 15], 2: [20, 22], 3: [30, 32] };
const PLACEMENT_TYPES: readonly [number, number] = [1, 4];
const DATA_ASSET_TYPES: readonly [number, number] = [1, 12];
const EVENT_TYPES: readonly [number, number] = [1, 4];
const EVENT_METHODS: readonly [number, number] = [1, 2];
const VIDEO_PROTOCOLS: readonly [number, number] = [1, 10];

const inRange = (value: number, [low, high]: readonly [number, number]): boolean => value >= low && value <= high;
const listedOrExchange = (value: number, range: readonly [number, number]): boolean => inRange(value, range) || value >= EXCHANGE_SPECIFIC;

/**
 * The Native request as Prebid Server decodes it (`native1/request.Request` of its OpenRTB library) before it checks
 * it: a member of the wrong JSON type fails in its decoder's words (`cannot unmarshal request.Request.Context: ...`).
 * An asset's `id` is left to this module's own rule (the decision above), which names the asset.
 */
const NATIVE_REQUEST: GoType = goStructType('request.Request', {
  ver: ['Ver', 'string'],
  context: ['Context', 'int'],
  contextsubtype: ['ContextSubType', 'int'],
  plcmttype: ['PlcmtType', 'int'],
  plcmtcnt: ['PlcmtCnt', 'int'],
  seq: ['Seq', 'int'],
  assets: ['Assets', {
    slice: '[]request.Asset',
    of: goStructType('request.Asset', {
      id: ['ID', 'raw'],
      required: ['Required', 'int8'],
      title: ['Title', goStructType('request.Title', { len: ['Len', 'int'] })],
      img: ['Img', goStructType('request.Image', {
        type: ['Type', 'int'], w: ['W', 'int'], wmin: ['WMin', 'int'], h: ['H', 'int'], hmin: ['HMin', 'int'],
        mimes: ['MIMEs', { slice: '[]string', of: 'string' }],
      })],
      video: ['Video', goStructType('request.Video', {
        mimes: ['MIMEs', { slice: '[]string', of: 'string' }], minduration: ['MinDuration', 'int'], maxduration: ['MaxDuration', 'int'],
        protocols: ['Protocols', { slice: '[]adcom1.MediaCreativeSubtype', of: 'int' }],
      })],
      data: ['Data', goStructType('request.Data', { type: ['Type', 'int'], len: ['Len', 'int'] })],
    }),
  }],
  aurlsupport: ['AURLSupport', 'int8'],
  durlsupport: ['DURLSupport', 'int8'],
  eventtrackers: ['EventTrackers', {
    slice: '[]request.EventTracker',
    of: goStructType('request.EventTracker', { event: ['Event', 'int'], methods: ['Methods', { slice: '[]native1.EventTrackingMethod', of: 'int' }] }),
  }],
  privacy: ['Privacy', 'int8'],
});

export function normaliseNative(native: unknown, path: string): NativeOutcome {
  if (!isJsonObject(native)) return { error: `${path} must be an object` };
  if (!isPresent(native.request)) return { error: `${path} missing required property "request"` };
  const document = parseJsonObject(native.request);
  if (document === undefined) {
    return { error: `${path}.request must be a JSON encoded string conforming to the openrtb 1.2 Native spec` };
  }
  // Native 1.0 wraps the request in {"native": {...}}; the numbered request keeps the shape it came in.
  const wrapped = isJsonObject(document.native) && !isPresent(document.assets);
  const body = wrapped ? (document.native as JsonObject) : document;
  const requestPath = `${path}.request${wrapped ? '.native' : ''}`;
  const undecodable = goDecodeProblem(body, NATIVE_REQUEST);
  if (undecodable !== undefined) return { error: `${undecodable} (in ${requestPath})` };
  const error =
    integersError(body, ['context', 'contextsubtype', 'plcmttype'], requestPath) ??
    contextError(body, requestPath) ??
    placementError(body, requestPath) ??
    assetsError(body.assets, `${requestPath}.assets`) ??
    eventTrackersError(body.eventtrackers, `${requestPath}.eventtrackers`);
  if (error !== undefined) return { error };
  const numbered = { ...body, assets: numberAssets(body.assets as JsonObject[]) };
  return { normalisedRequest: JSON.stringify(wrapped ? { ...document, native: numbered } : numbered) };
}

function parseJsonObject(text: unknown): JsonObject | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function integersError(object: JsonObject, fields: readonly string[], path: string): string | undefined {
  for (const field of fields) {
    const value = object[field];
    if (isPresent(value) && !Number.isInteger(value)) return `${path}.${field} must be an integer`;
  }
  return undefined;
}

const numberOr0 = (value: unknown): number => (typeof value === 'number' ? value : 0);

function contextError(body: JsonObject, path: string): string | undefined {
  const context = numberOr0(body.context);
  const subtype = numberOr0(body.contextsubtype);
  // Context is only recommended: none is valid, and then so is any subtype.
  if (context === 0) return undefined;
  if (context < 1 || (context > 3 && context < EXCHANGE_SPECIFIC)) return `${path}.context is invalid. See ${SPEC_1_2}#page=39`;
  if (subtype < 0) return `${path}.contextsubtype value can't be less than 0. See ${SPEC_1_2}#page=39`;
  if (subtype === 0 || subtype >= EXCHANGE_SPECIFIC) return undefined;
  for (const [type, range] of Object.entries(CONTEXT_SUBTYPES)) {
    if (!inRange(subtype, range)) continue;
    if (context !== Number(type) && context < EXCHANGE_SPECIFIC) {
      return `${path}.context is ${context}, but contextsubtype is ${subtype}. This is an invalid combination. See ${SPEC_1_2}#page=39`;
    }
    return undefined;
  }
  return `${path}.contextsubtype is invalid. See ${SPEC_1_2}#page=39`;
}

function placementError(body: JsonObject, path: string): string | undefined {
  const placement = numberOr0(body.plcmttype);
  if (placement === 0 || listedOrExchange(placement, PLACEMENT_TYPES)) return undefined;
  return `${path}.plcmttype is invalid. See ${SPEC_1_2}#page=40`;
}

function assetsError(assets: unknown, path: string): string | undefined {
  if (!Array.isArray(assets) || assets.length === 0) return `${path} must be an array containing at least one object`;
  const ids = new Set<number>();
  for (const [index, asset] of assets.entries()) {
    const assetPath = `${path}[${index}]`;
    if (!isJsonObject(asset)) return `${assetPath} must be an object`;
    // Prebid Server checks the asset itself before its id (fillAndValidateNativeAssets).
    const error = assetError(asset, assetPath);
    if (error !== undefined) return error;
    if (isPresent(asset.id)) {
      if (!Number.isInteger(asset.id)) return `${assetPath}.id must be an integer. Leave it out to have the asset numbered by its position.`;
      if (ids.has(asset.id as number)) return `${assetPath}.id is already being used by another asset. Each asset ID must be unique.`;
      ids.add(asset.id as number);
    }
  }
  return undefined;
}

/**
 * One asset, as Prebid Server's validateNativeAsset reads it: title, img, video, data in turn, each checked as it is
 * met, so a bad first kind is named before a second kind makes the asset ambiguous.
 */
function assetError(asset: JsonObject, path: string): string | undefined {
  let found = false;
  for (const kind of ['title', 'img', 'video', 'data'] as const) {
    const value = asset[kind];
    if (!isPresent(value)) continue;
    if (found) return `${path} must define exactly one of {title, img, video, data}`;
    found = true;
    if (!isJsonObject(value)) return `${path}.${kind} must be an object`;
    const error = assetKindError(kind, value, path);
    if (error !== undefined) return error;
  }
  return found ? undefined : `${path} must define exactly one of {title, img, video, data}`;
}

function assetKindError(kind: 'title' | 'img' | 'video' | 'data', value: JsonObject, path: string): string | undefined {
  switch (kind) {
    case 'title':
      return numberOr0(value.len) < 1 ? `${path}.title.len must be a positive number` : undefined;
    case 'img':
      for (const field of ['w', 'h', 'wmin', 'hmin']) if (numberOr0(value[field]) < 0) return `${path}.img.${field} must be a positive integer`;
      return undefined;
    case 'video':
      return videoAssetError(value, `${path}.video`);
    case 'data':
      return listedOrExchange(numberOr0(value.type), DATA_ASSET_TYPES) ? undefined : `${path}.data.type is invalid. See section 7.4: ${SPEC_1_2}#page=40`;
  }
}

function videoAssetError(video: JsonObject, path: string): string | undefined {
  if (!Array.isArray(video.mimes) || video.mimes.length === 0) return `${path}.mimes must be an array with at least one MIME type`;
  if (numberOr0(video.minduration) < 1) return `${path}.minduration must be a positive integer`;
  if (numberOr0(video.maxduration) < 1) return `${path}.maxduration must be a positive integer`;
  if (!Array.isArray(video.protocols) || video.protocols.length === 0) return `${path}.protocols must be an array with at least one element`;
  for (const [index, protocol] of video.protocols.entries()) {
    if (!inRange(numberOr0(protocol), VIDEO_PROTOCOLS)) return `${path}.protocols[${index}] is invalid. See Section 5.8: ${SPEC_2_5}#page=52`;
  }
  return undefined;
}

function eventTrackersError(trackers: unknown, path: string): string | undefined {
  if (!isPresent(trackers)) return undefined;
  if (!Array.isArray(trackers)) return `${path} must be an array`;
  for (const [index, tracker] of trackers.entries()) {
    const trackerPath = `${path}[${index}]`;
    if (!isJsonObject(tracker)) return `${trackerPath} must be an object`;
    if (!listedOrExchange(numberOr0(tracker.event), EVENT_TYPES)) return `${trackerPath}.event is invalid. See section 7.6: ${SPEC_1_2}#page=43`;
    if (!Array.isArray(tracker.methods) || tracker.methods.length === 0) return `${trackerPath}.method is required. See section 7.7: ${SPEC_1_2}#page=43`;
    for (const [methodIndex, method] of tracker.methods.entries()) {
      if (!listedOrExchange(numberOr0(method), EVENT_METHODS)) return `${trackerPath}.methods[${methodIndex}] is invalid. See section 7.7: ${SPEC_1_2}#page=43`;
    }
  }
  return undefined;
}

/**
 * The assets with their ids: a given id is kept; an asset without one gets its index, or the next number no other
 * asset holds when its index is taken.
 */
function numberAssets(assets: JsonObject[]): JsonObject[] {
  const taken = new Set<number>();
  for (const asset of assets) if (Number.isInteger(asset.id)) taken.add(asset.id as number);
  if (taken.size === assets.length) return assets;
  let next = 0;
  return assets.map((asset, index) => {
    if (isPresent(asset.id)) return asset;
    let id = index;
    if (taken.has(id)) {
      while (taken.has(next)) next++;
      id = next;
    }
    taken.add(id);
    return { id, ...asset };
  });
}
