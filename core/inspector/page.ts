/**
 * The inspector's pages, rendered on the server: the list of recent auctions, and one auction drawn as a timeline
 * (inline SVG) with its bids, targeting, validation and hooks. The only script is the replay form's.
 */
import type { BidderCallFact } from '../context/observer.js';
import { tenths, type AuctionRecord, type BidRecord } from './record.js';
import type { AuctionSummary, InspectorSettings } from './store.js';

/** The colours a bar or line is drawn in: the browser test reads them back from a screenshot. */
export const TIMELINE_COLOURS = {
  bid: '#2e7d32',
  noBid: '#78909c',
  error: '#c62828',
  timeout: '#ef6c00',
  hook: '#6a1b9a',
  deadline: '#d50000',
  tmax: '#9e9e9e',
} as const;

type CallOutcome = 'bid' | 'noBid' | 'error' | 'timeout';

function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #212121; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 24px 0 8px; }
table { border-collapse: collapse; margin: 4px 0 12px; } th, td { border-bottom: 1px solid #e0e0e0; padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
th { color: #616161; font-weight: 600; } code, pre, textarea { font: 12px/1.4 ui-monospace, monospace; }
.muted { color: #757575; } .bad { color: ${TIMELINE_COLOURS.error}; } .good { color: ${TIMELINE_COLOURS.bid}; }
textarea { width: 100%; max-width: 1080px; height: 180px; } svg { background: #fff; display: block; }
a { color: #1565c0; }
</style></head><body>
${body}
</body></html>
`;
}

function time(epochMs: number): string {
  return new Date(epochMs).toISOString().replace('T', ' ').replace('Z', '');
}

/** The list of recent auctions, newest first, and a form to replay a pasted request. */
export function renderList(summaries: AuctionSummary[], settings: InspectorSettings): string {
  const rows = summaries
    .map(
      (auction) => `<tr>
  <td><a href="/inspector/${encodeURIComponent(auction.id)}">${escapeHtml(auction.id)}</a></td><td>${escapeHtml(time(auction.receivedAt))}</td>
  <td>${escapeHtml(auction.endpoint)}</td><td>${escapeHtml(auction.auctionId)}</td><td>${escapeHtml(auction.account || '-')}</td>
  <td class="${auction.outcome === 'completed' ? '' : 'bad'}">${escapeHtml(auction.outcome)}${auction.replay ? ' (replay)' : ''}</td>
  <td>${auction.bidders}</td><td>${auction.bids}</td><td>${auction.winners}</td><td>${auction.timeouts}</td>
  <td>${auction.durationMs === undefined ? '-' : `${auction.durationMs} ms`} / ${auction.tmax} ms</td></tr>`,
    )
    .join('\n');
  return page(
    'Gavel auction inspector',
    `<h1>Auction inspector</h1>
<p class="muted">Recent auctions on this instance: ${Math.round(settings.sampleRate * 10000) / 100}% of them are recorded, the last ${settings.maxAuctions} kept, with no user ids or IP addresses.</p>
<table id="auctions"><thead><tr><th>record</th><th>received (UTC)</th><th>endpoint</th><th>request id</th><th>account</th><th>outcome</th><th>bidders</th><th>bids</th><th>winners</th><th>timeouts</th><th>took / tmax</th></tr></thead>
<tbody>${rows || '<tr><td colspan="11" class="muted">No auction recorded yet.</td></tr>'}</tbody></table>
${replayForm('')}`,
  );
}

function replayForm(request: string): string {
  return `<h2>Replay a request</h2>
<p class="muted">An OpenRTB request for <code>/openrtb2/auction</code>, run on this instance with <code>test: 1</code> and recorded.</p>
<form id="replay-form"><textarea id="replay-request" spellcheck="false">${escapeHtml(request)}</textarea><br>
<button id="replay" type="submit">Replay with test: 1</button> <span id="replay-status" class="muted"></span></form>
<script>
document.getElementById('replay-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const status = document.getElementById('replay-status');
  status.textContent = 'running...';
  const answer = await fetch('/inspector/api/replay', { method: 'POST', headers: { 'content-type': 'application/json' }, body: document.getElementById('replay-request').value });
  const result = await answer.json().catch(() => ({ error: 'the answer was not JSON' }));
  if (answer.ok && result.recordId) location.href = '/inspector/' + encodeURIComponent(result.recordId);
  else status.textContent = result.error || ('status ' + result.status + ': ' + (typeof result.response === 'string' ? result.response : JSON.stringify(result.response)));
});
</script>`;
}

function callOutcome(call: BidderCallFact, record: AuctionRecord): CallOutcome {
  const abandonedAt = record.abandoned[call.bidder];
  if (call.error?.code === 1 || (abandonedAt !== undefined && (call.answeredAt === undefined || call.answeredAt > abandonedAt))) return 'timeout';
  if (call.error) return 'error';
  return record.bids.some((bid) => bid.bidder === call.bidder && bid.kept) ? 'bid' : 'noBid';
}

const PLOT = { left: 190, width: 820, row: 26, bar: 16, top: 34 } as const;

/**
 * The auction as a timeline: one bar per hook run and per bidder call, from its start to its end, on a millisecond
 * axis from the request's arrival, with the bidders' deadline and tmax as vertical lines. A call still out when the
 * page is drawn runs to `now`.
 */
export function renderTimeline(record: AuctionRecord, now: number): string {
  const start = record.receivedAt;
  const calls = record.calls.slice().sort((a, b) => a.sentAt - b.sentAt);
  const ends = [record.tmax, ...calls.map((call) => (call.answeredAt ?? now) - start), ...record.hooks.map((hook) => hook.at - start), (record.finishedAt ?? start) - start];
  const span = Math.max(1, ...ends) * 1.08;
  const x = (ms: number) => Math.round(PLOT.left + (Math.max(0, ms) / span) * PLOT.width);
  const rows: string[] = [];
  let y = PLOT.top;
  for (const hook of record.hooks) {
    const from = x(hook.at - hook.ms - start);
    const width = Math.max(4, x(hook.at - start) - from);
    rows.push(
      `<g class="hook-row"><text x="${PLOT.left - 8}" y="${y + 12}" text-anchor="end">${escapeHtml(hook.stage)}</text>` +
        `<rect class="hook-bar" x="${from}" y="${y + 3}" width="${width}" height="${PLOT.bar - 6}" fill="${TIMELINE_COLOURS.hook}"/>` +
        `<text x="${from + width + 6}" y="${y + 12}" class="muted">${escapeHtml(`${hook.module} ${hook.hook}: ${hook.status}, ${hook.action}, ${tenths(hook.ms)} ms`)}</text></g>`,
    );
    y += PLOT.row - 6;
  }
  for (const call of calls) {
    const outcome = callOutcome(call, record);
    const from = x(call.sentAt - start);
    const to = x((call.answeredAt ?? now) - start);
    const width = Math.max(4, to - from);
    const took = tenths((call.answeredAt ?? now) - call.sentAt);
    const label = [call.status ?? (call.answeredAt === undefined ? 'out' : call.error?.code === 1 ? 'timed out' : 'no answer'), `${took} ms`, call.bytes !== undefined ? `${call.bytes} B` : undefined, call.error ? `error ${call.error.code}` : undefined]
      .filter(Boolean)
      .join(' · ');
    rows.push(
      `<g class="call-row" data-bidder="${escapeHtml(call.bidder)}" data-outcome="${outcome}"><text x="${PLOT.left - 8}" y="${y + 13}" text-anchor="end">${escapeHtml(call.bidder)}</text>` +
        `<rect class="call-bar" data-bidder="${escapeHtml(call.bidder)}" x="${from}" y="${y}" width="${width}" height="${PLOT.bar}" fill="${TIMELINE_COLOURS[outcome]}"><title>${escapeHtml(`${call.bidder} @ ${call.host}: ${label}${call.error ? ` (${call.error.message})` : ''}`)}</title></rect>` +
        `<text x="${from + width + 6}" y="${y + 13}">${escapeHtml(label)}</text></g>`,
    );
    y += PLOT.row;
  }
  const height = y + 24;
  const ticks: string[] = [];
  const step = span > 2000 ? 500 : span > 800 ? 200 : span > 300 ? 100 : 50;
  for (let ms = 0; ms <= span; ms += step) {
    ticks.push(`<line x1="${x(ms)}" y1="${PLOT.top - 6}" x2="${x(ms)}" y2="${height - 18}" stroke="#eeeeee"/><text x="${x(ms)}" y="${height - 4}" text-anchor="middle" class="muted">${ms} ms</text>`);
  }
  const deadline = x(record.bidderDeadline - start);
  const tmax = x(record.tmax);
  return `<svg id="timeline" xmlns="http://www.w3.org/2000/svg" width="${PLOT.left + PLOT.width + 220}" height="${height}" shape-rendering="crispEdges" font-size="12">
${ticks.join('\n')}
<line class="tmax-line" x1="${tmax}" y1="${PLOT.top - 18}" x2="${tmax}" y2="${height - 18}" stroke="${TIMELINE_COLOURS.tmax}" stroke-width="2" stroke-dasharray="4 3"/>
<text x="${tmax + 4}" y="${PLOT.top - 20}" class="muted">tmax ${record.tmax} ms</text>
<line class="deadline-line" data-ms="${record.bidderDeadline - start}" x1="${deadline}" y1="${PLOT.top - 18}" x2="${deadline}" y2="${height - 18}" stroke="${TIMELINE_COLOURS.deadline}" stroke-width="2"/>
<text x="${deadline - 4}" y="${PLOT.top - 20}" text-anchor="end" fill="${TIMELINE_COLOURS.deadline}">bidders' deadline ${tenths(record.bidderDeadline - start)} ms</text>
${rows.join('\n')}
</svg>`;
}

function money(price: number | undefined, currency: string): string {
  return price === undefined ? '-' : `${Math.round(price * 10000) / 10000} ${currency}`;
}

function bidRow(bid: BidRecord, record: AuctionRecord): string {
  const imp = record.imps.find((candidate) => candidate.id === bid.impId);
  const outcome = bid.winner ? '<b class="good">winner</b>' : bid.kept ? (bid.bidderBest ? "bidder's best" : 'kept') : '<span class="bad">dropped</span>';
  return `<tr><td>${escapeHtml(bid.bidder)}${bid.seat !== bid.bidder ? ` (seat ${escapeHtml(bid.seat)})` : ''}</td><td>${escapeHtml(bid.impId)}</td><td>${escapeHtml(bid.bidId)}</td>
<td>${imp?.floor !== undefined ? escapeHtml(money(imp.floor, imp.floorCurrency ?? '')) : '-'}</td>
<td>${escapeHtml(money(bid.originalPrice, bid.originalCurrency))}</td><td>${escapeHtml(money(bid.receivedPrice, record.currency))}</td><td>${escapeHtml(money(bid.price, record.currency))}</td>
<td>${outcome}</td><td>${escapeHtml(bid.dealId ?? '')}</td></tr>`;
}

/** One auction: its facts, the timeline, bids, winners' targeting, validation, bidder errors, hooks, and replay. */
export function renderAuction(record: AuctionRecord, now: number): string {
  const winners = record.bids.filter((bid) => bid.winner);
  const targeting = winners
    .map(
      (bid) =>
        `<tr data-bidder="${escapeHtml(bid.bidder)}"><td>${escapeHtml(bid.impId)}</td><td>${escapeHtml(bid.bidder)}</td><td>${Object.entries(bid.targeting)
          .map(([key, value]) => `<code>${escapeHtml(key)}=${escapeHtml(value)}</code>`)
          .join('<br>')}</td></tr>`,
    )
    .join('\n');
  const errors = record.bidders
    .flatMap((bidder) => bidder.errors.map((error) => `<tr><td>${escapeHtml(bidder.bidder)}</td><td>${error.code}</td><td>${escapeHtml(error.message)}</td></tr>`))
    .join('\n');
  const hooks = record.hooks
    .map((hook) => `<tr><td>${escapeHtml(hook.stage)}</td><td>${escapeHtml(hook.module)}</td><td>${escapeHtml(hook.hook)}</td><td>${escapeHtml(hook.status)}</td><td>${escapeHtml(hook.action)}</td><td>${tenths(hook.ms)} ms</td></tr>`)
    .join('\n');
  const validation = record.validation.valid
    ? '<p id="validation" class="good">Valid: the request passed validation.</p>'
    : `<ul id="validation" class="bad">${record.validation.messages.map((message) => `<li>Invalid request: ${escapeHtml(message)}</li>`).join('')}</ul>`;
  return page(
    `Auction ${record.id}`,
    `<p><a href="/inspector">&larr; recent auctions</a></p>
<h1>Auction ${escapeHtml(record.id)}${record.replay ? ' (replay)' : ''}</h1>
<p class="muted">${escapeHtml(record.endpoint)} · request id ${escapeHtml(record.auctionId)}${record.requestId ? ` · X-Request-Id ${escapeHtml(record.requestId)}` : ''} · account ${escapeHtml(record.account || '-')} ·
received ${escapeHtml(time(record.receivedAt))} UTC · tmax ${record.tmax} ms · ${escapeHtml(record.outcome)}${record.nbr !== undefined ? ` (nbr ${record.nbr})` : ''}${
      record.finishedAt !== undefined ? ` in ${tenths(record.finishedAt - record.receivedAt)} ms` : ''
    }${record.test ? ' · test' : ''}</p>
<h2>Timeline</h2>
${renderTimeline(record, now)}
<h2>Validation</h2>
${validation}
<h2>Bids</h2>
<table id="bids"><thead><tr><th>bidder</th><th>imp</th><th>bid</th><th>imp floor</th><th>bidder's price</th><th>received</th><th>after adjustment</th><th>outcome</th><th>deal</th></tr></thead>
<tbody>${record.bids.map((bid) => bidRow(bid, record)).join('\n') || '<tr><td colspan="9" class="muted">No bid.</td></tr>'}</tbody></table>
<h2>Winners' targeting</h2>
<table id="targeting"><thead><tr><th>imp</th><th>winner</th><th>keys</th></tr></thead><tbody>${targeting || '<tr><td colspan="3" class="muted">No winner.</td></tr>'}</tbody></table>
<h2>Bidder errors</h2>
<table id="errors"><thead><tr><th>bidder</th><th>code</th><th>message</th></tr></thead><tbody>${errors || '<tr><td colspan="3" class="muted">None.</td></tr>'}</tbody></table>
<h2>Hooks</h2>
<table id="hooks"><thead><tr><th>stage</th><th>module</th><th>hook</th><th>status</th><th>action</th><th>time</th></tr></thead><tbody>${hooks || '<tr><td colspan="6" class="muted">No hook ran.</td></tr>'}</tbody></table>
${replayForm(record.request ? JSON.stringify(record.request, null, 2) : '')}`,
  );
}
