/**
 * A tiny cluster for the cluster metrics test: the primary forks two workers, each records a known number of
 * auctions, and the primary serves their sum on an admin port it prints as `{"port": N}`. SIGTERM stops all three.
 */
import cluster from 'node:cluster';
import { pino } from 'pino';
import { ClusterMetrics, PrometheusMetrics, shareWithClusterPrimary, startAdminServer } from '../../core/metrics/index.js';

const WORKERS = 2;

async function primary(): Promise<void> {
  let ready = 0;
  const exposition = new ClusterMetrics();
  for (let index = 0; index < WORKERS; index++) {
    const worker = cluster.fork({ FIXTURE_WORKER_INDEX: String(index) });
    exposition.attach(worker, index + 1);
    worker.on('message', async (message: { ready?: boolean }) => {
      if (!message.ready || ++ready < WORKERS) return;
      const admin = await startAdminServer({ port: 0, metrics: exposition, logger: pino({ level: 'silent' }), readiness: () => ready === WORKERS });
      process.stdout.write(`${JSON.stringify({ port: admin.port })}\n`);
      process.once('SIGTERM', () => {
        for (const live of Object.values(cluster.workers ?? {})) live?.kill('SIGTERM');
        void admin.close().then(() => process.exit(0));
      });
    });
  }
}

function worker(): void {
  const index = Number(process.env.FIXTURE_WORKER_INDEX);
  const metrics = new PrometheusMetrics({ bidders: ['alpha'] });
  // Worker 0 records one auction, worker 1 two: the primary must report three.
  for (let i = 0; i <= index; i++) metrics.auctionCompleted('auction', 'ok', 50);
  metrics.bidderCall('alpha', 'bid', 20);
  shareWithClusterPrimary(metrics);
  const keepAlive = setInterval(() => {}, 60_000);
  process.once('disconnect', () => clearInterval(keepAlive));
  process.send!({ ready: true });
}

if (cluster.isPrimary) await primary();
else worker();
