// From the arms' runs on the fabric to what bench/results/placement.json
// says of them: each arm's metrics, the scheduler's throughput with its Pods,
// and why an arm has none. Pure.

import type { Fabric } from './fabric.ts';
import type { FabricMetrics } from './fabric-metrics.ts';
import type { KueueAdmission } from './kueue-admission.ts';
import type { SchedulerCost } from './scheduler-cost.ts';
import { fabricMetrics } from './fabric-metrics.ts';
import type { ArmName } from './trace.ts';
import { ARMS } from './trace.ts';

/** What fabricMetrics needs of one arm's run (ArmRun in fabric-run.ts). */
export interface ArmPlacement {
  readonly trace: {
    readonly workloads: Parameters<typeof fabricMetrics>[1];
    readonly edges: Parameters<typeof fabricMetrics>[2];
  };
  readonly pods: Parameters<typeof fabricMetrics>[0];
  readonly scheduled: number;
  readonly schedulingSeconds: number;
  readonly wallSeconds: number;
  readonly notMutated: number;
  readonly admission: KueueAdmission | null;
}

export type PerArm<T> = { readonly [Arm in ArmName]: T | null };

export interface ArmSummary extends FabricMetrics {
  /** Pods bound per second of the scheduler's attempt time (its scheduling_attempt_duration histogram). */
  readonly podsPerSchedulingSecond: number | null;
  /** Pods bound per second of wall time, waves summed. */
  readonly podsPerWallSecond: number | null;
  readonly notMutated: number;
  /** What Kueue spent admitting the gangs (its own metrics); null for the arms without Kueue. */
  readonly admission: KueueAdmission | null;
}

export interface FabricResults {
  readonly nodes: number;
  readonly seed: number;
  readonly arms: PerArm<ArmSummary>;
  /** The default's and topogate's Pods created again side by side (scheduler-cost.ts); null when not measured. */
  readonly schedulerCost: SchedulerCost | null;
  readonly notes: readonly string[];
}

const perSecond = (count: number, seconds: number) => (seconds > 0 ? count / seconds : null);

/** `runs`: each arm's run, or why it could not run; an arm missing from it was not run. */
export function fabricResults(
  fabric: Pick<Fabric, 'seed' | 'nodes' | 'byName' | 'tenants'>,
  runs: ReadonlyMap<ArmName, ArmPlacement | string>,
  schedulerCost: SchedulerCost | null = null,
): FabricResults {
  const tenantUse = new Map<string, { cpuMilli: number; gpus: number }>();
  for (const tenant of fabric.tenants) {
    const taken = tenantUse.get(tenant.node) ?? { cpuMilli: 0, gpus: 0 };
    tenantUse.set(tenant.node, { cpuMilli: taken.cpuMilli + tenant.cpuMilli, gpus: taken.gpus + tenant.gpus });
  }
  const notes: string[] = [];
  const arms = Object.fromEntries(
    ARMS.map((arm): [ArmName, ArmSummary | null] => {
      const run = runs.get(arm);
      if (run === undefined || typeof run === 'string') {
        notes.push(`${arm}: null: ${typeof run === 'string' ? `could not run: ${run}` : 'not run'}`);
        return [arm, null];
      }
      const metrics = fabricMetrics(run.pods, run.trace.workloads, run.trace.edges, fabric.byName, tenantUse);
      return [
        arm,
        {
          ...metrics,
          podsPerSchedulingSecond: perSecond(run.scheduled, run.schedulingSeconds),
          podsPerWallSecond: perSecond(metrics.pods - metrics.pending, run.wallSeconds),
          notMutated: run.notMutated,
          admission: run.admission,
        },
      ];
    }),
  ) as unknown as PerArm<ArmSummary>;
  return { nodes: fabric.nodes.length, seed: fabric.seed, arms, schedulerCost, notes };
}

/**
 * topogate's Pods bound per second of scheduler time over the default's: from the side-by-side rounds when they
 * ran, else from the arms run one after another.
 */
export function throughputRatio(results: FabricResults): number | null {
  if (results.schedulerCost) return results.schedulerCost.ratio;
  const [before, after] = [
    results.arms.default?.podsPerSchedulingSecond,
    results.arms.topogate?.podsPerSchedulingSecond,
  ];
  return before === null || before === undefined || after === null || after === undefined || before === 0
    ? null
    : after / before;
}

/** One metric of every arm, null where the arm has none. */
export function eachArm<T>(results: FabricResults, pick: (arm: ArmSummary) => T | null): PerArm<T> {
  return Object.fromEntries(
    ARMS.map((arm) => [arm, results.arms[arm] === null ? null : pick(results.arms[arm]!)]),
  ) as unknown as PerArm<T>;
}
