/**
 * Custom ad-server keys (`request.ext.<ns>.adservertargeting`, Prebid Server's "ad server targeting"): each entry
 * `{key, source, value}` adds `key` to every bid's targeting with a value from the request (`bidrequest`: a path in
 * the request, `imp.` paths read in the bid's imp), from the bid (`bidresponse`: `seatbid.bid.<path>`), or as it is
 * (`static`). `{{BIDDER}}` in a key stands for the bid's seat. Entries that cannot be used become warnings (10007).
 */
import { isJsonObject, WarningCode, type AuctionBid, type AuctionContext, type AuctionResult, type BidRequest, type Imp } from '../../core/api/index.js';
import { cut } from './keys.js';

const SOURCES = new Set(['bidrequest', 'bidresponse', 'static']);
const BID_PATH = 'seatbid.bid.';

interface Rule {
  key: string;
  source: 'bidrequest' | 'bidresponse' | 'static';
  value: string;
}

export function applyAdServerTargeting(auction: AuctionResult, keyLength: number, context: AuctionContext): void {
  const own = auction.request.ext?.[context.namespace];
  const entries = isJsonObject(own) ? own.adservertargeting : undefined;
  if (!Array.isArray(entries) || entries.length === 0) return;
  const warn = (message: string): void => context.warn('general', { code: WarningCode.AdServerTargeting, message });

  const rules: Rule[] = [];
  entries.forEach((entry, index) => {
    const rule = readRule(entry, index);
    if ('warning' in rule) warn(rule.warning);
    else rules.push(rule);
  });
  if (rules.length === 0) return;

  // Request values are read once per rule (imp paths once per imp): each failure is reported once.
  const requestValues = new Map<Rule, Map<string, string | undefined>>();
  const topLevel = new Map<Rule, string | undefined>();
  const impsById = new Map(auction.request.imp.map((imp) => [imp.id, imp]));
  for (const rule of rules) {
    if (rule.source !== 'bidrequest') continue;
    if (rule.value.startsWith('imp.')) {
      const byImp = new Map<string, string | undefined>();
      for (const imp of auction.request.imp) byImp.set(imp.id, readValue(imp, rule.value.slice(4).split('.'), rule.value, warn));
      requestValues.set(rule, byImp);
    } else {
      topLevel.set(rule, readValue(auction.request, rule.value.split('.'), rule.value, warn));
    }
  }

  for (const seat of auction.seats) {
    for (const bid of seat.bids) {
      const seatName = bid.seat ?? bid.bidder;
      for (const rule of rules) {
        const value = ruleValue(rule, bid, seatName, requestValues, topLevel, impsById, warn);
        if (value === undefined) continue;
        const key = cut(rule.key.replaceAll('{{BIDDER}}', seatName), keyLength);
        // The first rule to set a key keeps it: a later entry with the same key does not replace it.
        if (!Object.hasOwn(bid.targeting, key)) bid.targeting[key] = value;
      }
    }
  }
}

function readRule(entry: unknown, index: number): Rule | { warning: string } {
  const { key, source, value } = isJsonObject(entry) ? entry : ({} as Record<string, unknown>);
  if (typeof key !== 'string' || key === '') return { warning: `Key is empty for the ad server targeting object at index ${index}` };
  if (typeof source !== 'string' || !SOURCES.has(source)) return { warning: `Incorrect source for the ad server targeting object at index ${index}` };
  if (typeof value !== 'string' || value === '') return { warning: `Value is empty for the ad server targeting object at index ${index}` };
  return { key, source: source as Rule['source'], value };
}

function ruleValue(
  rule: Rule,
  bid: AuctionBid,
  seatName: string,
  requestValues: Map<Rule, Map<string, string | undefined>>,
  topLevel: Map<Rule, string | undefined>,
  impsById: Map<string, Imp>,
  warn: (message: string) => void,
): string | undefined {
  if (rule.source === 'static') return rule.value;
  if (rule.source === 'bidrequest') {
    const byImp = requestValues.get(rule);
    return byImp ? (impsById.has(bid.bid.impid) ? byImp.get(bid.bid.impid) : undefined) : topLevel.get(rule);
  }
  if (!rule.value.startsWith(BID_PATH)) {
    warn(`key not found for field in bid response: ${rule.value} for bidder: ${seatName}`);
    return undefined;
  }
  const path = rule.value.slice(BID_PATH.length);
  const found = lookup(bid.bid, path.split('.'));
  if (found === undefined) {
    warn(`value not found for path: ${path} for bidder: ${seatName}`);
    return undefined;
  }
  if (typeof found === 'string') return found;
  if (typeof found === 'number' && Number.isFinite(found)) return String(found);
  warn(`incorrect value type for path: ${path} for bidder: ${seatName}, value can only be string or number`);
  return undefined;
}

/** A request value at `path` as a string; undefined (with a warning) when absent or not a string or number. */
function readValue(root: BidRequest | Imp, path: string[], fullPath: string, warn: (message: string) => void): string | undefined {
  const found = lookup(root, path);
  if (typeof found === 'string') return found;
  if (typeof found === 'number' && Number.isFinite(found)) return String(found);
  if (found === undefined) warn(`value not found for path: ${fullPath}`);
  else warn(`incorrect value type for path: ${fullPath}, value can only be string or number`);
  return undefined;
}

function lookup(root: unknown, path: string[]): unknown {
  let value: unknown = root;
  for (const key of path) {
    if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}
