// The live model of a large cluster, built in this process by serve's own code
// (createKubeTopology: informers listing and watching the replay server, the
// builder, then createDecider over it), measured: the first snapshot, decisions
// on it, one node's update reaching decisions, and the CPU that churn costs.
// Run by bench/large/run.ts in a fresh process per cluster size.

import { pino } from 'pino';
import { Registry } from 'prom-client';
import { stringify } from 'yaml';
import { podRequest } from '../../src/kube/podFacts.ts';
import type { Pod } from '../../src/kube/types.ts';
import type { PodRequest } from '../../src/policy/types.ts';
import { parsePolicies } from '../../src/policy/parse.ts';
import type { PolicyProvider } from '../../src/ports/policies.ts';
import { createDecider, type Decider } from '../../src/server/decider.ts';
import { createKubeTopology } from '../../src/sources/topology/kube.ts';
import { collectGarbage } from '../gc.ts';
import { tuneFloor, timeWithFloor } from '../floor.ts';
import { percentiles, type Percentiles } from '../stats.ts';
import { decisionPods, policies } from '../workload.ts';
import { canaryPolicy } from './objects.ts';

export interface ModelJob {
  readonly replayUrl: string;
  readonly kubeconfig: string;
  readonly nodes: number;
  readonly policies: number;
  readonly samples: number;
  readonly canaryEvents: number;
  /** Churn events per second by resource, for `churnSeconds` (0: skip). */
  readonly churn: Readonly<Record<string, number>>;
  readonly churnSeconds: number;
}

export interface ModelReport {
  readonly nodes: number;
  /** From creating the topology to every source listed and the snapshot published, ms. */
  readonly readyMs: number;
  /** From creating the topology to the first snapshot that holds every node, ms. */
  readonly firstSnapshotMs: number;
  readonly snapshotNodes: number;
  /**
   * Until every source listed, the longest the event loop went without turning (a timer every 5 ms), ms: what an
   * admission request arriving during the lists could wait behind them.
   */
  readonly longestTurnMs: number;
  /** Compiling the policies against the first whole snapshot (the decider does it as it is published), ms. */
  readonly compileMs: number;
  readonly rssBytes: number;
  readonly heapBytes: number;
  /** Each decision timed alone, µs: every Pod the first of its kind (the engine in full). */
  readonly decisionUs: Percentiles;
  /** The machine's floor beside them: fixed arithmetic as long as each kind's median decision, µs. */
  readonly floorUs: Percentiles;
  /** From the replay server writing a canary event to the first decision that shows it, ms. */
  readonly updateMs: Percentiles;
  readonly updatesSeen: number;
  /** This process's CPU (user + system) over the churn window, as a share of one core. */
  readonly churnCpuShare?: number;
  readonly churnSeconds?: number;
}

function policyProvider(count: number): PolicyProvider {
  const objects = [...policies(count - 1), canaryPolicy()];
  const { policies: loaded, errors } = parsePolicies(objects.map((o) => stringify(o)).join('---\n'), 'bench.yaml');
  if (errors.length > 0) throw new Error(`the benchmark's policies do not load: ${JSON.stringify(errors.slice(0, 2))}`);
  const current = { version: 1, policies: loaded };
  return {
    current: () => current,
    readiness: () => ({ ready: true }),
    onChange: () => () => undefined,
    stop: async () => undefined,
  };
}

let sequence = 0;

/** A Pod the compiled set has not decided before: an annotation new each time (a decision sees unread labels not). */
function firstOfItsKind(pod: Pod, namespace: string) {
  (pod.metadata!.annotations ??= {})['bench.topogate.dev/sequence'] = String(sequence++);
  return podRequest(pod, namespace);
}

/** A GPU Pod in namespace canary: refused while no node has the canary product, admitted while one has. */
function canaryPod(): Pod {
  const trainer = decisionPods()[0]!.pod;
  return { ...trainer, metadata: { ...trainer.metadata, namespace: 'canary', labels: { app: 'canary' } } };
}

async function post(url: string): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', signal: AbortSignal.timeout(120_000) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return JSON.parse(text) as unknown;
}

/** Watches the event loop turn (a timer every 5 ms); stop() answers the longest gap between two turns, ms. */
function watchTurns(): () => number {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  return () => {
    clearInterval(timer);
    return Math.max(longest, performance.now() - last);
  };
}

/** Now, on the clock every process of the machine shares: ms since the epoch, µs precision. */
const wallNow = () => performance.timeOrigin + performance.now();

