// The placement benchmark's BENCHMARKS.md section and plot, from its results. Pure.

import { barChart, stackedSvg } from '../plot.ts';
import type { FabricResults } from './fabric-summary.ts';
import { peersCharts, peersTable, peerWins } from './peers-report.ts';
import { goalsTable } from './goals.ts';
import type { ModeSummary, PlacementResults, Spread, TopogateCounts } from './summary.ts';
import { median } from '../../src/stats/order.ts';

export const SECTION_HEADING = '## 9. Placement: what topogate’s decisions are worth';
export const PEERS_HEADING = '### Against the peers';

export interface RunFacts {
  readonly seeds: number;
  readonly seconds: number;
  readonly quick: boolean;
  readonly pods: readonly number[];
  readonly settleSeconds: readonly number[];
  /** Per seed: how many of the gangs the racks could hold whole at the start, and how many gangs there were. */
  readonly gangRoom: readonly number[];
  readonly gangs: number;
}

type Metric = Exclude<keyof ModeSummary, keyof TopogateCounts | 'pods'>;

/** Rows of the table: label, how to print the value, and which way is better. */
const ROWS: readonly {
  key: Metric;
  label: string;
  format: (v: number) => string;
  better: 'lower' | 'higher' | 'neither';
}[] = [
  { key: 'meanRttMs', label: 'mean RTT per call (ms, call-weighted)', format: (v) => v.toFixed(3), better: 'lower' },
  { key: 'p99RttMs', label: 'p99 RTT per call (ms)', format: (v) => v.toFixed(2), better: 'lower' },
  {
    key: 'crossZoneBytesPerSecond',
    label: 'cross-zone traffic (MB/s)',
    format: (v) => (v / 1e6).toFixed(2),
    better: 'lower',
  },
  { key: 'crossZoneCallShare', label: 'calls that cross zones', format: pct, better: 'lower' },
  { key: 'gpuFitShare', label: 'GPU Pods whose GPU and NUMA cell fit', format: pct, better: 'higher' },
  { key: 'gangsInOneRackShare', label: 'gangs inside one rack', format: pct, better: 'higher' },
  { key: 'pendingShare', label: 'Pods left Pending', format: pct, better: 'lower' },
  { key: 'multiZoneWorkloadShare', label: 'workloads (2+ replicas) across 2+ zones', format: pct, better: 'higher' },
  { key: 'unservedCallShare', label: 'calls with no bound callee or caller', format: pct, better: 'lower' },
];

function pct(value: number): string {
  return `${(100 * value).toFixed(value > 0 && value < 0.1 ? 1 : 0)} %`;
}

function cell(spread: Spread | null, format: (v: number) => string, seeds: number): string {
  if (spread === null) return '–';
  return seeds === 1 || spread.min === spread.max
    ? format(spread.median)
    : `${format(spread.median)} (${format(spread.min)}–${format(spread.max)})`;
}

/** The medians where topogate came out worse than the default scheduler: said, not hidden. */
export function worseWithTopogate(results: PlacementResults): string[] {
  const worse: string[] = [];
  for (const scenario of results.scenarios)
    for (const row of ROWS) {
      const [before, after] = [scenario.default[row.key], scenario.topogate[row.key]];
      if (!before || !after || row.better === 'neither') continue;
      const lost = row.better === 'lower' ? after.median > before.median : after.median < before.median;
      // A difference that does not show once rounded is no difference.
      if (lost && row.format(before.median) !== row.format(after.median))
        worse.push(
          `${scenario.name}: ${row.label} ${row.format(before.median)} without topogate, ${row.format(after.median)} with it`,
        );
    }
  return worse;
}

