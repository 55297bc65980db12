// What kube-scheduler's /metrics says about its speed: how long a scheduling
// attempt takes (every result: scheduled, unschedulable, error) and how long
// binding a Pod to its Node takes (the Bind extension point).

import { parsePrometheusText } from '../topology/etcd/prometheus.ts';
import { histogramOf, type Histogram } from './histogram.ts';

export interface SchedulerScrape {
  readonly attempt: Histogram | undefined;
  readonly bind: Histogram | undefined;
}

const ATTEMPT = 'scheduler_scheduling_attempt_duration_seconds';
const EXTENSION_POINT = 'scheduler_framework_extension_point_duration_seconds';
/** Exported from the start (a histogram only after its first observation): tells a scheduler's page. */
export const SCHEDULER_MARKER = 'scheduler_pending_pods';
const NAMES = new Set([`${ATTEMPT}_bucket`, `${EXTENSION_POINT}_bucket`, SCHEDULER_MARKER]);

/** Undefined when the text has none of the scheduler's metrics: not a scheduler's page. */
export function readSchedulerMetrics(text: string): SchedulerScrape | undefined {
  const samples = parsePrometheusText(text, NAMES);
  if (samples.length === 0) return undefined;
  return {
    attempt: histogramOf(samples, ATTEMPT),
    bind: histogramOf(samples, EXTENSION_POINT, (labels) => labels.extension_point === 'Bind'),
  };
}
