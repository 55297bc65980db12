// From the runs' placements to bench/results/placement.json: each
// scenario's metrics per mode as min/median/max over the seeds, and the
// summary over every call and Pod of a run. Pure.

import type { Edge, NodeFacts, PlacedPod, PlacementMetrics, Scenario } from './metrics.ts';
import { median } from '../../src/stats/order.ts';
import { placementMetrics } from './metrics.ts';
import { network } from './fleet.ts';
import type { Mode } from './workloads.ts';
import type { FabricResults, PerArm } from './fabric-summary.ts';
import { eachArm, throughputRatio } from './fabric-summary.ts';

export interface Spread {
  readonly min: number;
  readonly median: number;
  readonly max: number;
  readonly bySeed: readonly (number | null)[];
}

/** What the Pods say of topogate, summed over the seeds' runs (see ScenarioRun in cluster-run.ts). */
export interface TopogateCounts {
  readonly notMutated: number;
  readonly warned: number;
  readonly deferred: number;
  readonly gated: number;
}
const total = (runs: readonly TopogateCounts[], key: keyof TopogateCounts) => runs.reduce((sum, r) => sum + r[key], 0);

export type ModeSummary = { readonly [K in keyof PlacementMetrics]: Spread | null } & TopogateCounts;

export interface PlacementResults {
  readonly scenarios: readonly {
    readonly name: string;
    readonly default: ModeSummary;
    readonly topogate: ModeSummary;
  }[];
  readonly summary: {
    readonly rttReduction: number | null;
    readonly crossZoneBytesReduction: number | null;
    readonly pendingDefault: number | null;
    readonly pendingTopogate: number | null;
  };
}

/** What the summary needs of one run: each scenario's placement, the nodes of its seed's fleet. */
export interface RunPlacement {
  readonly seed: number;
  readonly mode: Mode;
  readonly facts: ReadonlyMap<string, NodeFacts>;
  readonly scenarios: readonly ({ readonly name: string; readonly scenario: Scenario } & TopogateCounts)[];
}

function spread(values: readonly (number | null)[]): Spread | null {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return null;
  return { min: Math.min(...known), median: median(known), max: Math.max(...known), bySeed: values };
}

function summarize(metrics: readonly PlacementMetrics[], runs: readonly TopogateCounts[]): ModeSummary {
  const keys = Object.keys(metrics[0]!) as (keyof PlacementMetrics)[];
  return {
    ...(Object.fromEntries(keys.map((key) => [key, spread(metrics.map((m) => m[key]))])) as {
      [K in keyof PlacementMetrics]: Spread | null;
    }),
    notMutated: total(runs, 'notMutated'),
    warned: total(runs, 'warned'),
    deferred: total(runs, 'deferred'),
    gated: total(runs, 'gated'),
  };
}

/** Every scenario of a run as one, its workloads named by scenario so that two scenarios' `frontend`s stay apart. */
export function wholeRun(run: RunPlacement): Scenario {
  const prefix = (name: string, workload: string) => `${name}/${workload}`;
  const rename = (name: string, edge: Edge): Edge => ({
    ...edge,
    from: prefix(name, edge.from),
    to: edge.to.startsWith('zone:') ? edge.to : prefix(name, edge.to),
  });
  return {
    pods: run.scenarios.flatMap(({ name, scenario }) =>
      scenario.pods.map((pod): PlacedPod => ({ ...pod, workload: prefix(name, pod.workload) })),
    ),
    edges: run.scenarios.flatMap(({ name, scenario }) => scenario.edges.map((edge) => rename(name, edge))),
    gpuNeeds: run.scenarios.flatMap(({ name, scenario }) =>
      scenario.gpuNeeds.map((need) => ({ ...need, workload: prefix(name, need.workload) })),
    ),
    gangs: run.scenarios.flatMap(({ name, scenario }) => scenario.gangs.map((gang) => prefix(name, gang))),
  };
}

const reduction = (before: number | null, after: number | null): number | null =>
  before === null || after === null || before === 0 ? null : 1 - after / before;

