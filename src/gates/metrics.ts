// The placement controller's metrics: how long Pods wait behind the gate, and what became of them.

import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ReleaseOutcome } from './release.ts';

export interface GateMetrics {
  readonly gated: Gauge;
  readonly duration: Histogram<'outcome'>;
  readonly releases: Counter<'outcome'>;
  readonly patchFailures: Counter;
  readonly leader: Gauge;
}

const outcomes: readonly ReleaseOutcome[] = ['placed', 'unchanged', 'expired', 'unsatisfiable'];

export function createGateMetrics(registry: Registry): GateMetrics {
  const metrics: GateMetrics = {
    gated: new Gauge({
      name: 'topogate_gated_pods',
      help: 'Pods waiting behind the topogate.dev/placement scheduling gate, as the active controller sees them.',
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'topogate_gate_duration_seconds',
      help: "From a gated Pod's creation to the update that removed topogate's gate, by outcome.",
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    releases: new Counter({
      name: 'topogate_gate_releases_total',
      help: 'Gated Pods released: placed (policies applied), unchanged (none changed it), expired (--defer-max passed, released unchanged), unsatisfiable (a Reject policy no node meets, applied after --defer-max: the Pod waits at the scheduler).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    patchFailures: new Counter({
      name: 'topogate_gate_patch_failures_total',
      help: 'Releases the API server refused (the Pod changed meanwhile, or a fault); each is tried again.',
      registers: [registry],
    }),
    leader: new Gauge({
      name: 'topogate_placement_leader',
      help: '1 while this replica holds the placement Lease and runs the controller.',
      registers: [registry],
    }),
  };
  for (const outcome of outcomes) {
    metrics.releases.inc({ outcome }, 0);
    metrics.duration.zero({ outcome });
  }
  return metrics;
}