export function placementSection(results: PlacementResults, run: RunFacts, peers?: FabricResults, why = ''): string {
  const { summary } = results;
  const seeds = run.seeds;
  const lines = [
    SECTION_HEADING,
    '',
    `\`npm run bench:placement${run.quick ? ' -- --quick' : ''}\` (bench/placement/), ${new Date().toISOString().slice(0, 16)}Z: ${seeds} seed${seeds === 1 ? '' : 's'}, ` +
      `${Math.round(median(run.pods))} Pods a run, each run settled in ${Math.min(...run.settleSeconds).toFixed(0)}–${Math.max(...run.settleSeconds).toFixed(0)} s, ${run.seconds} s in all. ` +
      'The real kube-scheduler bound every Pod (Deployments through the real controller manager) on the e2e control plane, once with the ' +
      'default scheduler alone and once with topogate and `bench/placement/policies/`; the figures are computed from `spec.nodeName` ' +
      'read back. Cells: median over the seeds (min–max). Method and caveats: [docs/benchmarks.md](docs/benchmarks.md#placement-npm-run-benchplacement).',
    '',
    `**Over every call of a run**: call-weighted mean RTT ${signed(summary.rttReduction)}, cross-zone bytes ${signed(summary.crossZoneBytesReduction)}; ` +
      `Pods left Pending ${summary.pendingDefault === null ? '–' : pct(summary.pendingDefault)} without topogate, ${summary.pendingTopogate === null ? '–' : pct(summary.pendingTopogate)} with it (medians over the seeds).`,
    '',
    '![placement](bench/results/placement.svg)',
  ];
  for (const scenario of results.scenarios) {
    const rows = ROWS.filter((row) => scenario.default[row.key] !== null || scenario.topogate[row.key] !== null);
    lines.push(
      '',
      `### ${scenario.name}`,
      '',
      '| | default scheduler | with topogate |',
      '| --- | --- | --- |',
      ...rows.map(
        (row) =>
          `| ${row.label} | ${cell(scenario.default[row.key], row.format, seeds)} | ${cell(scenario.topogate[row.key], row.format, seeds)} |`,
      ),
      `| Pods a run | ${cell(scenario.default.pods, String, seeds)} | ${cell(scenario.topogate.pods, String, seeds)} |`,
    );
    const { notMutated, warned, deferred, gated } = scenario.topogate;
    const notes = [
      notMutated > 0
        ? `${notMutated} Pods came through with neither topogate's annotation nor its warnings (the webhook failed open).`
        : '',
      deferred > 0
        ? `${deferred} Pods were deferred (topogate's budget was spent: admitted behind its scheduling gate, placed by its controller)${gated > 0 ? `, ${gated} of them still gated when the run settled` : ''}.`
        : '',
      warned > deferred
        ? `${warned - deferred} Pods carry a warning that a required rule was dropped as unsatisfiable.`
        : '',
    ].filter(Boolean);
    if (notes.length > 0) notes.unshift(`In the topogate runs (all seeds):`);
    if (scenario.default.gangsInOneRackShare !== null)
      notes.unshift(
        `At the start the racks had room for ${run.gangRoom.map((room) => Math.min(room, run.gangs)).join(', ')} of the ${run.gangs} gangs, each whole in one rack (seed by seed): the most packing could reach.`,
      );
    if (notes.length > 0) lines.push('', notes.join(' '));
  }
  const worse = worseWithTopogate(results);
  lines.push(
    '',
    '### Where topogate did not help, or hurt, in this run',
    '',
    ...(worse.length > 0 ? worse.map((w) => `- ${w}`) : ['- No median came out worse with topogate.']),
    '',
  );
  if (peers) lines.push(...peersSection(peers, why));
  return `${lines.join('\n')}\n`;
}

function signed(reduction: number | null): string {
  if (reduction === null) return '–';
  return reduction >= 0 ? `−${pct(reduction)}` : `+${pct(-reduction)}`;
}

/** What Kueue spent admitting, from its own metrics: the cost the scheduler's figures do not show. */
function kueueCost(peers: FabricResults): string[] {
  const admission = peers.arms.kueueTas?.admission;
  if (!admission) return [];
  const wait = admission.meanWaitSeconds === null ? '–' : `${admission.meanWaitSeconds.toFixed(2)} s`;
  return [
    '',
    `Kueue's own admission work (its /metrics): ${admission.attempts} admission attempts, ` +
      `${(admission.attemptSeconds * 1000).toFixed(0)} ms in all; ${admission.admitted} Workloads admitted, ` +
      `${wait} on average from creation to admission.`,
  ];
}