export function placementResults(runs: readonly RunPlacement[]): PlacementResults {
  const seeds = [...new Set(runs.map((r) => r.seed))];
  const runOf = (seed: number, mode: Mode) => runs.find((r) => r.seed === seed && r.mode === mode)!;
  const names = runs[0]?.scenarios.map((s) => s.name) ?? [];
  const modeSummary = (name: string, mode: Mode): ModeSummary => {
    const perSeed = seeds.map((seed) => {
      const run = runOf(seed, mode);
      const scenario = run.scenarios.find((s) => s.name === name)!;
      return { metrics: placementMetrics(scenario.scenario, run.facts, network), scenario };
    });
    return summarize(
      perSeed.map((p) => p.metrics),
      perSeed.map((p) => p.scenario),
    );
  };
  const whole = (mode: Mode) =>
    seeds.map((seed) => placementMetrics(wholeRun(runOf(seed, mode)), runOf(seed, mode).facts, network));
  const [before, after] = [whole('default'), whole('topogate')];
  const medianOf = (values: readonly (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length === 0 ? null : median(known);
  };
  return {
    scenarios: names.map((name) => ({
      name,
      default: modeSummary(name, 'default'),
      topogate: modeSummary(name, 'topogate'),
    })),
    summary: {
      rttReduction: medianOf(before.map((b, i) => reduction(b.meanRttMs, after[i]!.meanRttMs))),
      crossZoneBytesReduction: medianOf(
        before.map((b, i) => reduction(b.crossZoneBytesPerSecond, after[i]!.crossZoneBytesPerSecond)),
      ),
      pendingDefault: medianOf(before.map((b) => b.pendingShare)),
      pendingTopogate: medianOf(after.map((a) => a.pendingShare)),
    },
  };
}

/** The results with the peer comparison on the fabric: its summary fields beside today's, its arms in full. */
export interface PlacementWithPeers extends PlacementResults {
  readonly summary: PlacementResults['summary'] & {
    /** Share of the 2+-replica workloads (gangs aside) whose replicas sit in 2+ zones, with topogate, on the fabric. */
    readonly haKept: number | null;
    readonly gangsInOneRack: PerArm<number>;
    /** GPU racks left with every GPU free (room for a 32-Pod gang): more is less fragmented. */
    readonly fragmentation: PerArm<number>;
    /** Pods bound per second of scheduler time with topogate's Pods, over the default's (no webhook). */
    readonly schedulerThroughputRatio: number | null;
    readonly nodes: number;
    /** On the fabric, topogate against the default scheduler. */
    readonly fabricRttReduction: number | null;
    readonly fabricCrossZoneBytesReduction: number | null;
    /** The most any placement keeping every 2+-replica workload across 2+ zones could cut from the default's. */
    readonly fabricCrossZoneBytesReductionBound: number | null;
    readonly notes: readonly string[];
  };
  readonly peers: FabricResults;
}

export function withPeers(results: PlacementResults, peers: FabricResults): PlacementWithPeers {
  const { default: before, topogate: after } = peers.arms;
  return {
    ...results,
    summary: {
      ...results.summary,
      haKept: after?.haKept ?? null,
      gangsInOneRack: eachArm(peers, (arm) => arm.gangsInOneRack),
      fragmentation: eachArm(peers, (arm) => arm.freeGpuRacks),
      schedulerThroughputRatio: throughputRatio(peers),
      nodes: peers.nodes,
      fabricRttReduction: reduction(before?.meanRttMs ?? null, after?.meanRttMs ?? null),
      fabricCrossZoneBytesReduction: reduction(
        before?.crossZoneBytesPerSecond ?? null,
        after?.crossZoneBytesPerSecond ?? null,
      ),
      fabricCrossZoneBytesReductionBound: reduction(
        before?.crossZoneBytesPerSecond ?? null,
        after?.crossZoneBytesFloor ?? null,
      ),
      notes: peers.notes,
    },
    peers,
  };
}
