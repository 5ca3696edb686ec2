import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { METRIC_NAMES, type PrometheusMetrics } from '../../core/metrics/index.js';
import { valueOf } from '../metrics/exposition.js';
import { startGavel, type RunningGavel } from '../support/gavel.js';
import { memoryEntryBytes } from '../../core/cache/index.js';

/** One HTTP exchange from a chosen loopback address: the cache tells clients apart by address. */
function exchange(url: string, method: 'GET' | 'POST', from: string, body?: unknown): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(url, { method, localAddress: from, agent: false, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const put = (value: string) => ({ puts: [{ type: 'xml', value, ttlseconds: 300 }] });

describe('the embedded bid cache under a hostile client', () => {
  let gavel: RunningGavel;
  before(async () => {
    gavel = await startGavel({ cache: { memory: { maxBytes: 200_000 }, clientLimits: { putsPerSecond: 5, burst: 20, maxClientBytes: 50_000 } } });
  });
  after(async () => gavel?.close());
  const cacheUrl = () => `${gavel.url}/cache`;

  it('serves values with Content-Security-Policy: sandbox and nosniff, so XHTML with a script never runs on this origin', async () => {
    const xhtml = '<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(document.domain)</script></html>';
    const stored = await exchange(cacheUrl(), 'POST', '127.0.0.3', put(xhtml));
    const uuid = JSON.parse(stored.text).responses[0].uuid;
    const served = await exchange(`${cacheUrl()}?uuid=${uuid}`, 'GET', '127.0.0.3');
    expect(served.status).to.equal(200);
    expect(served.text).to.equal(xhtml);
    expect(served.headers['content-security-policy']).to.equal('sandbox');
    expect(served.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('limits one client\'s burst of puts (429 with Retry-After, counted), and that burst never evicts another client\'s live entry', async () => {
    const victim = await exchange(cacheUrl(), 'POST', '127.0.0.2', put('<VAST>victim</VAST>'));
    const victimUuid = JSON.parse(victim.text).responses[0].uuid;
    // 340 puts at once from one client, each ~5 KB: over its rate and over its share of the 200 KB store.
    const value = `<VAST>${'x'.repeat(2500)}</VAST>`;
    const burst = await Promise.all(Array.from({ length: 340 }, () => exchange(cacheUrl(), 'POST', '127.0.0.4', put(value))));
    const refused = burst.filter((answer) => answer.status === 429);
    const stored = burst.filter((answer) => answer.status === 200);
    expect(stored.length + refused.length).to.equal(340);
    expect(stored.length).to.be.at.most(20);
    expect(refused[0]!.headers['retry-after']).to.match(/^\d+$/);
    expect(refused.map((answer) => answer.text)).to.satisfy((texts: string[]) => texts.every((text) => /too many cache puts from this client|its share of the cache/.test(text)));
    const served = await exchange(`${cacheUrl()}?uuid=${victimUuid}`, 'GET', '127.0.0.2');
    expect(served.status).to.equal(200);
    expect(served.text).to.equal('<VAST>victim</VAST>');
    const text = await (gavel.app.metrics as PrometheusMetrics).render();
    expect(valueOf(text, METRIC_NAMES.shed, { reason: 'cache-rate-limit' })).to.equal(refused.length);
    // Another client is not limited by the first one's burst.
    expect((await exchange(cacheUrl(), 'POST', '127.0.0.5', put('<VAST/>'))).status).to.equal(200);
  });
});

describe('the embedded bid cache: one client\'s share', () => {
  let gavel: RunningGavel;
  before(async () => {
    // No rate limit here: the share alone keeps a burst from pushing out others' entries.
    gavel = await startGavel({ cache: { memory: { maxBytes: 200_000 }, clientLimits: { putsPerSecond: 0, maxClientBytes: 50_000 } } });
  });
  after(async () => gavel?.close());

  it('stops a client at its share of the store, so the store never evicts another client\'s live entry for it', async () => {
    const cacheUrl = `${gavel.url}/cache`;
    const victim = await exchange(cacheUrl, 'POST', '127.0.0.2', put('<VAST>victim</VAST>'));
    const victimUuid = JSON.parse(victim.text).responses[0].uuid;
    const value = `<VAST>${'x'.repeat(2500)}</VAST>`;
    // 340 puts of ~5 KB would be 1.7 MB through a 200 KB store: without the share the victim's entry goes first.
    const burst = [];
    for (let i = 0; i < 340; i++) burst.push(await exchange(cacheUrl, 'POST', '127.0.0.4', put(value)));
    const stored = burst.filter((answer) => answer.status === 200).length;
    expect(stored).to.equal(Math.floor(50_000 / memoryEntryBytes(value)));
    expect(burst[burst.length - 1]!.text).to.contain("its share of the cache (50000 bytes)");
    const served = await exchange(`${cacheUrl}?uuid=${victimUuid}`, 'GET', '127.0.0.2');
    expect(served.status).to.equal(200);
  });
});