/**
 * Each decision timed alone, and after each the machine's floor (bench/floor.ts): fixed arithmetic as long as its
 * kind's median decision, so that a p99 the host's interruptions set can be told from one the decisions set.
 */
function timeDecisions(decider: Decider, samples: number): Pick<ModelReport, 'decisionUs' | 'floorUs'> {
  const pods = decisionPods();
  const prepare = (i: number) => firstOfItsKind(pods[i % pods.length]!.pod, pods[i % pods.length]!.namespace);
  const decide = (_: number, request: PodRequest) => decider.decide(request);
  // The first thousand warm the engine up; the floor's iterations are tuned on the decisions' medians.
  for (let i = 0; i < 1_000; i++) decide(i, prepare(i));
  const iterations = tuneFloor(pods.length, decide, prepare);
  const timed = timeWithFloor(samples, decide, iterations, prepare);
  return { decisionUs: percentiles(timed.work), floorUs: percentiles(timed.floor) };
}

/**
 * Each canary event flips the canary Pod's answer: per event, the time from the replay server writing it to the
 * first decision that shows it (the watch's bytes, the informer, the snapshot, the compiled set, the decision).
 */
async function timeUpdates(job: ModelJob, decider: Decider, subscribe: (f: () => void) => () => void) {
  const pod = canaryPod();
  const took: number[] = [];
  for (let event = 0; event < job.canaryEvents; event++) {
    const expected = event % 2 === 0;
    const seen = new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => done(undefined), 5_000);
      const stop = subscribe(() => {
        if (decider.decide(firstOfItsKind(pod, 'canary')).allowed === expected) done(wallNow());
      });
      function done(at: number | undefined) {
        clearTimeout(timer);
        stop();
        resolve(at);
      }
    });
    const { writtenAt } = (await post(`${job.replayUrl}/bench/emit?resource=nodes&stream=canary&count=1`)) as {
      writtenAt: number;
    };
    const at = await seen;
    if (at !== undefined) took.push(at - writtenAt);
    // Let the snapshot's garbage and the next compile settle, as between two real node events.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { updateMs: percentiles(took), updatesSeen: took.length };
}

export async function measure(job: ModelJob): Promise<ModelReport> {
  const log = pino({ level: 'silent' });
  const registry = new Registry();
  const started = performance.now();
  const stopWatchingTurns = watchTurns();
  let firstSnapshotMs = Number.NaN;
  const topology = createKubeTopology({ kubeconfig: job.kubeconfig, etcdMetrics: [], log, registry });
  const unsubscribe = topology.subscribe((snapshot) => {
    if (Number.isNaN(firstSnapshotMs) && snapshot.nodes.count >= job.nodes)
      firstSnapshotMs = performance.now() - started;
  });
  await topology.ready(10 * 60_000);
  const readyMs = performance.now() - started;
  const longestTurnMs = stopWatchingTurns();
  unsubscribe();
  const policies = policyProvider(job.policies);
  const compileStarted = performance.now();
  const decider = createDecider({ policies, topology, maxSourceAgeMs: 3_600_000, log });
  const compileMs = performance.now() - compileStarted;
  collectGarbage();
  const memory = process.memoryUsage();
  const decisions = timeDecisions(decider, job.samples);
  const updates = await timeUpdates(job, decider, (listener) => topology.subscribe(listener));
  let churn: Pick<ModelReport, 'churnCpuShare' | 'churnSeconds'> = {};
  if (job.churnSeconds > 0) {
    const query = Object.entries(job.churn)
      .map(([resource, rate]) => `${resource}=${rate}`)
      .join('&');
    const before = process.cpuUsage();
    const wall = performance.now();
    await post(`${job.replayUrl}/bench/churn?seconds=${job.churnSeconds}&${query}`);
    const used = process.cpuUsage(before);
    churn = {
      churnCpuShare: (used.user + used.system) / 1000 / (performance.now() - wall),
      churnSeconds: job.churnSeconds,
    };
  }
  decider.stop();
  await topology.stop();
  return {
    nodes: job.nodes,
    readyMs,
    firstSnapshotMs,
    snapshotNodes: topology.current().nodes.count,
    longestTurnMs,
    compileMs,
    rssBytes: memory.rss,
    heapBytes: memory.heapUsed,
    ...decisions,
    ...updates,
    ...churn,
  };
}

if (import.meta.main) {
  const job = JSON.parse(process.argv[2] ?? '{}') as ModelJob;
  process.send?.(await measure(job), () => process.disconnect?.());
}
