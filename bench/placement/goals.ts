// The goals the peer comparison is held to, each with its figure and met or
// missed, from one fabric run: topogate against the default scheduler on the
// same trace, and against the best peer for gangs. Pure.

import type { ArmSummary, FabricResults } from './fabric-summary.ts';
import { throughputRatio } from './fabric-summary.ts';

export interface Goal {
  readonly goal: string;
  readonly figure: string;
  /** null: a figure it needs is missing (an arm did not run). */
  readonly met: boolean | null;
}

const pct = (v: number) => `${(100 * v).toFixed(1)} %`;
const reduction = (before: number | null, after: number | null) =>
  before === null || after === null || before === 0 ? null : 1 - after / before;

/** The peer (Kueue, upstream TAS) with the most gangs in one rack, ties to the one that left more racks whole. */
function bestPeer(results: FabricResults): { name: string; arm: ArmSummary } | null {
  const peers = (['upstreamTas', 'kueueTas'] as const)
    .map((name) => ({ name, arm: results.arms[name] }))
    .filter((p): p is { name: 'upstreamTas' | 'kueueTas'; arm: ArmSummary } => p.arm !== null);
  peers.sort(
    (a, b) => (b.arm.gangsInOneRack ?? 0) - (a.arm.gangsInOneRack ?? 0) || b.arm.freeGpuRacks - a.arm.freeGpuRacks,
  );
  return peers[0] ?? null;
}

/** A reduction as a change: −40 % when it fell, +18 % when it rose. */
const change = (reduction: number | null) =>
  reduction === null ? '–' : reduction >= 0 ? `−${pct(reduction)}` : `+${pct(-reduction)}`;

export function goals(results: FabricResults): Goal[] {
  const { default: before, topogate: after } = results.arms;
  if (before === null || after === null)
    return [{ goal: 'topogate against the default scheduler', figure: 'an arm did not run', met: null }];
  const rtt = reduction(before.meanRttMs, after.meanRttMs);
  const bytes = reduction(before.crossZoneBytesPerSecond, after.crossZoneBytesPerSecond);
  const floor = reduction(before.crossZoneBytesPerSecond, after.crossZoneBytesFloor);
  const best = bestPeer(results);
  const throughput = throughputRatio(results);
  const gangs = after.gangsInOneRack ?? 0;
  return [
    {
      goal: 'call-weighted mean RTT at least 60 % lower',
      figure: change(rtt),
      met: rtt === null ? null : rtt >= 0.6,
    },
    {
      goal: 'cross-zone bytes at least 80 % lower, with every 2+-replica workload across 2+ zones',
      figure:
        `${change(bytes)}, haKept ${after.haKept === null ? '–' : after.haKept.toFixed(2)}; ` +
        `the least any placement with haKept 1.0 sends on this trace: ${change(floor)}`,
      met: bytes === null ? null : bytes >= 0.8 && after.haKept === 1,
    },
    {
      goal: 'gangs in one rack at least as often as the best peer, with no more fragmentation',
      figure:
        best === null
          ? `${pct(gangs)}; no peer ran`
          : `${pct(gangs)} and ${after.freeGpuRacks} GPU racks whole; ${best.name} ${pct(best.arm.gangsInOneRack ?? 0)} and ${best.arm.freeGpuRacks}`,
      met:
        best === null ? null : gangs >= (best.arm.gangsInOneRack ?? 0) && after.freeGpuRacks >= best.arm.freeGpuRacks,
    },
    {
      goal: 'no Pod left Pending that fits',
      figure: `${after.pendingThatFits} of ${after.pending} Pending had room`,
      met: after.pendingThatFits === 0,
    },
    {
      goal: "scheduler throughput at least 0.95 of the default's",
      figure: throughput === null ? '–' : throughput.toFixed(2),
      met: throughput === null ? null : throughput >= 0.95,
    },
  ];
}

export function goalsTable(results: FabricResults): string[] {
  const verdict = (met: boolean | null) => (met === null ? 'not measured' : met ? 'met' : 'missed');
  return [
    '| goal (topogate, same trace) | figure | |',
    '| --- | --- | --- |',
    ...goals(results).map((g) => `| ${g.goal} | ${g.figure} | ${verdict(g.met)} |`),
  ];
}
