/**
 * A hand-drawn SVG of the results: two bar panels (auctions per second, p99 latency), one group per scenario,
 * Gavel beside the floor.
 */

export interface ChartFigures {
  rps: number;
  p99Ms: number;
}
export interface ChartRow {
  label: string;
  /** A second line under the label in the throughput panel, e.g. Gavel's share of the floor. */
  note?: string;
  gavel: ChartFigures;
  floor?: ChartFigures;
}

const WIDTH = 960;
const PANEL_HEIGHT = 260;
const MARGIN = { left: 70, right: 20, top: 70, bottom: 40 };
const PANEL_GAP = 70;
const COLOURS = { gavel: '#2f6db5', floor: '#a3a3a3' };

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[char]!);
}

/** A round step giving about five gridlines up to at least `max`. */
function niceStep(max: number): number {
  const rough = max / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 2.5, 5, 10].find((factor) => factor * magnitude >= rough) ?? 10) * magnitude;
}

function formatTick(value: number, step: number): string {
  return step >= 1 ? Math.round(value).toLocaleString('en-US') : value.toFixed(Math.ceil(-Math.log10(step)));
}

function formatValue(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

function panel(rows: ChartRow[], title: string, pick: (figures: ChartFigures) => number, top: number, withNotes: boolean): string[] {
  const values = rows.flatMap((row) => [pick(row.gavel), ...(row.floor ? [pick(row.floor)] : [])]).filter(Number.isFinite);
  const step = niceStep(Math.max(...values, 1e-9));
  const axisMax = Math.ceil(Math.max(...values, 1e-9) / step) * step;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const bottom = top + PANEL_HEIGHT;
  const y = (value: number) => bottom - (value / axisMax) * PANEL_HEIGHT;
  const out = [`<text x="${MARGIN.left}" y="${top - 14}" class="title">${escapeXml(title)}</text>`];
  for (let tick = 0; tick <= axisMax + step / 2; tick += step) {
    out.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}" class="grid"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" class="tick" text-anchor="end">${formatTick(tick, step)}</text>`);
  }
  const groupWidth = plotWidth / rows.length;
  const barWidth = Math.min(48, groupWidth / 3);
  rows.forEach((row, index) => {
    const centre = MARGIN.left + groupWidth * (index + 0.5);
    const bars: Array<[keyof typeof COLOURS, ChartFigures | undefined]> = [['gavel', row.gavel], ['floor', row.floor]];
    bars.forEach(([series, figures], slot) => {
      if (!figures || !Number.isFinite(pick(figures))) return;
      const x = centre - barWidth + slot * barWidth;
      const value = pick(figures);
      out.push(`<rect x="${x + 2}" y="${y(value)}" width="${barWidth - 4}" height="${bottom - y(value)}" fill="${COLOURS[series]}"><title>${series} ${escapeXml(row.label)}: ${formatValue(value)}</title></rect>`);
      out.push(`<text x="${x + barWidth / 2}" y="${y(value) - 4}" class="value" text-anchor="middle">${formatValue(value)}</text>`);
    });
    out.push(`<text x="${centre}" y="${bottom + 18}" class="label" text-anchor="middle">${escapeXml(row.label)}</text>`);
    if (withNotes && row.note) out.push(`<text x="${centre}" y="${bottom + 33}" class="tick" text-anchor="middle">${escapeXml(row.note)}</text>`);
  });
  out.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${bottom}" y2="${bottom}" class="axis"/>`);
  return out;
}

export function renderChart(rows: ChartRow[], subtitle: string): string {
  const firstTop = MARGIN.top;
  const secondTop = firstTop + PANEL_HEIGHT + MARGIN.bottom + PANEL_GAP;
  const height = secondTop + PANEL_HEIGHT + MARGIN.bottom;
  const legend = (['gavel', 'floor'] as const).map((series, index) => {
    const x = WIDTH - MARGIN.right - 200 + index * 100;
    return `<rect x="${x}" y="14" width="14" height="14" fill="${COLOURS[series]}"/><text x="${x + 20}" y="26" class="label">${series === 'gavel' ? 'Gavel' : 'Floor'}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    '<style>.title{font-size:15px;font-weight:bold}.tick,.value{font-size:11px;fill:#444}.label{font-size:12px}.grid{stroke:#e5e5e5}.axis{stroke:#333}</style>',
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${MARGIN.left}" y="26" class="title">Gavel vs the floor</text>`,
    `<text x="${MARGIN.left}" y="44" class="tick">${escapeXml(subtitle)}</text>`,
    ...legend,
    ...panel(rows, 'Auctions per second (higher is better)', (figures) => figures.rps, firstTop + 20, true),
    ...panel(rows, 'p99 latency, ms (lower is better)', (figures) => figures.p99Ms, secondTop, false),
    '</svg>',
  ].join('\n');
}
