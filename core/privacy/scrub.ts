import { isJsonObject, type BidRequest, type Imp } from '../api/index.js';

type Json = Record<string, unknown>;

const DEVICE_IDS = ['didmd5', 'didsha1', 'dpidmd5', 'dpidsha1', 'ifa', 'macmd5', 'macsha1'] as const;
const USER_DEMOGRAPHICS = ['buyeruid', 'id', 'yob', 'gender'] as const;
const USER_FPD = ['data', 'id', 'buyeruid', 'yob', 'gender', 'keywords', 'kwarray', 'eids'] as const;

/**
 * One bidder's request while privacy rules edit it: every branch (`user`, `user.ext`, `device`, the geos, `source`,
 * `imp`) is shallow-copied the first time a rule changes it, so the auction's request and the other bidders' shares
 * are never touched and nothing unchanged is copied. The scrubs are Prebid Server's (`privacy/scrubber.go`).
 */
export class ShareScrubber {
  private copied = 0;

  constructor(
    private readonly request: BidRequest,
    private readonly ipv4Bits: number,
    private readonly ipv6Bits: number,
  ) {}

  private own<K extends 'user' | 'device' | 'source' | 'regs'>(key: K, flag: number): Json | undefined {
    const branch = this.request[key] as Json | undefined;
    if (!isJsonObject(branch)) return undefined;
    if (this.copied & flag) return branch;
    this.copied |= flag;
    const copy = { ...branch };
    (this.request as Json)[key] = copy;
    return copy;
  }

  private user(): Json | undefined {
    return this.own('user', USER);
  }

  private device(): Json | undefined {
    return this.own('device', DEVICE);
  }

  private userExt(): Json | undefined {
    const user = this.user();
    if (!user || !isJsonObject(user.ext)) return undefined;
    if (!(this.copied & USER_EXT)) {
      this.copied |= USER_EXT;
      user.ext = { ...user.ext };
    }
    return user.ext as Json;
  }

  private removeFrom(branch: Json | undefined, keys: readonly string[]): void {
    if (!branch) return;
    for (const key of keys) if (branch[key] !== undefined) delete branch[key];
  }

  private has(key: 'user' | 'device', field: string): boolean {
    const branch = this.request[key] as Json | undefined;
    return isJsonObject(branch) && branch[field] !== undefined;
  }

  /** Removes a `user.ext` member; an ext left empty goes too, as Prebid Server writes an empty ext it edited as none. */
  private removeUserExt(field: string): void {
    const user = this.request.user as Json | undefined;
    if (!isJsonObject(user) || !isJsonObject(user.ext) || user.ext[field] === undefined) return;
    const ext = this.userExt()!;
    delete ext[field];
    for (const _ in ext) return;
    delete this.user()!.ext;
  }

  deviceIds(): void {
    if (DEVICE_IDS.some((id) => this.has('device', id))) this.removeFrom(this.device(), DEVICE_IDS);
  }

  userDemographics(): void {
    if (USER_DEMOGRAPHICS.some((field) => this.has('user', field))) this.removeFrom(this.user(), USER_DEMOGRAPHICS);
  }

  /** `user.eids` and `user.ext.eids`. */
  eids(): void {
    if (this.has('user', 'eids')) this.removeFrom(this.user(), ['eids']);
    this.removeUserExt('eids');
  }

  /** transmitUfpd denied: device ids, user ids, demographics, keywords, `user.data`, `user.ext.data`, eids. */
  userFpd(): void {
    this.deviceIds();
    if (USER_FPD.some((field) => this.has('user', field))) this.removeFrom(this.user(), USER_FPD);
    this.removeUserExt('data');
    this.removeUserExt('eids');
  }

  /** No GDPR basis for ids: device ids, user ids and demographics, eids. */
  gdprIds(): void {
    this.deviceIds();
    this.userDemographics();
    this.eids();
  }

  /** US privacy opt-out, LMT and COPPA: ids, IPs masked, eids; geo rounded, or cleared for COPPA. */
  idsIpsDemographics(clearGeo: boolean): void {
    this.deviceIds();
    this.deviceIp();
    this.userDemographics();
    this.eids();
    if (clearGeo) this.clearGeo();
    else this.roundGeo();
  }

  /** No precise geo: IPs masked and lat/lon rounded to two decimals. */
  geoAndIp(): void {
    this.deviceIp();
    this.roundGeo();
  }

  deviceIp(): void {
    const device = this.request.device as Json | undefined;
    if (!isJsonObject(device)) return;
    const ip = typeof device.ip === 'string' && device.ip !== '' ? maskIPv4(device.ip, this.ipv4Bits) : device.ip;
    const ipv6 = typeof device.ipv6 === 'string' && device.ipv6 !== '' ? maskIPv6(device.ipv6, this.ipv6Bits) : device.ipv6;
    if (ip === device.ip && ipv6 === device.ipv6) return;
    const own = this.device()!;
    setOrRemove(own, 'ip', ip);
    setOrRemove(own, 'ipv6', ipv6);
  }

