import type { ChartRow } from './chart.js';
import { median, type LoadResult } from './load.js';
import { profileMarkdown, type ProfileSummary } from './profile-summary.js';
import { BENCH_CACHE_CAP_MB, REFERENCE_SCENARIO, scenarioLabel, type Scenario } from './scenarios.js';

/** One server under load on one scenario. */
export interface Measurement {
  server: 'gavel' | 'floor';
  scenario: Scenario;
  workers: number;
  pinned: boolean;
  /** The rounds combined: medians of rps and latencies, sums of counts. */
  load: LoadResult;
  rounds: LoadResult[];
  /** Summed over the process and its cluster workers. */
  peakRssMb?: number;
  cpuUsPerAuction?: number;
  /** From the spawn to the listening port. */
  bootMs?: number;
  /** Resident memory once booted and after one auction, before any load, summed over the processes. */
  bootRssMb?: number;
}

export interface BenchMeta {
  mode: 'full' | 'smoke';
  startedAt: string;
  node: string;
  revision: string;
  cpuModel: string;
  cpus: number;
  loadTool: string;
  mockBidders: string;
  pinning: string;
  connections: number;
  warmupS: number;
  rounds: number;
  /** Bidders Gavel knows (`GET /info/bidders`): every adapter folder and the bench's own. */
  gavelBidders?: number;
  durationS: number;
  loadAverageBefore: number[];
  loadAverageAfter: number[];
  notes: string[];
}

export interface BenchReport {
  meta: BenchMeta;
  runs: Measurement[];
  /** The reference scenario with 1 worker (pinned) and 2 workers (not pinned). */
  workers: Measurement[];
  /** Gavel and the floor under --cpu-prof on the reference scenario, cut to the measured load. */
  profile?: { scenario: Scenario; files: string[]; gavel: ProfileSummary; floor?: ProfileSummary };
}

/**
 * The targets (issue 22), for every scenario but the pieces' ones: throughput ratio, p99 ratio, and peak RSS of one
 * worker: 150 MB, plus the memory store's cap where the request caches bids.
 */
export const TARGETS = { minThroughputRatio: 0.9, maxP99Ratio: 1.5, maxPeakRssMb: 150, cacheCapMb: BENCH_CACHE_CAP_MB };

export function rssTargetMb(s: Scenario): number {
  return s.shape === 'production' && s.without !== 'cache' ? TARGETS.maxPeakRssMb + TARGETS.cacheCapMb : TARGETS.maxPeakRssMb;
}

const num = (value: number | undefined, digits = 0) => (value === undefined || !Number.isFinite(value) ? 'n/a' : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));
const pct = (ratio: number | undefined) => (ratio === undefined ? 'n/a' : `${Math.round(ratio * 100)}%`);
const pctRange = (range: [number, number] | undefined) => (range && range[0] !== range[1] ? ` (${pct(range[0])}-${pct(range[1])})` : '');
const times = (ratio: number | undefined) => (ratio === undefined ? 'n/a' : `${ratio.toFixed(2)}x`);
const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : 'MISSED');

export interface ScenarioComparison {
  scenario: Scenario;
  gavel: Measurement;
  floor?: Measurement;
  /** Medians of the per-round ratios (each round of Gavel ran next to a round of the floor). */
  throughputRatio?: number;
  p99Ratio?: number;
  /** Lowest and highest per-round throughput ratio. */
  throughputRatioRange?: [number, number];
}

function roundRatios(gavel: Measurement, floor: Measurement, pick: (round: LoadResult) => number): number[] {
  return gavel.rounds.slice(0, floor.rounds.length).map((round, index) => pick(round) / pick(floor.rounds[index]!));
}

export function compareScenarios(runs: Measurement[]): ScenarioComparison[] {
  const gavelRuns = runs.filter((run) => run.server === 'gavel');
  return gavelRuns.map((gavel) => {
    const floor = runs.find((run) => run.server === 'floor' && run.scenario.id === gavel.scenario.id);
    if (!floor) return { scenario: gavel.scenario, gavel };
    const throughputRatios = roundRatios(gavel, floor, (round) => round.rps);
    return {
      scenario: gavel.scenario,
      gavel,
      floor,
      throughputRatio: median(throughputRatios),
      p99Ratio: median(roundRatios(gavel, floor, (round) => round.p99Ms)),
      throughputRatioRange: [Math.min(...throughputRatios), Math.max(...throughputRatios)],
    };
  });
}

