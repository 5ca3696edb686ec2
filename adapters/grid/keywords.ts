/**
 * Grid's keyword targeting: `request.ext.keywords.{site,user}` in Grid's publisher format, built from four sources —
 * the request's own `ext.keywords`, the first imp's `ext.bidder.keywords`, and the OpenRTB `user.keywords` and
 * `site.keywords` strings — as Prebid Server's Grid adapter builds it.
 *
 * A section (`site` or `user`) maps publisher keys to lists of `{name, segments: [{name, value}]}`. Input items may
 * also hold their segments in the alternate form `{"name": "pub", "topic": ["a", "b"]}`, which becomes segments
 * `topic=a`, `topic=b` (keys in sorted order). Items without a name or without any segment are dropped.
 */
import { isJsonObject, type BidRequest, type JsonObject } from '../../core/api/index.js';

interface Segment {
  name: string;
  value: string;
}
interface PublisherItem {
  name: string;
  segments: Segment[];
}
type Section = Record<string, PublisherItem[]>;
type Keywords = Record<string, Section>;

const SECTIONS = ['site', 'user'] as const;

/**
 * The request `ext` with the consolidated keywords: undefined when nothing is left in it. Other keys of `ext` and of
 * `ext.keywords` stay as they are; `ext.keywords.site`/`user` are replaced by the parsed sections (or removed).
 */
export function extWithKeywords(request: BidRequest): JsonObject | undefined {
  const ext: JsonObject = isJsonObject(request.ext) ? { ...request.ext } : {};
  const extKeywords: JsonObject = isJsonObject(ext.keywords) ? { ...ext.keywords } : {};
  const firstImpExt = Array.isArray(request.imp) && isJsonObject(request.imp[0]?.ext) ? request.imp[0]!.ext : {};
  const firstImpParams = isJsonObject(firstImpExt.bidder) ? firstImpExt.bidder : {};

  const keywords = keywordsFromMap(extKeywords);
  mergeKeywords(keywords, keywordsFromMap(isJsonObject(firstImpParams.keywords) ? firstImpParams.keywords : {}));
  mergeKeywords(keywords, keywordsFromOpenRtb(request.user?.keywords, 'user'));
  mergeKeywords(keywords, keywordsFromOpenRtb(request.site?.keywords, 'site'));

  for (const section of SECTIONS) {
    const parsed = keywords[section];
    if (parsed && Object.keys(parsed).length > 0) extKeywords[section] = parsed;
    else delete extKeywords[section];
  }
  if (Object.keys(extKeywords).length > 0) ext.keywords = extKeywords;
  else delete ext.keywords;
  return Object.keys(ext).length > 0 ? ext : undefined;
}

/** Only the `site` and `user` sections count, and only when they are objects. */
function keywordsFromMap(map: JsonObject): Keywords {
  const keywords: Keywords = {};
  for (const section of SECTIONS) {
    const value = map[section];
    if (isJsonObject(value)) keywords[section] = parseSection(value);
  }
  return keywords;
}

function parseSection(section: JsonObject): Section {
  const parsed: Section = {};
  for (const [publisherKey, items] of Object.entries(section)) {
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (!isJsonObject(item) || typeof item.name !== 'string') continue;
      const segments = [...formattedSegments(item.segments), ...alternateSegments(item)];
      if (segments.length > 0) (parsed[publisherKey] ??= []).push({ name: item.name, segments });
    }
  }
  return parsed;
}

/** `segments: [{name, value}]`, keeping the entries with both as strings. */
function formattedSegments(segments: unknown): Segment[] {
  if (!Array.isArray(segments)) return [];
  return segments.flatMap((segment) =>
    isJsonObject(segment) && typeof segment.name === 'string' && typeof segment.value === 'string' ? [{ name: segment.name, value: segment.value }] : [],
  );
}

/** Every array-valued key of the item, in sorted order, gives one segment per string in it. */
function alternateSegments(item: JsonObject): Segment[] {
  return Object.keys(item)
    .sort()
    .flatMap((name) => {
      const values = item[name];
      return Array.isArray(values) ? values.filter((value): value is string => typeof value === 'string').map((value) => ({ name, value })) : [];
    });
}

/** OpenRTB's comma-separated keywords, as the `ortb2` publisher of the section. */
function keywordsFromOpenRtb(text: unknown, section: (typeof SECTIONS)[number]): Keywords {
  const segments = (typeof text === 'string' ? text.split(',') : []).filter((value) => value !== '').map((value) => ({ name: 'keywords', value }));
  return segments.length > 0 ? { [section]: { ortb2: [{ name: 'keywords', segments }] } } : {};
}

/** Adds `from` into `into`; for a publisher key both have, the items of `from` come first. */
function mergeKeywords(into: Keywords, from: Keywords): void {
  for (const [section, publishers] of Object.entries(from)) {
    const target = (into[section] ??= {});
    for (const [publisherKey, items] of Object.entries(publishers)) target[publisherKey] = [...items, ...(target[publisherKey] ?? [])];
  }
}
