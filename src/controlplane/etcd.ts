// What one etcd member's /metrics says about its disk: how long WAL fsyncs and
// backend commits took (cumulative histograms). Leadership and peer RTT are
// read by ../topology/etcd/metrics.ts, as the topology reads them.

import { readEtcdMetrics, type EtcdMetrics } from '../topology/etcd/metrics.ts';
import { parsePrometheusText } from '../topology/etcd/prometheus.ts';
import { histogramOf, type Histogram } from './histogram.ts';

export interface EtcdScrape {
  readonly member: EtcdMetrics;
  readonly walFsync: Histogram | undefined;
  readonly backendCommit: Histogram | undefined;
}

const WAL_FSYNC = 'etcd_disk_wal_fsync_duration_seconds';
const BACKEND_COMMIT = 'etcd_disk_backend_commit_duration_seconds';
const NAMES = new Set([`${WAL_FSYNC}_bucket`, `${BACKEND_COMMIT}_bucket`]);

/** Undefined when the text is not an etcd member's metrics. */
export function readEtcdScrape(text: string): EtcdScrape | undefined {
  const member = readEtcdMetrics(text);
  if (!member) return undefined;
  const samples = parsePrometheusText(text, NAMES);
  return { member, walFsync: histogramOf(samples, WAL_FSYNC), backendCommit: histogramOf(samples, BACKEND_COMMIT) };
}