function schedulerCost(peers: FabricResults): string[] {
  const cost = peers.schedulerCost;
  if (!cost) return [];
  const figures = (arm: 'default' | 'topogate') =>
    cost.rounds.map((round) => (round[arm] === null ? '–' : round[arm]!.toFixed(1))).join(', ');
  return [
    '',
    `The scheduler's cost side by side: the default arm's Pods and topogate's (as stored, mutated) created again ` +
      `as bare Pods on the same fabric, wave by wave, with no webhook, in ${cost.rounds.length} rounds that ` +
      `alternate which goes first. Pods bound per second of the attempts that bound them: default ${figures('default')}; ` +
      `topogate ${figures('topogate')}; topogate over the default, median of the rounds: ` +
      `${cost.ratio === null ? '–' : cost.ratio.toFixed(2)} (the goal's figure).`,
  ];
}

/**
 * The fabric's arms side by side, the goals met or missed, the rows a peer wins, and why an arm has no
 * figures; `why` (markdown, written by hand from the runs) says why a peer wins a row or a goal is missed.
 */
export function peersSection(peers: FabricResults, why = ''): string[] {
  const wins = peerWins(peers);
  return [
    `${PEERS_HEADING}: one trace on a ${peers.nodes}-node fabric`,
    '',
    'Each arm ran the same seeded trace (background Deployments, four shop tenants wave by wave, then the gangs one by one) ' +
      'on the same fabric, one after another; the real scheduler bound every Pod. How each arm is configured: ' +
      '[docs/benchmarks.md](docs/benchmarks.md#against-the-peers-the-fabric).',
    '',
    ...peersTable(peers),
    ...kueueCost(peers),
    ...schedulerCost(peers),
    '',
    '#### The goals',
    '',
    ...goalsTable(peers),
    '',
    '#### Where a peer beats topogate in this run',
    '',
    ...(wins.length > 0
      ? wins.map((w) => `- ${w}`)
      : ['- No row: topogate is at least as good as every arm that ran.']),
    ...(peers.notes.length > 0 ? ['', ...peers.notes.map((note) => `- ${note}`)] : []),
    ...(why.trim() ? ['', why.trim()] : []),
    '',
  ];
}

export function placementChart(results: PlacementResults, peers?: FabricResults): string {
  const groups = results.scenarios.filter((s) => s.default.meanRttMs || s.topogate.meanRttMs);
  const bars = (metric: Metric, scaleOf: (scenario: (typeof groups)[number]) => number) =>
    (['default', 'topogate'] as const).map((mode, index) => ({
      name: mode === 'default' ? 'default scheduler' : 'with topogate',
      color: index === 0 ? '#888888' : '#1f77b4',
      values: groups.map((scenario) => {
        const spread = scenario[mode][metric];
        const scale = scaleOf(scenario);
        return spread
          ? { value: spread.median * scale, low: spread.min * scale, high: spread.max * scale }
          : { value: 0, low: 0, high: 0 };
      }),
    }));
  const names = groups.map((s) => s.name.replace('online-boutique', 'boutique'));
  // The gangs move gigabytes where the shop moves megabytes: each scenario against its own default.
  const ofDefault = (scenario: (typeof groups)[number]) => {
    const base = scenario.default.crossZoneBytesPerSecond?.median ?? 0;
    return base > 0 ? 100 / base : 0;
  };
  return stackedSvg([
    barChart({
      title: 'Call-weighted mean RTT per call (median, min–max over seeds)',
      yLabel: 'ms',
      groups: names,
      series: bars('meanRttMs', () => 1),
    }),
    barChart({
      title: "Cross-zone bytes/s, % of the default scheduler's median",
      yLabel: '%',
      groups: names,
      series: bars('crossZoneBytesPerSecond', ofDefault),
    }),
    ...(peers ? peersCharts(peers) : []),
  ]);
}
