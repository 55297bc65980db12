// Child process of the decision-core benchmark (one per model size, so that
// its RSS is that model's alone): builds the model, compiles each policy set,
// times decisions, and reports to the parent over IPC.
//   node --expose-gc bench/decisions.ts '{"nodes":10000,...}'

import { compile, type CompiledPolicySet } from '../src/policy/compiler.ts';
import { decide } from '../src/policy/engine.ts';
import { podRequest } from '../src/kube/podFacts.ts';
import type { Pod } from '../src/kube/types.ts';
import type { DecisionOptions } from '../src/policy/types.ts';
import { loadPolicySet, loadSnapshot } from './model.ts';
import { watchContention, type Contention } from './contention.ts';
import { collectGarbage } from './gc.ts';
import { retune, timeWithFloor, tuneFloor } from './floor.ts';
import { percentiles, type Percentiles } from './stats.ts';
import { decisionPods } from './workload.ts';

export interface DecisionJob {
  readonly nodes: number;
  readonly policyCounts: readonly number[];
  /** Decisions timed one by one, for percentiles, per policy count. */
  readonly samples: number;
  /** Decisions timed in batches, for throughput, per policy count. */
  readonly batchDecisions: number;
  /** Decisions run between two heap readings (0: skip). */
  readonly heapDecisions: number;
  /** Time structuredClone of the Pods too (off when profiling the decisions alone). */
  readonly baseline: boolean;
}

export interface PolicyCountResult {
  readonly policies: number;
  readonly compileMs: number;
  readonly decisionsPerSecond: number;
  /** Per decision, µs. */
  readonly latencyUs: Percentiles;
  /** CPU waits and GC pauses while latencyUs was measured. */
  readonly contention: Contention;
  /** structuredClone of the same Pods, timed the same way, µs. */
  readonly cloneUs?: Percentiles;
  /** Fixed work as long as each Pod's median decision, timed between the decisions: the machine's floor, µs. */
  readonly floorUs?: Percentiles;
  /** The same Pods as replicas (name and uid aside, a Pod decided before): the decision memo's answer, µs. */
  readonly replicaUs: Percentiles;
  /** What each benchmark Pod got: applied policy names and patch length. */
  readonly outcomes: readonly {
    readonly namespace: string;
    readonly allowed: boolean;
    readonly applied: readonly string[];
    readonly patchOps: number;
    readonly warnings: number;
  }[];
}

export interface DecisionReport {
  readonly nodes: number;
  readonly buildMs: number;
  /**
   * This benchmark process's RSS (not the webhook's: bench/serve-memory.ts measures `serve`): before anything is
   * built (the runtime and the modules), then with the model and every policy set compiled, after a GC.
   */
  readonly rssBaseBytes: number;
  readonly rssModelBytes: number;
  readonly heapModelBytes: number;
  readonly results: readonly PolicyCountResult[];
  readonly heap?: {
    readonly decisions: number;
    readonly beforeBytes: number;
    readonly afterBytes: number;
    readonly seconds: number;
    /** Full collections on the way: garbage that outlived the young generation (docs/benchmarks.md). */
    readonly majorGcs: number;
  };
}

const NOW = Date.parse('2026-12-01T10:00:00Z');
const OPTIONS: DecisionOptions = { now: NOW, maxSourceAgeMs: 10 * 60_000 };
const BATCH = 1000;

