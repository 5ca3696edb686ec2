import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { isEntryPoint } from './processes.js';

/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): the functions that cost the most time themselves, where that
 * time goes by package or source folder, and the project code whose calls (children included) cost the most.
 * Usage: node profile-summary.js FILE.cpuprofile [--top N]
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the system's monotonic clock (the one process.hrtime reads), so windows can be cut from outside. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SummaryOptions {
  /** Only the samples within [fromUs, toUs] (monotonic microseconds), e.g. the measured load and not the boot. */
  fromUs?: number;
  toUs?: number;
  /** Auctions served in the window: costs are then also given per auction. */
  auctions?: number;
  top?: number;
}

export interface Cost {
  name: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  pct: number;
  usPerAuction?: number;
}
export interface FunctionCost extends Cost {
  location: string;
  area: string;
}
export interface ProfileSummary {
  auctions?: number;
  busyMs: number;
  idleMs: number;
  topSelf: FunctionCost[];
  selfByArea: Cost[];
  /** Time with a frame of the area anywhere on the stack. */
  inclusiveByArea: Cost[];
  /** Project functions (core, plugins, adapters) by time spent in them and their callees. */
  topProjectInclusive: FunctionCost[];
}

const PSEUDO_FRAMES = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);

/** The file a frame is in, relative to the project's dist/ or node_modules/, or node's own module name. */
function shortLocation(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, '');
  if (!url) return '';
  const marker = ['/node_modules/', '/dist/'].map((m) => url.lastIndexOf(m)).find((index) => index >= 0);
  const path = marker !== undefined ? url.slice(url.indexOf('/', marker + 1) + 1) : url;
  return `${path}:${frame.lineNumber + 1}`;
}

/** The package, node module or project folder a frame belongs to. */
export function areaOf(frame: CallFrame): string {
  if (PSEUDO_FRAMES.has(frame.functionName)) return frame.functionName;
  const url = frame.url;
  if (!url) return '(V8 builtins and native)';
  if (url.startsWith('node:')) {
    const segments = url.slice('node:'.length).replace(/^internal\//, '').split('/');
    return `node:${segments[0] === 'deps' ? segments.slice(0, 2).join('/') : segments[0]}`;
  }
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const segments = url.slice(modules + '/node_modules/'.length).split('/');
    return segments[0]!.startsWith('@') ? `${segments[0]}/${segments[1]}` : segments[0]!;
  }
  const dist = url.lastIndexOf('/dist/');
  if (dist >= 0) return url.slice(dist + '/dist/'.length).split('/').slice(0, 2).join('/');
  // The only WebAssembly in these servers is undici's HTTP parser.
  if (url.startsWith('wasm://')) return 'wasm (undici llhttp)';
  return url.slice(url.lastIndexOf('/') + 1);
}

const isProjectArea = (area: string) => /^(core|plugins|adapters)\//.test(area);

