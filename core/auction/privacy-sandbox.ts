import { isJsonObject, WarningCode, type BidRequest, type Warning } from '../api/index.js';

type Json = Record<string, unknown>;

/** The request header a browser sends its Topics API topics in, and the answer that asks it to record them. */
export const SEC_BROWSING_TOPICS = 'sec-browsing-topics';
export const OBSERVE_BROWSING_TOPICS = 'observe-browsing-topics';
export const OBSERVE_BROWSING_TOPICS_VALUE = '?1';
/** The header of Chrome's cookie deprecation label. */
export const SEC_COOKIE_DEPRECATION = 'sec-cookie-deprecation';

/** One topic of the header: its taxonomy as a segtax (600 for taxonomy 1), its model version, its segment ids. */
export interface Topic {
  segtax: number;
  segclass: string;
  segids: number[];
}

/** Prebid Server reads this many topics of a header; those after it are named in a warning each. */
const MAX_TOPICS = 10;

/**
 * The topics of a `Sec-Browsing-Topics` header, as Prebid Server's privacysandbox.ParseTopicsFromHeader reads them:
 * comma-separated fields (blank ones and the `();p=` padding skipped), each `(<id> <id>...);v=<browser>:<taxonomy>:<model>`
 * with ids positive integers and a taxonomy from 1 to 10 (segtax 600 to 609). A field it cannot read, and each field
 * past the tenth topic, is a debug warning (code 10012).
 */
export function parseTopicsHeader(header: string): { topics: Topic[]; warnings: Warning[] } {
  const topics: Topic[] = [];
  const warnings: Warning[] = [];
  for (const raw of header.split(',')) {
    const field = raw.trim();
    if (field === '' || field.startsWith('();p=')) continue;
    if (topics.length >= MAX_TOPICS) {
      warnings.push(topicsWarning(`${field} discarded due to limit reached.`));
      continue;
    }
    const topic = parseTopicField(field);
    if (topic) topics.push(topic);
    else warnings.push(topicsWarning(field));
  }
  return { topics, warnings };
}

function topicsWarning(what: string): Warning {
  return { code: WarningCode.SecBrowsingTopics, message: `Invalid field in Sec-Browsing-Topics header: ${what}` };
}

function parseTopicField(field: string): Topic | undefined {
  const parts = field.split(';');
  if (parts.length !== 2) return undefined;
  const ids = parts[0]!.trim();
  if (ids.length < 3 || !ids.startsWith('(') || !ids.endsWith(')')) return undefined;
  const model = parts[1]!.split(':');
  if (model.length !== 3) return undefined;
  const taxonomy = goAtoi(model[1]!.trim());
  if (taxonomy === undefined || taxonomy < 1 || taxonomy > 10) return undefined;
  const segclass = model[2]!.trim();
  if (segclass === '') return undefined;
  const segids: number[] = [];
  for (const id of ids.slice(1, -1).split(/\s+/)) {
    if (id === '') continue;
    const segid = goAtoi(id);
    if (segid === undefined || segid <= 0) return undefined;
    segids.push(segid);
  }
  return { segtax: 600 + taxonomy - 1, segclass, segids };
}

/** A decimal integer as Go's strconv.Atoi reads it (a sign allowed, 64 bits), undefined when it refuses it. */
function goAtoi(text: string): number | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const value = BigInt(text);
  if (value > 9223372036854775807n || value < -9223372036854775808n) return undefined;
  return Number(value);
}

/**
 * `user.data` with the header's topics merged in, as Prebid Server's privacysandbox.UpdateUserDataWithTopics does:
 * the first entry named `topicsDomain` whose ext has the topic's segtax and segclass gets the topic's ids it lacks
 * (as `{id}` segments); the topics no entry took become new entries `{name: topicsDomain, segment, ext: {segtax,
 * segclass}}`, a topic's ids once each, in the header's order (Prebid Server's own order is its map's, random).
 * An entry whose ext does not read as `{segtax, segclass}` is left alone. The entries changed are copies.
 */