/** Per-call µs of `work` over `count` calls, each timed by itself. */
function timeEach(count: number, work: (i: number) => unknown): Percentiles {
  const micros = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    work(i);
    micros[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  return percentiles(micros);
}

/**
 * The decisions one by one, and when `job.baseline`, the machine's floor after each (bench/floor.ts): measured
 * again, up to three times, if V8 moved spin() to another tier after the pilots and the floor's medians moved off.
 */
async function timeDecisions(job: DecisionJob, kinds: number, once: (i: number) => unknown) {
  if (!job.baseline) {
    const stopWatching = watchContention();
    const latencyUs = timeEach(job.samples, once);
    return { latencyUs, floorUs: undefined, contention: await stopWatching() };
  }
  const iterations = tuneFloor(kinds, once);
  for (let attempt = 1; ; attempt++) {
    const stopWatching = watchContention();
    const timed = timeWithFloor(job.samples, once, iterations);
    const contention = await stopWatching();
    if (retune(iterations, timed) || attempt === 3)
      return { latencyUs: percentiles(timed.work), floorUs: percentiles(timed.floor), contention };
  }
}

async function measure(job: DecisionJob): Promise<DecisionReport> {
  collectGarbage();
  const rssBaseBytes = process.memoryUsage().rss;
  const buildStart = process.hrtime.bigint();
  const snapshot = loadSnapshot(job.nodes, NOW);
  const buildMs = Number(process.hrtime.bigint() - buildStart) / 1e6;
  const requests = decisionPods();
  const compiledSets = job.policyCounts.map((count) => {
    const policies = loadPolicySet(count);
    const start = process.hrtime.bigint();
    const compiled = compile(policies, snapshot);
    return { count, compiled, compileMs: Number(process.hrtime.bigint() - start) / 1e6 };
  });
  collectGarbage();
  const memory = process.memoryUsage();
  const results: PolicyCountResult[] = [];
  for (const { count, compiled, compileMs } of compiledSets) {
    // Parsing the Pod into its facts is part of every decision the webhook makes, so it is timed with it.
    const replica = (i: number) => decideRaw(requests[i % requests.length]!, compiled);
    const once = (i: number) => decideRaw(firstOfItsKind(requests[i % requests.length]!), compiled);
    const outcomes = requests.map((request, i) => {
      const decision = replica(i);
      return {
        namespace: request.namespace,
        allowed: decision.allowed,
        applied: decision.applied,
        patchOps: decision.patch.length,
        warnings: decision.warnings.length,
      };
    });
    for (let i = 0; i < Math.min(job.batchDecisions, 20_000); i++) once(i);
    const { latencyUs, floorUs, contention } = await timeDecisions(job, requests.length, once);
    const cloneUs = job.baseline
      ? timeEach(job.samples, (i) => structuredClone(requests[i % requests.length]!.pod))
      : undefined;
    const replicaUs = timeEach(job.samples, replica);
    let elapsed = 0n;
    let done = 0;
    while (done < job.batchDecisions) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < BATCH; i++) once(done + i);
      elapsed += process.hrtime.bigint() - start;
      done += BATCH;
    }
    results.push({
      policies: count,
      compileMs,
      decisionsPerSecond: done / (Number(elapsed) / 1e9),
      latencyUs,
      contention,
      ...(cloneUs ? { cloneUs } : {}),
      ...(floorUs ? { floorUs } : {}),
      replicaUs,
      outcomes,
    });
  }
  const report: DecisionReport = {
    nodes: job.nodes,
    buildMs,
    rssBaseBytes,
    rssModelBytes: memory.rss,
    heapModelBytes: memory.heapUsed,
    results,
  };
  if (job.heapDecisions === 0) return report;
  const last = compiledSets.at(-1)!.compiled;
  collectGarbage();
  const beforeBytes = process.memoryUsage().heapUsed;
  const stopWatching = watchContention();
  const start = process.hrtime.bigint();
  for (let i = 0; i < job.heapDecisions; i++) decideRaw(firstOfItsKind(requests[i % requests.length]!), last);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const { majorGcs } = await stopWatching();
  collectGarbage();
  return {
    ...report,
    heap: { decisions: job.heapDecisions, beforeBytes, afterBytes: process.memoryUsage().heapUsed, seconds, majorGcs },
  };
}

/**
 * The request as a Pod never seen: an annotation, new each time, gives it a decision-memo key never seen, so the
 * engine decides in full (the memo's hits are replicaUs). Not a label: a decision sees only the labels policies read.
 */
function firstOfItsKind(request: RawRequest): RawRequest {
  (request.pod.metadata!.annotations ??= {})['bench.topogate.dev/sequence'] = String(sequence++);
  return request;
}

let sequence = 0;

interface RawRequest {
  readonly pod: Pod;
  readonly namespace: string;
}

function decideRaw({ pod, namespace }: RawRequest, compiled: CompiledPolicySet) {
  return decide(podRequest(pod, namespace), compiled, OPTIONS);
}

if (import.meta.main) {
  const job = JSON.parse(process.argv[2] ?? '{}') as DecisionJob;
  process.send?.(await measure(job), () => process.disconnect?.());
}
