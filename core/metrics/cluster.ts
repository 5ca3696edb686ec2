import { AggregatorRegistry } from 'prom-client';
import type { MetricsExposition, PrometheusMetrics } from './metrics.js';

/**
 * With `server.workers > 1` each worker records into its own registry, and a scrape of a port the workers shared
 * would reach one worker at random. So the cluster primary serves the admin port alone and asks every worker for
 * its metrics over the cluster's IPC channel, summing them into one exposition.
 */

/**
 * In a cluster worker, first thing: answer the primary's metric requests (with nothing yet), so a scrape during
 * this worker's boot gets a prompt, partial answer instead of waiting for the aggregator's timeout.
 */
export function answerClusterScrapes(): void {
  // Constructing an AggregatorRegistry is what installs prom-client's IPC listener in a worker.
  new AggregatorRegistry();
}

/** In a cluster worker, once booted: answer the primary's metric requests from this registry. */
export function shareWithClusterPrimary(metrics: PrometheusMetrics): void {
  answerClusterScrapes();
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/** In the cluster primary: the exposition the admin server serves, gathered from every live worker per scrape. */
export class ClusterMetricsExposition implements MetricsExposition {
  private readonly aggregator = new AggregatorRegistry();

  get contentType(): string {
    return this.aggregator.contentType;
  }

  render(): Promise<string> {
    return this.aggregator.clusterMetrics();
  }
}