  private roundGeo(): void {
    for (const key of ['user', 'device'] as const) {
      const geo = (this.request[key] as Json | undefined)?.geo;
      if (!isJsonObject(geo)) continue;
      const lat = typeof geo.lat === 'number' ? roundCoordinate(geo.lat) : geo.lat;
      const lon = typeof geo.lon === 'number' ? roundCoordinate(geo.lon) : geo.lon;
      if (lat === geo.lat && lon === geo.lon) continue;
      const own = this.own(key, key === 'user' ? USER : DEVICE)!;
      own.geo = { ...geo, ...(lat !== undefined && { lat }), ...(lon !== undefined && { lon }) };
    }
  }

  private clearGeo(): void {
    for (const key of ['user', 'device'] as const) {
      const geo = (this.request[key] as Json | undefined)?.geo;
      if (isJsonObject(geo) && Object.keys(geo).length > 0) this.own(key, key === 'user' ? USER : DEVICE)!.geo = {};
    }
  }

  /** transmitTids denied: `source.tid` and every `imp.ext.tid`. */
  transactionIds(): void {
    if (isJsonObject(this.request.source) && (this.request.source as Json).tid !== undefined) delete this.own('source', SOURCE)!.tid;
    let imps: Imp[] | undefined;
    const current = this.request.imp;
    for (let i = 0; i < current.length; i++) {
      const ext = current[i]!.ext;
      if (!isJsonObject(ext) || ext.tid === undefined) continue;
      const { tid: _tid, ...rest } = ext;
      (imps ??= current.slice())[i] = { ...current[i]!, ext: rest };
    }
    if (imps) this.request.imp = imps;
  }

  /** Sets a legacy regs member (the GPP downgrade) on the bidder's own `regs`. */
  setRegs(field: string, value: unknown): void {
    if (!isJsonObject(this.request.regs)) this.request.regs = {};
    this.own('regs', REGS)![field] = value;
  }

  /** Sets `user.consent` (the GPP downgrade). */
  setUserConsent(consent: string): void {
    if (!isJsonObject(this.request.user)) this.request.user = {};
    this.user()!.consent = consent;
  }
}

const USER = 1;
const DEVICE = 2;
const USER_EXT = 4;
const SOURCE = 8;
const REGS = 16;

function setOrRemove(target: Json, key: string, value: unknown): void {
  if (value === undefined || value === '') delete target[key];
  else target[key] = value;
}

/** Prebid Server's rounding: two decimals, half up toward zero's side as Go's int conversion truncates. */
export function roundCoordinate(value: number): number {
  return Math.trunc(value * 100 + 0.5) / 100;
}

/** The address with only its first `bits` bits kept; undefined when it is not an IPv4 address. */
export function maskIPv4(ip: string, bits: number): string | undefined {
  // Every bidder of a request masks the same address: the last answer serves them all.
  if (ip === lastMasked.ip && bits === lastMasked.bits) return lastMasked.result;
  const value = parseIPv4(ip);
  const kept = value === undefined ? undefined : bits <= 0 ? 0 : bits >= 32 ? value : value - (value % 2 ** (32 - bits));
  const result = kept === undefined ? undefined : `${Math.floor(kept / 16777216)}.${Math.floor(kept / 65536) % 256}.${Math.floor(kept / 256) % 256}.${kept % 256}`;
  lastMasked = { ip, bits, result };
  return result;
}

let lastMasked: { ip: string; bits: number; result: string | undefined } = { ip: '', bits: -1, result: undefined };

/** The dotted-quad address as a number; undefined unless it is four decimal octets of 1-3 digits, each at most 255. */
function parseIPv4(ip: string): number | undefined {
  let value = 0;
  let octets = 0;
  let octet = 0;
  let digits = 0;
  for (let index = 0; index <= ip.length; index++) {
    const code = index === ip.length ? 0x2e : ip.charCodeAt(index);
    if (code === 0x2e) {
      if (digits === 0 || octet > 255 || ++octets > 4) return undefined;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
    } else if (code >= 0x30 && code <= 0x39 && digits < 3) {
      octet = octet * 10 + (code - 0x30);
      digits++;
    } else {
      return undefined;
    }
  }
  return octets === 4 ? value : undefined;
}

/** The IPv6 address with only its first `bits` bits kept, written as RFC 5952 (Go's) does; undefined when invalid. */
export function maskIPv6(ip: string, bits: number): string | undefined {
  const groups = parseIPv6(ip);
  if (!groups) return undefined;
  for (let i = 0; i < 8; i++) {
    const keep = Math.max(0, Math.min(16, bits - i * 16));
    groups[i] = keep === 0 ? 0 : groups[i]! & (0xffff << (16 - keep)) & 0xffff;
  }
  return formatIPv6(groups);
}

function parseIPv6(ip: string): number[] | undefined {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0) return undefined;
  if (text.includes('.', lastColon)) {
    // An embedded IPv4 tail (`::ffff:1.2.3.4`) becomes its two groups.
    const v4 = maskIPv4(text.slice(lastColon + 1), 32);
    if (!v4 || v4.includes(':')) return undefined;
    const octets = v4.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = readGroups(halves[0]!);
  const rest = halves.length === 2 ? readGroups(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const known = head.length + rest.length;
  if (halves.length === 1) return known === 8 ? head : undefined;
  if (known > 7) return undefined;
  return [...head, ...(new Array(8 - known).fill(0) as number[]), ...rest];
}

function readGroups(half: string): number[] | undefined {
  if (half === '') return [];
  const out: number[] = [];
  for (const group of half.split(':')) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    out.push(parseInt(group, 16));
  }
  return out;
}

function formatIPv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