function addTo(totals: Map<string, number>, key: string, ms: number): void {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

function ranked(totals: Map<string, number>, busyMs: number, top: number, auctions: number | undefined): Cost[] {
  return [...totals]
    .map(([name, ms]) => ({ name, ms, pct: (100 * ms) / busyMs, usPerAuction: auctions ? (1000 * ms) / auctions : undefined }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, top);
}

export function summariseProfile(profile: CpuProfile, options: SummaryOptions = {}): ProfileSummary {
  const { fromUs = -Infinity, toUs = Infinity, auctions, top = 20 } = options;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const keyOf = (frame: CallFrame) => `${frame.functionName || '(anonymous)'}\t${shortLocation(frame)}`;
  const areaByKey = new Map<string, string>();

  const selfByFunction = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const inclusiveByFunction = new Map<string, number>();
  const inclusiveByArea = new Map<string, number>();
  let idleMs = 0;
  let totalMs = 0;

  let sampledAtUs = profile.startTime;
  profile.samples.forEach((nodeId, index) => {
    const deltaUs = profile.timeDeltas[index] ?? 0;
    sampledAtUs += deltaUs;
    const ms = deltaUs / 1000;
    const node = byId.get(nodeId);
    if (!node || sampledAtUs < fromUs || sampledAtUs > toUs) return;
    totalMs += ms;
    if (node.callFrame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    const key = keyOf(node.callFrame);
    areaByKey.set(key, areaOf(node.callFrame));
    addTo(selfByFunction, key, ms);
    addTo(selfByArea, areaOf(node.callFrame), ms);
    // A recursive function or an area entered twice on one stack still counts the sample once.
    const functionsOnStack = new Set<string>();
    const areasOnStack = new Set<string>();
    for (let id: number | undefined = nodeId; id !== undefined; id = parentOf.get(id)) {
      const frame = byId.get(id)!.callFrame;
      if (frame.functionName === '(root)') continue;
      const frameKey = keyOf(frame);
      areaByKey.set(frameKey, areaOf(frame));
      functionsOnStack.add(frameKey);
      areasOnStack.add(areaOf(frame));
    }
    for (const frameKey of functionsOnStack) addTo(inclusiveByFunction, frameKey, ms);
    for (const area of areasOnStack) addTo(inclusiveByArea, area, ms);
  });

  const busyMs = totalMs - idleMs || 1;
  const withLocation = (cost: Cost): FunctionCost => {
    const [name, location] = cost.name.split('\t') as [string, string];
    return { ...cost, name, location, area: areaByKey.get(cost.name) ?? '' };
  };
  const projectInclusive = new Map([...inclusiveByFunction].filter(([key]) => isProjectArea(areaByKey.get(key) ?? '')));
  return {
    auctions,
    busyMs,
    idleMs,
    topSelf: ranked(selfByFunction, busyMs, top, auctions).map(withLocation),
    selfByArea: ranked(selfByArea, busyMs, Infinity, auctions),
    inclusiveByArea: ranked(new Map([...inclusiveByArea].filter(([area]) => !PSEUDO_FRAMES.has(area))), busyMs, top, auctions),
    topProjectInclusive: ranked(projectInclusive, busyMs, top, auctions).map(withLocation),
  };
}

const fixed = (value: number | undefined, digits = 1) => (value === undefined ? 'n/a' : value.toFixed(digits));

function cpuLine(label: string, summary: ProfileSummary): string {
  const perAuction = summary.auctions ? ` = ${fixed((1000 * summary.busyMs) / summary.auctions, 0)} us of CPU per auction over ${summary.auctions} auctions` : '';
  return `- ${label}: ${fixed(summary.busyMs / 1000, 2)} s busy${perAuction} (idle ${fixed(summary.idleMs / 1000, 2)} s left out of the percentages)`;
}

/** Areas ranked by the first profile's self time, beside the same areas in the second (the floor). */
function areaComparison(summary: ProfileSummary, floor: ProfileSummary, top: number): string[] {
  const floorByArea = new Map(floor.selfByArea.map((cost) => [cost.name, cost]));
  const areas = [...summary.selfByArea.slice(0, top).map((cost) => cost.name)];
  for (const cost of floor.selfByArea.slice(0, 10)) if (!areas.includes(cost.name)) areas.push(cost.name);
  const ownByArea = new Map(summary.selfByArea.map((cost) => [cost.name, cost]));
  const lines = ['| area | Gavel us/auction | Gavel self % | floor us/auction | floor self % |', '|---|---:|---:|---:|---:|'];
  for (const area of areas) {
    const own = ownByArea.get(area);
    const theirs = floorByArea.get(area);
    lines.push(`| ${area} | ${fixed(own?.usPerAuction, 0)} | ${fixed(own?.pct)} | ${fixed(theirs?.usPerAuction, 0)} | ${fixed(theirs?.pct)} |`);
  }
  return lines;
}

/** The profile as Markdown; with the floor's profile, the self time by area is shown beside the floor's. */
export function profileMarkdown(summary: ProfileSummary, floor?: ProfileSummary, top = 20, label = 'Gavel'): string {
  const lines = [cpuLine(label, summary), ...(floor ? [cpuLine('Floor', floor)] : []), ''];
  lines.push('Self time by area (package, node module or project folder):', '');
  if (floor) lines.push(...areaComparison(summary, floor, top));
  else {
    lines.push('| area | us/auction | self % |', '|---|---:|---:|');
    for (const cost of summary.selfByArea.slice(0, top)) lines.push(`| ${cost.name} | ${fixed(cost.usPerAuction, 0)} | ${fixed(cost.pct)} |`);
  }
  lines.push('', 'Top functions by self time:', '', '| # | self % | us/auction | function | where | area |', '|---:|---:|---:|---|---|---|');
  summary.topSelf.forEach((cost, index) => lines.push(`| ${index + 1} | ${fixed(cost.pct)} | ${fixed(cost.usPerAuction, 0)} | \`${cost.name}\` | ${cost.location} | ${cost.area} |`));
  lines.push('', 'Inclusive time by area (a frame of the area anywhere on the stack):', '', '| area | inclusive % | us/auction |', '|---|---:|---:|');
  for (const cost of summary.inclusiveByArea) lines.push(`| ${cost.name} | ${fixed(cost.pct)} | ${fixed(cost.usPerAuction, 0)} |`);
  lines.push('', 'Project functions by inclusive time (themselves and what they call):', '', '| inclusive % | us/auction | function | where |', '|---:|---:|---|---|');
  for (const cost of summary.topProjectInclusive) lines.push(`| ${fixed(cost.pct)} | ${fixed(cost.usPerAuction, 0)} | \`${cost.name}\` | ${cost.location} |`);
  return lines.join('\n');
}

if (isEntryPoint(import.meta.url)) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error('usage: node profile-summary.js FILE.cpuprofile [--top N] [--auctions N]');
    process.exit(2);
  }
  const option = (name: string) => (rest.includes(name) ? Number(rest[rest.indexOf(name) + 1]) : undefined);
  const top = option('--top') ?? 20;
  const summary = summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, { top, auctions: option('--auctions') });
  console.log(profileMarkdown(summary, undefined, top, basename(file)));
}
