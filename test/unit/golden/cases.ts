// The requests whose decisions must not change when the engine is reworked:
// every real-world Pod (and workload template) of the shared fixtures, the
// benchmark's Pods, and spoiled fixture Pods from the fuzz corpus, each
// decided against the demo install (policies/ over examples/cluster) and the
// benchmark's policy set, in several namespaces. golden.json holds digests of
// what the code decided when it was recorded (record.ts): the decisions with
// their explain traces run to megabytes.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { loadPolicySet, loadSnapshot } from '../../../bench/model.ts';
import { decisionPods, trainerPod } from '../../../bench/workload.ts';
import { compile, type CompiledPolicySet } from '../../../src/policy/compiler.ts';
import type { Decision, DecisionOptions } from '../../../src/policy/types.ts';
import { basePods, mutated, namespaces } from '../fuzz/corpus.ts';
import { demoCompiled, demoOptions, demoSnapshot } from '../fuzz/demo.ts';

export interface GoldenCase {
  readonly label: string;
  readonly pod: unknown;
  readonly namespace: string;
  readonly compiled: CompiledPolicySet;
  readonly options: DecisionOptions;
}

const BENCH_NOW = Date.parse('2026-12-01T10:00:00Z');
export const benchOptions: DecisionOptions = { now: BENCH_NOW, maxSourceAgeMs: 10 * 60_000 };
const BENCH_NAMESPACES = ['ml-training', 'web', 'payments', 'batch'];
const SPOILED = 300;

export async function goldenCases(): Promise<GoldenCase[]> {
  const demo = await demoCompiled();
  // The same policies, half rolled out and every other one audited: decisions then depend on the workload.
  const partial = compile(
    demo.policies.map(({ policy }, index) => ({
      ...policy,
      rollout: { percent: 50 },
      ...(index % 2 === 1 && { enforcement: 'Audit' as const }),
    })),
    await demoSnapshot(),
  );
  const bench = benchCompiled();
  const cases: GoldenCase[] = [];
  const add = (label: string, pod: unknown, namespace: string, compiled: CompiledPolicySet, options: DecisionOptions) =>
    cases.push({ label, pod, namespace, compiled, options });

  basePods.forEach((pod, index) => {
    for (const namespace of namespaces) {
      add(`real-world #${index} demo ${namespace}`, pod, namespace, demo, demoOptions);
      add(`real-world #${index} partial ${namespace}`, pod, namespace, partial, demoOptions);
    }
    for (const namespace of BENCH_NAMESPACES)
      add(`real-world #${index} bench ${namespace}`, pod, namespace, bench, benchOptions);
  });
  decisionPods().forEach(({ pod, namespace }, index) =>
    add(`bench pod #${index} ${namespace}`, pod, namespace, bench, benchOptions),
  );
  add('bench trainer (http)', trainerPod(), 'ml-training', bench, benchOptions);
  const spoiled = fc.sample(mutated(basePods), { numRuns: SPOILED, seed: 20261203 });
  spoiled.forEach((pod, index) => {
    if (typeof pod !== 'object' || pod === null || Array.isArray(pod)) return;
    add(`spoiled #${index}`, pod, namespaces[index % namespaces.length]!, demo, demoOptions);
  });
  return cases;
}

/** The benchmark's 100 policies over its 100-node cluster. */
export function benchCompiled(): CompiledPolicySet {
  return compile(loadPolicySet(100), loadSnapshot(100, BENCH_NOW));
}

/** A decision's JSON text (what the answer carries), digested; the snapshot's id is random per process. */
export function digest(decision: Decision, compiled: CompiledPolicySet): string {
  const text = JSON.stringify(decision).replaceAll(compiled.snapshotId, '<snapshot>');
  return createHash('sha256').update(text).digest('base64url');
}