export function chartRows(comparisons: ScenarioComparison[]): ChartRow[] {
  return comparisons.map(({ scenario, gavel, floor, throughputRatio }) => ({
    label: scenarioLabel(scenario),
    note: throughputRatio === undefined ? undefined : `${pct(throughputRatio)} of the floor`,
    gavel: { rps: gavel.load.rps, p99Ms: gavel.load.p99Ms },
    floor: floor ? { rps: floor.load.rps, p99Ms: floor.load.p99Ms } : undefined,
  }));
}

/** Runs that show the server did not answer every auction with a 200. */
export function failedRuns(report: BenchReport): Measurement[] {
  return [...report.runs, ...report.workers].filter((run) => run.load.requests === 0 || run.load.non200 > 0 || run.load.errors > 0);
}

function resultsTable(comparisons: ScenarioComparison[]): string[] {
  const lines = [
    '| Scenario | Gavel auctions/s | Floor auctions/s | Gavel / floor | Gavel p50 ms | Gavel p99 ms | Floor p50 ms | Floor p99 ms | p99 vs floor | Gavel peak RSS MB | Floor peak RSS MB | Gavel CPU us/auction | Floor CPU us/auction |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { scenario, gavel, floor, throughputRatio, p99Ratio, throughputRatioRange } of comparisons) {
    lines.push(
      `| ${scenarioLabel(scenario)} | ${num(gavel.load.rps)} | ${num(floor?.load.rps)} | ${pct(throughputRatio)}${pctRange(throughputRatioRange)} | ${num(gavel.load.p50Ms, 1)} | ${num(gavel.load.p99Ms, 1)} | ${num(floor?.load.p50Ms, 1)} | ${num(floor?.load.p99Ms, 1)} | ${times(p99Ratio)} | ${num(gavel.peakRssMb)} | ${num(floor?.peakRssMb)} | ${num(gavel.cpuUsPerAuction)} | ${num(floor?.cpuUsPerAuction)} |`,
    );
  }
  return lines;
}

function targetsTable(comparisons: ScenarioComparison[]): string[] {
  const lines = [
    `| Scenario | throughput >= ${pct(TARGETS.minThroughputRatio)} of floor | p99 <= ${TARGETS.maxP99Ratio}x floor | peak RSS <= ${TARGETS.maxPeakRssMb} MB (+ ${TARGETS.cacheCapMb} MB cache cap when caching) |`,
    '|---|---|---|---|',
  ];
  for (const { scenario, gavel, throughputRatio, p99Ratio } of comparisons.filter((c) => c.scenario.without === undefined)) {
    const rssOk = gavel.peakRssMb === undefined ? undefined : gavel.peakRssMb <= rssTargetMb(scenario);
    lines.push(
      `| ${scenarioLabel(scenario)} | ${verdict(throughputRatio === undefined ? undefined : throughputRatio >= TARGETS.minThroughputRatio)} (${pct(throughputRatio)}) | ${verdict(p99Ratio === undefined ? undefined : p99Ratio <= TARGETS.maxP99Ratio)} (${times(p99Ratio)}) | ${verdict(rssOk)} (${num(gavel.peakRssMb)} MB) |`,
    );
  }
  return lines;
}

/**
 * What each piece of the production request costs: the production scenario beside the same without the piece, on
 * Gavel's CPU per auction and its throughput ratio to the floor (the floor does none of the pieces' work).
 */
function piecesTable(comparisons: ScenarioComparison[]): string[] {
  const pieces = comparisons.filter((c) => c.scenario.without !== undefined);
  if (pieces.length === 0) return [];
  const lines = [
    '| Piece left out | Gavel / floor without it | with it | Gavel CPU us/auction without it | with it | the piece costs (us/auction) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const piece of pieces) {
    const full = comparisons.find((c) => c.scenario.shape === 'production' && c.scenario.without === undefined && c.scenario.bidders === piece.scenario.bidders && c.scenario.imps === piece.scenario.imps);
    const cost = full?.gavel.cpuUsPerAuction !== undefined && piece.gavel.cpuUsPerAuction !== undefined ? full.gavel.cpuUsPerAuction - piece.gavel.cpuUsPerAuction : undefined;
    lines.push(
      `| ${piece.scenario.without} | ${pct(piece.throughputRatio)} | ${pct(full?.throughputRatio)} | ${num(piece.gavel.cpuUsPerAuction)} | ${num(full?.gavel.cpuUsPerAuction)} | ${num(cost)} |`,
    );
  }
  return lines;
}

