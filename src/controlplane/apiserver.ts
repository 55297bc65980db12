// What the API server's /metrics says about the control plane's write path and
// about topogate's own webhook, as cumulative figures; the collector turns two
// scrapes into figures over a window.

import { parsePrometheusText } from '../topology/etcd/prometheus.ts';
import { histogramOf, type Histogram } from './histogram.ts';

export interface ApiServerScrape {
  /** apiserver_request_duration_seconds for the write verbs, summed over resources. */
  readonly write: Histogram | undefined;
  readonly webhook: {
    /** apiserver_admission_webhook_fail_open_count for the webhook. */
    readonly failOpen: number;
    /** apiserver_admission_webhook_request_total for the webhook, every code. */
    readonly requests: number;
    /** apiserver_admission_webhook_admission_duration_seconds for the webhook. */
    readonly admission: Histogram | undefined;
  };
}

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const REQUEST_DURATION = 'apiserver_request_duration_seconds';
const FAIL_OPEN = 'apiserver_admission_webhook_fail_open_count';
const WEBHOOK_REQUESTS = 'apiserver_admission_webhook_request_total';
const WEBHOOK_DURATION = 'apiserver_admission_webhook_admission_duration_seconds';
const NAMES = new Set([
  `${REQUEST_DURATION}_bucket`,
  FAIL_OPEN,
  `${FAIL_OPEN}_total`,
  WEBHOOK_REQUESTS,
  `${WEBHOOK_DURATION}_bucket`,
]);

/** Undefined when the text has no apiserver_request_duration_seconds: not an API server's metrics. */
export function readApiServerMetrics(text: string, webhookName: string): ApiServerScrape | undefined {
  const samples = parsePrometheusText(text, NAMES);
  if (!samples.some((sample) => sample.name === `${REQUEST_DURATION}_bucket`)) return undefined;
  let failOpen = 0;
  let requests = 0;
  for (const sample of samples) {
    if (sample.labels.name !== webhookName) continue;
    if (sample.name === FAIL_OPEN || sample.name === `${FAIL_OPEN}_total`) failOpen += sample.value;
    else if (sample.name === WEBHOOK_REQUESTS) requests += sample.value;
  }
  return {
    write: histogramOf(samples, REQUEST_DURATION, (labels) => WRITE_VERBS.has(labels.verb ?? '')),
    webhook: {
      failOpen,
      requests,
      admission: histogramOf(samples, WEBHOOK_DURATION, (labels) => labels.name === webhookName),
    },
  };
}
