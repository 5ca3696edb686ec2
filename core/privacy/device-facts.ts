import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { isJsonObject, type BidRequest } from '../api/index.js';

type Json = Record<string, unknown>;

/** What the HTTP exchange tells of the device, beside the body. */
export interface HttpFacts {
  headers: IncomingHttpHeaders;
  /** The socket's peer address. */
  remoteAddress?: string;
}

/** Addresses never taken from a forwarded header: private, loopback, link-local, unspecified, shared (CGNAT). */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** `::ffff:1.2.3.4` (how Node reports an IPv4 peer on a dual-stack socket) as `1.2.3.4`. */
function plainAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function isPublic(address: string): boolean {
  const version = isIP(address);
  return version !== 0 && !NON_PUBLIC.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The client's address: from `X-Forwarded-For` (the first public address) or `X-Real-IP` only when the host trusts
 * its proxies, else the socket's peer. As in Prebid Server, a private, loopback or link-local address is never the
 * client's (it is a proxy's, or a test's), wherever it comes from.
 */
export function clientAddress(facts: HttpFacts, trustProxyHeaders: boolean): string | undefined {
  if (trustProxyHeaders) {
    const forwarded = header(facts.headers, 'x-forwarded-for');
    if (forwarded) {
      for (const part of forwarded.split(',')) {
        const address = plainAddress(part.trim());
        if (isPublic(address)) return address;
      }
    }
    const real = header(facts.headers, 'x-real-ip');
    if (real && isPublic(plainAddress(real.trim()))) return plainAddress(real.trim());
  }
  const peer = facts.remoteAddress ? plainAddress(facts.remoteAddress) : undefined;
  return peer && isPublic(peer) ? peer : undefined;
}

/**
 * Fills what the body leaves out from the HTTP request, as Prebid Server's endpoints do: `device.ua` from
 * User-Agent, `device.ip` / `device.ipv6` from the client's address (when the body has neither), `device.dnt` (none or null) from
 * `DNT: 0|1`, and `regs.ext.gpc` (none or null) from `Sec-GPC: 1`; and `device.lmt` of an iOS app from its tracking status. The
 * request is the endpoint's own (merged) copy.
 */
export function fillDeviceFacts(request: BidRequest, facts: HttpFacts, trustProxyHeaders: boolean): void {
  let device = isJsonObject(request.device) ? (request.device as Json) : undefined;
  const own = (): Json => {
    if (!device) {
      device = {};
      request.device = device;
    }
    return device;
  };
  if (device) dropUnreadableAddresses(device);
  const ua = header(facts.headers, 'user-agent');
  if (ua && !(typeof device?.ua === 'string' && device.ua !== '')) own().ua = ua;
  if (!device?.ip && !device?.ipv6) {
    const address = clientAddress(facts, trustProxyHeaders);
    if (address) own()[isIP(address) === 4 ? 'ip' : 'ipv6'] = address;
  }
  const dnt = header(facts.headers, 'dnt');
  if ((dnt === '1' || dnt === '0') && device?.dnt == null) own().dnt = Number(dnt);
  if (device) limitTrackingForIos(request, device);
  if (header(facts.headers, 'sec-gpc') === '1') {
    const regs = (isJsonObject(request.regs) ? request.regs : (request.regs = {})) as Json;
    const ext = (isJsonObject(regs.ext) ? regs.ext : (regs.ext = {})) as Json;
    if (ext.gpc == null) ext.gpc = '1';
  }
}

/**
 * The body's own addresses are kept only when they read as the version their field names (Prebid Server's
 * sanitizeRequest): an `ip` that is no IPv4 address, or an `ipv6` that is no IPv6 address, goes (and is then filled
 * from the client's address like a missing one). A zone (`%eth0`) is no address to Go's parser.
 */
function dropUnreadableAddresses(device: Json): void {
  if (device.ip !== undefined && !isAddressOfVersion(device.ip, 4)) delete device.ip;
  if (device.ipv6 !== undefined && !isAddressOfVersion(device.ipv6, 6)) delete device.ipv6;
}

function isAddressOfVersion(address: unknown, version: 4 | 6): boolean {
  return typeof address === 'string' && !address.includes('%') && isIP(address) === version;
}

const ZERO_IFA = '00000000-0000-0000-0000-000000000000';

/**
 * Prebid Server's iOS rule (privacy/lmt/ios.go), for app requests from iOS: on 14.0 and 14.1 (`osv` written exactly
 * so), limit ad tracking is an empty or zero IFA; from 14.2 (`osv` of two or three parts, major and minor integers),
 * the app tracking status `device.ext.atts` (0 not determined, 1 restricted, 2 denied: limited; 3 authorized: not).
 * Any other `osv` (`14`, `14.0.1`, `17.x`) changes nothing, as Prebid Server's version classification has it.
 */
function limitTrackingForIos(request: BidRequest, device: Json): void {
  if (!request.app || typeof device.os !== 'string' || device.os.toLowerCase() !== 'ios' || typeof device.osv !== 'string') return;
  if (device.osv === '14.0' || device.osv === '14.1') {
    device.lmt = typeof device.ifa !== 'string' || device.ifa === '' || device.ifa === ZERO_IFA ? 1 : 0;
    return;
  }
  if (!isIos142OrLater(device.osv)) return;
  const atts = isJsonObject(device.ext) ? device.ext.atts : undefined;
  if (atts === 0 || atts === 1 || atts === 2) device.lmt = 1;
  else if (atts === 3) device.lmt = 0;
}

/** `major.minor` or `major.minor.patch` (the patch not read), major and minor integers as Go's Atoi reads them. */
const IOS_VERSION = /^([+-]?\d+)\.([+-]?\d+)(?:\.[^.]*)?$/;

function isIos142OrLater(osv: string): boolean {
  const parts = IOS_VERSION.exec(osv);
  if (!parts) return false;
  const major = Number(parts[1]);
  const minor = Number(parts[2]);
  return major > 14 || (major === 14 && minor >= 2);
}
