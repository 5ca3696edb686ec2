import { expect } from 'chai';
import { METRIC_NAMES, PrometheusMetrics, startAdminServer, type AdminServer, type MetricsExposition } from '../../core/metrics/index.js';
import { fetchAnswer, getJson, startGavel, type RunningGavel } from '../support/gavel.js';
import { valueOf } from './exposition.js';

/** A logger that keeps what it was told, so a test can check an error was reported. */
function recordingLogger() {
  const entries: Array<{ level: string; obj: unknown; msg?: string }> = [];
  const at = (level: string) => (obj: object | string, msg?: string) => void entries.push({ level, obj, msg });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('admin server', () => {
  let metrics: PrometheusMetrics;
  let admin: AdminServer;
  let ready = true;
  let base: string;

  before(async () => {
    metrics = new PrometheusMetrics({ bidders: ['alpha'] });
    admin = await startAdminServer({ port: 0, metrics, logger: recordingLogger(), readiness: () => ready });
    base = `http://127.0.0.1:${admin.port}`;
  });
  after(() => admin.close());

  it('binds to loopback by default, on the port it reports', () => {
    expect(admin.host).to.equal('127.0.0.1');
    expect(admin.port).to.be.above(0);
  });

  it('serves GET /metrics in the Prometheus text format, with what was recorded', async () => {
    metrics.bidderCall('alpha', 'nobid', 12);
    const { status, text, headers } = await getJson(`${base}/metrics`);
    expect(status).to.equal(200);
    expect(headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
    expect(text).to.contain(`# TYPE ${METRIC_NAMES.bidderRequests} counter`);
    expect(valueOf(text, METRIC_NAMES.bidderRequests, { bidder: 'alpha', outcome: 'nobid' })).to.equal(1);
    expect(valueOf(text, 'process_cpu_user_seconds_total')).to.be.a('number');
  });

  it('answers GET /health with 200 while ready and 503 while not', async () => {
    ready = true;
    const up = await getJson(`${base}/health`);
    expect(up.status).to.equal(200);
    expect(up.json).to.deep.equal({ status: 'ok' });
    ready = false;
    const down = await getJson(`${base}/health?probe=1`);
    expect(down.status).to.equal(503);
    expect(down.json).to.deep.equal({ status: 'unavailable' });
    ready = true;
  });

  it('answers 404 elsewhere and 405 to other methods on its two paths', async () => {
    expect((await getJson(`${base}/`)).status).to.equal(404);
    expect((await getJson(`${base}/metrics/extra`)).status).to.equal(404);
    expect((await getJson(`${base}/openrtb2/auction`)).status).to.equal(404);
    const post = await fetchAnswer(`${base}/metrics`, { method: 'POST', body: '{}' });
    expect(post.status).to.equal(405);
    expect(post.headers.get('allow')).to.equal('GET, HEAD');
    const head = await fetchAnswer(`${base}/health`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.text).to.equal('');
  });

  it('reports not ready when the readiness check throws, and 500 when the metrics cannot be rendered', async () => {
    const logger = recordingLogger();
    const broken: MetricsExposition = {
      contentType: 'text/plain',
      render: () => Promise.reject(new Error('collector failed')),
    };
    const other = await startAdminServer({
      port: 0,
      metrics: broken,
      logger,
      readiness: () => {
        throw new Error('not yet');
      },
    });
    try {
      expect((await getJson(`http://127.0.0.1:${other.port}/health`)).status).to.equal(503);
      expect((await getJson(`http://127.0.0.1:${other.port}/metrics`)).status).to.equal(500);
      expect(logger.entries.some((entry) => entry.level === 'error' && entry.msg === 'metrics could not be rendered')).to.equal(true);
    } finally {
      await other.close();
    }
  });

  it('refuses a port already taken, and stops listening once closed', async () => {
    let thrown: unknown;
    await startAdminServer({ port: admin.port, metrics, logger: recordingLogger(), readiness: () => true }).catch((err: unknown) => (thrown = err));
    expect((thrown as NodeJS.ErrnoException)?.code).to.equal('EADDRINUSE');

    const shortLived = await startAdminServer({ port: 0, metrics, logger: recordingLogger(), readiness: () => true });
    const url = `http://127.0.0.1:${shortLived.port}/health`;
    expect((await getJson(url)).status).to.equal(200);
    await shortLived.close();
    let refused: unknown;
    await fetch(url).catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(Error);
  });
});

describe('the public listener', () => {
  let gavel: RunningGavel;

  before(async () => {
    gavel = await startGavel();
  });
  after(() => gavel?.close());

  it('does not serve the admin endpoints', async () => {
    expect(gavel.app.config.admin).to.include({ enabled: true, host: '127.0.0.1', port: 8060 });
    for (const path of ['/metrics', '/health', '/metrics/workers', '/stored/invalidate', '/inspector', '/inspector/api/auctions', '/openapi.json', '/currency/rates']) {
      const { status, text } = await getJson(`${gavel.url}${path}`);
      expect(status, path).to.equal(404);
      expect(text, path).to.not.contain(METRIC_NAMES.auctions);
    }
    // The public app itself is up: the 404s above are not a dead server.
    expect((await getJson(`${gavel.url}/status`)).status).to.equal(200);
  });
});

describe('GET /currency/rates on the admin listener', () => {
  let gavel: RunningGavel;
  let admin: AdminServer;

  before(async () => {
    gavel = await startGavel();
    admin = await startAdminServer({ port: 0, metrics: new PrometheusMetrics({ bidders: [] }), logger: recordingLogger(), readiness: () => true, mounts: gavel.app.adminMounts });
  });
  after(async () => {
    await admin?.close();
    await gavel?.close();
  });

  it("answers the rate converter as Prebid Server's admin endpoint does, and refuses other methods", async () => {
    const { status, json } = await getJson(`http://127.0.0.1:${admin.port}/currency/rates`);
    expect(status).to.equal(200);
    expect(json).to.include({ active: true, lastUpdated: '0001-01-01T00:00:00Z' });
    expect(json).to.have.property('fetchingIntervalNs').that.is.a('number');
    const post = await fetchAnswer(`http://127.0.0.1:${admin.port}/currency/rates`, { method: 'POST', body: '{}' });
    expect(post.status).to.equal(405);
    expect((await getJson(`http://127.0.0.1:${admin.port}/currency/rates/more`)).status).to.equal(404);
  });
});
