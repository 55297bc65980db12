// The peer comparison's part of the placement section and plot: every arm
// side by side on the fabric, and the rows a peer wins, said. Pure.

import { barChart } from '../plot.ts';
import type { ArmSummary, FabricResults } from './fabric-summary.ts';
import type { ArmName } from './trace.ts';
import { ARMS } from './trace.ts';

export const ARM_LABELS: Readonly<Record<ArmName, string>> = {
  default: 'default scheduler',
  upstreamTas: 'upstream TAS (KEP-5732)',
  kueueTas: 'Kueue v0.17.0 TAS',
  topogate: 'topogate',
};
const ARM_COLORS: Readonly<Record<ArmName, string>> = {
  default: '#888888',
  upstreamTas: '#2ca02c',
  kueueTas: '#ff7f0e',
  topogate: '#1f77b4',
};

const pct = (v: number) => `${(100 * v).toFixed(v > 0 && v < 0.1 ? 1 : 0)} %`;

interface Row {
  readonly label: string;
  readonly value: (arm: ArmSummary) => number | null;
  readonly format: (v: number) => string;
  readonly better: 'lower' | 'higher';
}

export const PEER_ROWS: readonly Row[] = [
  {
    label: 'mean RTT per call (ms, call-weighted)',
    value: (a) => a.meanRttMs,
    format: (v) => v.toFixed(3),
    better: 'lower',
  },
  { label: 'p99 RTT per call (ms)', value: (a) => a.p99RttMs, format: (v) => v.toFixed(2), better: 'lower' },
  {
    label: 'cross-zone traffic (MB/s)',
    value: (a) => a.crossZoneBytesPerSecond,
    format: (v) => (v / 1e6).toFixed(2),
    better: 'lower',
  },
  { label: 'calls that cross zones', value: (a) => a.crossZoneCallShare, format: pct, better: 'lower' },
  { label: 'workloads (2+ replicas) across 2+ zones', value: (a) => a.haKept, format: pct, better: 'higher' },
  { label: 'gangs inside one rack', value: (a) => a.gangsInOneRack, format: pct, better: 'higher' },
  { label: 'GPU racks left whole (of 8)', value: (a) => a.freeGpuRacks, format: String, better: 'higher' },
  { label: 'Pods left Pending', value: (a) => a.pending, format: String, better: 'lower' },
  { label: '… of them with room on some node', value: (a) => a.pendingThatFits, format: String, better: 'lower' },
  {
    label: 'Pods on a node whose zone label is wrong',
    value: (a) => a.podsOnMislabelledNodes,
    format: String,
    better: 'lower',
  },
  {
    label: 'Pods bound per second of scheduler time',
    value: (a) => a.podsPerSchedulingSecond,
    format: (v) => v.toFixed(0),
    better: 'higher',
  },
  {
    label: 'Pods bound per second of wall time',
    value: (a) => a.podsPerWallSecond,
    format: (v) => v.toFixed(1),
    better: 'higher',
  },
];

/** Rows where a peer's figure beats topogate's, once both are rounded as printed. */
export function peerWins(results: FabricResults): string[] {
  const mine = results.arms.topogate;
  if (!mine) return [];
  const wins: string[] = [];
  for (const row of PEER_ROWS) {
    const own = row.value(mine);
    if (own === null) continue;
    for (const arm of ARMS) {
      const theirs = results.arms[arm] === null || arm === 'topogate' ? null : row.value(results.arms[arm]!);
      if (theirs === null || row.format(theirs) === row.format(own)) continue;
      if (row.better === 'lower' ? theirs < own : theirs > own)
        wins.push(`${row.label}: ${ARM_LABELS[arm]} ${row.format(theirs)}, topogate ${row.format(own)}`);
    }
  }
  return wins;
}

export function peersTable(results: FabricResults): string[] {
  const cell = (arm: ArmName, row: Row) => {
    const summary = results.arms[arm];
    const value = summary === null ? null : row.value(summary);
    return value === null ? '–' : row.format(value);
  };
  return [
    `| (seed ${results.seed}, ${results.nodes} nodes) | ${ARMS.map((arm) => ARM_LABELS[arm]).join(' | ')} |`,
    `| --- | ${ARMS.map(() => '---').join(' | ')} |`,
    ...PEER_ROWS.map((row) => `| ${row.label} | ${ARMS.map((arm) => cell(arm, row)).join(' | ')} |`),
    `| Pods a run | ${ARMS.map((arm) => (results.arms[arm] === null ? '–' : String(results.arms[arm]!.pods))).join(' | ')} |`,
  ];
}

export function peersCharts(results: FabricResults): string[] {
  const run = ARMS.filter((arm) => results.arms[arm] !== null);
  const chart = (title: string, yLabel: string, value: (a: ArmSummary) => number | null) =>
    barChart({
      title,
      yLabel,
      groups: ['fabric'],
      series: run.map((arm) => {
        const v = value(results.arms[arm]!) ?? 0;
        return { name: ARM_LABELS[arm], color: ARM_COLORS[arm], values: [{ value: v, low: v, high: v }] };
      }),
    });
  return [
    chart('Fabric: call-weighted mean RTT per call, by arm', 'ms', (a) => a.meanRttMs),
    chart('Fabric: cross-zone traffic, by arm', 'MB/s', (a) => a.crossZoneBytesPerSecond / 1e6),
    chart('Fabric: gangs inside one rack, by arm', '%', (a) => (a.gangsInOneRack ?? 0) * 100),
    chart('Fabric: GPU racks left whole, by arm', 'racks', (a) => a.freeGpuRacks),
  ];
}