export function mergeTopicsIntoUserData(data: unknown[] | undefined, topics: readonly Topic[], topicsDomain: string): unknown[] | undefined {
  if (topicsDomain === '') return data;
  // segtax, then segclass, to the ids still to add.
  const pending = new Map<number, Map<string, Set<number>>>();
  for (const topic of topics) {
    let byClass = pending.get(topic.segtax);
    if (!byClass) pending.set(topic.segtax, (byClass = new Map()));
    let ids = byClass.get(topic.segclass);
    if (!ids) byClass.set(topic.segclass, (ids = new Set()));
    for (const id of topic.segids) ids.add(id);
  }
  let merged = data;
  if (data) {
    for (let i = 0; i < data.length; i++) {
      const entry = data[i];
      if (!isJsonObject(entry) || entry.name !== topicsDomain) continue;
      const ext = topicOfExt(entry.ext);
      if (!ext) continue;
      const ids = pending.get(ext.segtax)?.get(ext.segclass);
      if (!ids) continue;
      const segments = Array.isArray(entry.segment) ? entry.segment : [];
      for (const segment of segments) {
        const id = isJsonObject(segment) && typeof segment.id === 'string' ? goAtoi(segment.id) : undefined;
        if (id !== undefined) ids.delete(id);
      }
      if (ids.size > 0) {
        if (merged === data) merged = [...data];
        merged![i] = { ...entry, segment: [...segments, ...[...ids].map((id) => ({ id: String(id) }))] };
      }
      pending.get(ext.segtax)!.delete(ext.segclass);
    }
  }
  for (const [segtax, byClass] of pending) {
    for (const [segclass, ids] of byClass) {
      if (ids.size === 0) continue;
      if (merged === data) merged = [...(data ?? [])];
      merged!.push({ name: topicsDomain, segment: [...ids].map((id) => ({ id: String(id) })), ext: { segtax, segclass } });
    }
  }
  return merged;
}

/**
 * A `user.data[].ext` as Prebid Server decodes it into its topic struct: an object whose `segtax` is an integer,
 * `segclass` a string and `segids` (when set) a list of integers; undefined when that decoding fails, or leaves
 * segtax 0 or segclass empty.
 */
function topicOfExt(ext: unknown): { segtax: number; segclass: string } | undefined {
  if (!isJsonObject(ext)) return undefined;
  const { segtax, segclass, segids } = ext;
  if (segtax != null && !Number.isInteger(segtax)) return undefined;
  if (segclass != null && typeof segclass !== 'string') return undefined;
  if (segids != null && !(Array.isArray(segids) && segids.every((id) => id === null || Number.isInteger(id)))) return undefined;
  if (!segtax || !segclass) return undefined;
  return { segtax: segtax as number, segclass: segclass as string };
}

/** The first value of a request header, as Go's `Header.Get` gives it ('' when absent). */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * Prebid Server's setSecBrowsingTopicsImplicitly: with a `Sec-Browsing-Topics` header and an account that names its
 * topics domain (`privacy.privacysandbox.topicsdomain`), the header's topics are merged into `user.data` (a `user`
 * made for them when the request has none). Returns the header's warnings (debug warnings: shown only to a debug
 * auction), whether or not it had topics.
 */
export function fillBrowsingTopics(request: BidRequest, header: string, topicsDomain: string): Warning[] {
  if (header === '' || topicsDomain === '') return [];
  const { topics, warnings } = parseTopicsHeader(header);
  if (topics.length === 0) return warnings;
  if (request.user != null && !isJsonObject(request.user)) return warnings;
  const user = (request.user ??= {}) as Json;
  const data = Array.isArray(user.data) ? user.data : undefined;
  const merged = mergeTopicsIntoUserData(data, topics, topicsDomain);
  if (merged !== data) user.data = merged;
  return warnings;
}

/** Prebid Server's warning for a `Sec-Cookie-Deprecation` label longer than 100 bytes. */
const CDEP_TOO_LONG: Warning = Object.freeze({ code: WarningCode.SecCookieDeprecationLen, message: 'request.device.ext.cdep must not exceed 100 characters' });

/**
 * Prebid Server's validateOrFillCookieDeprecation, for an account with `privacy.privacysandbox.cookiedeprecation.enabled`:
 * the `Sec-Cookie-Deprecation` label becomes `device.ext.cdep` when the request has none (an empty one is none); a
 * label over 100 bytes is not taken, and is a warning (code 10011). Returns that warning, if any.
 */
export function fillCookieDeprecation(request: BidRequest, header: string): Warning | undefined {
  if (request.device != null && !isJsonObject(request.device)) return undefined;
  const deviceExt = isJsonObject(request.device) ? request.device.ext : undefined;
  if (deviceExt != null && !isJsonObject(deviceExt)) return undefined;
  if (deviceExt?.cdep != null && deviceExt.cdep !== '') return undefined;
  if (header === '') return undefined;
  // Header values arrive one character per byte (latin1): the length is Go's byte count.
  if (header.length > 100) return CDEP_TOO_LONG;
  const device = (request.device ??= {}) as Json;
  const ext = (isJsonObject(device.ext) ? device.ext : (device.ext = {})) as Json;
  ext.cdep = header;
  return undefined;
}