/** Boot time and resident memory before load, per server: medians over the scenarios' fresh starts. */
function bootTable(runs: Measurement[], gavelBidders: number | undefined): string[] {
  const lines = ['| Server | Starts | Boot ms (median, range) | RSS after boot MB (median, range) |', '|---|---:|---:|---:|'];
  for (const server of ['gavel', 'floor'] as const) {
    const starts = runs.filter((run) => run.server === server && run.workers === 1);
    const boot = starts.flatMap((run) => (run.bootMs === undefined ? [] : [run.bootMs]));
    const rss = starts.flatMap((run) => (run.bootRssMb === undefined ? [] : [run.bootRssMb]));
    if (boot.length === 0) continue;
    const range = (values: number[]) => `${num(median(values))} (${num(Math.min(...values))}-${num(Math.max(...values))})`;
    const name = server === 'gavel' && gavelBidders !== undefined ? `gavel (${gavelBidders} bidders known: every adapter loaded)` : server;
    lines.push(`| ${name} | ${starts.length} | ${range(boot)} | ${rss.length > 0 ? range(rss) : 'n/a'} |`);
  }
  return lines;
}

function workersTable(workers: Measurement[]): string[] {
  const lines = ['| Workers | Server pinned to one core | Auctions/s | p50 ms | p99 ms | Peak RSS MB (all processes) | CPU us/auction |', '|---:|---|---:|---:|---:|---:|---:|'];
  for (const run of workers) {
    lines.push(`| ${run.workers} | ${run.pinned ? 'yes (core 0)' : 'no'} | ${num(run.load.rps)} | ${num(run.load.p50Ms, 1)} | ${num(run.load.p99Ms, 1)} | ${num(run.peakRssMb)} | ${num(run.cpuUsPerAuction)} |`);
  }
  return lines;
}

export function markdownReport(report: BenchReport, chartFile: string): string {
  const { meta } = report;
  const comparisons = compareScenarios(report.runs);
  const lines = [
    `# Gavel benchmark (${meta.mode}), ${meta.startedAt}`,
    '',
    `- Node ${meta.node}, revision ${meta.revision}, ${meta.cpus} x ${meta.cpuModel}`,
    `- Load: ${meta.loadTool}, ${meta.connections} connections; per scenario Gavel and the floor are both started, warmed up ${meta.warmupS} s, ` +
      `then measured in ${meta.rounds} alternating round(s) of ${meta.durationS} s; figures are the medians of the rounds, ratios the medians of the per-round ratios (range in brackets)`,
    `- Mock bidders: ${meta.mockBidders}; pinning: ${meta.pinning}`,
    `- Load average before / after: ${meta.loadAverageBefore.map((v) => v.toFixed(2)).join(' ')} / ${meta.loadAverageAfter.map((v) => v.toFixed(2)).join(' ')}`,
    ...meta.notes.map((note) => `- Note: ${note}`),
    '',
    '## Gavel vs the floor',
    '',
    ...resultsTable(comparisons),
    '',
    `Chart: ${chartFile}`,
    '',
    '## Targets',
    '',
    ...targetsTable(comparisons),
    '',
    ...(piecesTable(comparisons).length > 0
      ? ['## What each piece of the production request costs', '', ...piecesTable(comparisons), '', 'Costs are differences of two measurements under load: within their noise, small ones can come out negative.', '']
      : []),
    '## Boot (every scenario starts fresh processes)',
    '',
    ...bootTable(report.runs, report.meta.gavelBidders),
    '',
    ...(report.workers.length > 0
      ? [
          `## Workers (${scenarioLabel(REFERENCE_SCENARIO)})`,
          '',
          ...workersTable(report.workers),
          '',
          'The 2-worker run is not pinned: its workers share both cores with the load generator and the mock bidders.',
        ]
      : []),
  ];
  const failed = failedRuns(report);
  if (failed.length > 0) {
    lines.push('', '## Failed runs', '');
    for (const run of failed) lines.push(`- ${run.server} ${run.workers}w ${run.scenario.id}: ${run.load.requests} answers, ${run.load.non200} not 200, ${run.load.errors} errors`);
  }
  if (report.profile) {
    lines.push('', `## CPU profile (${scenarioLabel(report.profile.scenario)}; ${report.profile.files.join(', ')})`, '', 'Samples cut to the measured load (boot and warm-up left out).', '');
    lines.push(profileMarkdown(report.profile.gavel, report.profile.floor));
  }
  return lines.join('\n') + '\n';
}
