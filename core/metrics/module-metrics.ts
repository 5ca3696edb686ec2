import { Counter, Gauge } from 'prom-client';
import { ErrorCode, GavelError, type ModuleCounter, type ModuleGauge, type ModuleMetricSpec, type ModuleMetrics } from '../api/index.js';
import { OTHER, PrometheusMetrics, type Metrics } from './metrics.js';

const NAME = /^gavel_[a-z0-9_]+$/;
const NOOP_COUNTER: ModuleCounter = { inc() {} };
const NOOP_GAUGE: ModuleGauge = { set() {} };

/** Maps a module's label values onto the declared ones: anything else becomes `other`, so series stay bounded. */
function boundedLabels(spec: ModuleMetricSpec): (labels: Readonly<Record<string, string>> | undefined) => Record<string, string> {
  const allowed = Object.entries(spec.labels ?? {}).map(([label, values]) => [label, new Set(values)] as const);
  return (labels) => {
    const bounded: Record<string, string> = {};
    for (const [label, values] of allowed) {
      const value = labels?.[label];
      bounded[label] = value !== undefined && values.has(value) ? value : OTHER;
    }
    return bounded;
  };
}

function checkName(spec: ModuleMetricSpec, taken: Set<string>): void {
  if (!NAME.test(spec.name)) throw new GavelError(ErrorCode.PluginInvalid, `module metric "${spec.name}" must be named gavel_<lower_snake_case>`);
  if (taken.has(spec.name)) throw new GavelError(ErrorCode.PluginInvalid, `module metric "${spec.name}" is declared twice`);
  taken.add(spec.name);
}

/**
 * The metrics modules declare, on the host's registry (`GET /metrics` on the admin listener). With metrics switched
 * off (`admin.enabled: false`) they are accepted and record nothing.
 */
export function createModuleMetrics(metrics: Metrics): ModuleMetrics {
  if (!(metrics instanceof PrometheusMetrics)) return { counter: () => NOOP_COUNTER, gauge: () => NOOP_GAUGE };
  const registry = metrics.registry;
  const taken = new Set<string>();
  return {
    counter(spec) {
      checkName(spec, taken);
      const labelNames = Object.keys(spec.labels ?? {});
      const counter = new Counter({ name: spec.name, help: spec.help, labelNames, registers: [registry] });
      const bound = boundedLabels(spec);
      return { inc: (labels, by = 1) => (labelNames.length ? counter.inc(bound(labels), by) : counter.inc(by)) };
    },
    gauge(spec) {
      checkName(spec, taken);
      const labelNames = Object.keys(spec.labels ?? {});
      const gauge = new Gauge({ name: spec.name, help: spec.help, labelNames, registers: [registry] });
      const bound = boundedLabels(spec);
      return { set: (value, labels) => (labelNames.length ? gauge.set(bound(labels), value) : gauge.set(value)) };
    },
  };
}
