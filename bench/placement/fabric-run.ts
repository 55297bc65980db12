// The shell of the peer comparison: on one control plane (started with the
// upstream topology-aware scheduling gates on, so every arm meets the same
// cluster), make a seed's fabric, then run each arm's trace on it one after
// another, wave by wave, reading back where every Pod went and what the
// scheduler spent; clean up between arms.

import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { ClusterState } from '../../test/e2e/harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk } from '../../test/e2e/harness/kube.ts';
import type { Topogate } from '../../test/e2e/harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from '../../test/e2e/harness/topogate.ts';
import { httpsGet, waitFor } from '../../test/e2e/harness/wait.ts';
import type { Fabric } from './fabric.ts';
import type { FabricPod } from './fabric-metrics.ts';
import { fabricPod } from './fabric-metrics.ts';
import { occupantPod, POLICIES_DIR } from './cluster-run.ts';
import { FLEET, FLEET_LABEL } from './fleet.ts';
import type { ServiceGraph } from './graph.ts';
import type { ArmName, FabricTrace } from './trace.ts';
import { FABRIC_NAMESPACES, planTrace, TRAIN_NAMESPACE } from './trace.ts';
import { RUN_LABEL } from './workloads.ts';
import type { Kueue } from '../../test/e2e/harness/kueue.ts';
import { releaseKueueFinalizers, startKueue } from '../../test/e2e/harness/kueue.ts';
import type { KueueAdmission } from './kueue-admission.ts';
import { kueueAdmission } from './kueue-admission.ts';
import { KUEUE_CLUSTER_QUEUE, kueueQueueObjects } from './kueue-queue.ts';
import type { CostRound, SchedulerCost } from './scheduler-cost.ts';
import { COST_ROUNDS, costRatio, replayPod } from './scheduler-cost.ts';

type Kube = Pick<ClusterState, 'kubectl' | 'kubeconfig'>;

/** The gates of KEP-5732 (and the Workload API it builds on), on the API server and the scheduler alike. */
export const TAS_GATES = 'GenericWorkload=true,TopologyAwareWorkloadScheduling=true';
export const TAS_API_SERVER_ARGS = [`--feature-gates=${TAS_GATES}`, '--runtime-config=scheduling.k8s.io/v1beta1=true'];
export const TAS_SCHEDULER_ARGS = [`--feature-gates=${TAS_GATES}`];
/** The controller manager creates a trace's Pods; its default 20 writes/s would pace the scheduler. */
export const CONTROLLER_MANAGER_ARGS = ['--kube-api-qps=200', '--kube-api-burst=400'];

const QUIET_MS = 3_000;
/** A Pod still gated waits on its admitter (Kueue): a longer quiet before it counts as left Pending. */
const GATED_QUIET_MS = 15_000;
const MISSING_QUIET_MS = 10_000;
const WAVE_TIMEOUT_MS = 90_000;

export interface ArmRun {
  readonly arm: ArmName;
  readonly trace: FabricTrace;
  readonly pods: readonly FabricPod[];
  /** Pods the scheduler bound, over the seconds it spent in scheduling attempts (its own histogram). */
  readonly scheduled: number;
  readonly schedulingSeconds: number;
  /** From each wave's creation until its last Pod was bound (or the wave settled), summed. */
  readonly wallSeconds: number;
  /** Pods topogate's policies matched that carry neither its annotation nor its warnings. */
  readonly notMutated: number;
  /** What Kueue spent admitting the gangs (its own metrics); null for the arms without Kueue. */
  readonly admission: KueueAdmission | null;
  /** The arm's Pods as stored, wave by wave, as bare Pods to create again (scheduler-cost.ts). */
  readonly replay: readonly (readonly V1Pod[])[];
}

export interface FabricOptions {
  readonly cluster: ClusterState;
  readonly fabric: Fabric;
  readonly graph: ServiceGraph;
  readonly arms: readonly ArmName[];
  /** Where topogate keeps its certificates and log. */
  readonly scratch: string;
  readonly log: (line: string) => void;
}

/**
 * Creates the fabric, runs every arm on it, then what the default's and topogate's Pods cost the scheduler,
 * and removes it; an arm that cannot run is said as an error string.
 */
export async function runFabric(
  options: FabricOptions,
): Promise<{ arms: Map<ArmName, ArmRun | string>; schedulerCost: SchedulerCost | null }> {
  const { cluster, fabric, log } = options;
  const api = coreApi(cluster);
  const results = new Map<ArmName, ArmRun | string>();
  let schedulerCost: SchedulerCost | null = null;
  await installTopogateCrds(cluster);
  await applyAll(
    cluster,
    FABRIC_NAMESPACES.map((name) => ({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [RUN_LABEL]: 'true' } },
    })),
  );
  await removeFabric(cluster);
  await makeFabric(cluster, api, fabric);
  // Started once the fabric is there, so that its first sync has every Node and the probe's status.
  let topogate: Topogate | undefined;
  let kueue: Kueue | undefined;
  const freeGpus = fabric.nodes.reduce((sum, n) => sum + n.gpus, 0) - fabric.tenants.reduce((s, t) => s + t.gpus, 0);
  try {
    for (const arm of options.arms) {
      const trace = planTrace(fabric.seed, arm, options.graph, freeGpus);
      try {
        if (arm === 'topogate') {
          // With kubectl it makes the Leases' namespace: without it the placement controller never led, and a
          // Pod deferred under load stayed gated (5 Pending in a run at load average 12).
          topogate = await startTopogate({
            cluster: { kubectl: cluster.kubectl, kubeconfig: cluster.kubeconfig, dir: options.scratch },
            policies: POLICIES_DIR,
          });
          await registerWebhook(cluster, topogate);
        }
        if (arm === 'kueueTas') kueue = await startKueueArm(cluster, options.scratch);
        const run = await runArm(cluster, api, arm, trace, log);
        results.set(arm, kueue ? { ...run, admission: kueueAdmission(await kueue.metrics()) } : run);
      } catch (error) {
        const reason = error instanceof Error ? error.message.split('\n')[0]! : String(error);
        log(`${arm}: could not run: ${reason}`);
        results.set(arm, reason);
      } finally {
        if (arm === 'topogate')
          await kubectl(cluster, ['delete', 'mutatingwebhookconfiguration', 'topogate', '--ignore-not-found']);
        if (kueue) {
          await kueue.stop();
          kueue = undefined;
          await releaseKueueFinalizers(cluster, TRAIN_NAMESPACE);
        }
        await cleanUp(cluster, api);
      }
    }
    const [before, after] = [results.get('default'), results.get('topogate')];
    if (typeof before === 'object' && typeof after === 'object')
      schedulerCost = await measureSchedulerCost(cluster, api, { default: before.replay, topogate: after.replay }, log);
  } finally {
    await kueue?.stop();
    await topogate?.stop();
    await removeFabric(cluster);
    await kubectl(cluster, ['delete', 'namespace', ...FABRIC_NAMESPACES, '--ignore-not-found', '--wait=false']);
  }
  return { arms: results, schedulerCost };
}

/** The two arms' Pods created again side by side, COST_ROUNDS times, alternating which goes first. */
async function measureSchedulerCost(
  cluster: ClusterState,
  api: CoreV1Api,
  replays: { readonly default: ArmRun['replay']; readonly topogate: ArmRun['replay'] },
  log: (line: string) => void,
): Promise<SchedulerCost> {
  const rounds: CostRound[] = [];
  for (let round = 0; round < COST_ROUNDS; round++) {
    const order = round % 2 === 0 ? (['default', 'topogate'] as const) : (['topogate', 'default'] as const);
    const figures: Record<string, number | null> = {};
    for (const arm of order) {
      const before = await schedulerCounts(cluster);
      let expected = 0;
      for (const wave of replays[arm]) {
        expected += wave.length;
        await applyAll(cluster, wave);
        await settle(api, expected);
      }
      const after = await schedulerCounts(cluster);
      const seconds = after.scheduledSeconds - before.scheduledSeconds;
      const scheduled = after.scheduled - before.scheduled;
      figures[arm] = seconds > 0 ? scheduled / seconds : null;
      log(
        `scheduler cost, round ${round + 1}, ${arm}: ${scheduled} of ${expected} Pods bound in ${seconds.toFixed(2)} s`,
      );
      await cleanUp(cluster, api);
    }
    rounds.push({ default: figures['default'] ?? null, topogate: figures['topogate'] ?? null });
  }
  return { rounds, ratio: costRatio(rounds) };
}

async function runArm(
  cluster: ClusterState,
  api: CoreV1Api,
  arm: ArmName,
  trace: FabricTrace,
  log: (line: string) => void,
) {
  const before = await schedulerCounts(cluster);
  let wallSeconds = 0;
  let expected = 0;
  const replay: V1Pod[][] = [];
  const seen = new Set<string>();
  for (const wave of trace.waves) {
    const started = Date.now();
    expected += wave.pods;
    await applyAll(cluster, wave.objects);
    const pods = await settle(api, expected);
    wallSeconds += (Date.now() - started) / 1000;
    const created = pods.filter((pod) => !seen.has(`${pod.metadata!.namespace}/${pod.metadata!.name}`));
    for (const pod of created) seen.add(`${pod.metadata!.namespace}/${pod.metadata!.name}`);
    replay.push(created.map((pod) => replayPod(pod, `r-${pod.metadata!.name}`)));
    const bound = pods.filter((pod) => pod.spec?.nodeName).length;
    if (pods.length < expected) throw new Error(`${wave.name}: ${pods.length} of ${expected} Pods created`);
    if (bound < expected) log(`${arm}: ${wave.name}: ${bound} of ${expected} Pods bound so far`);
  }
  const after = await schedulerCounts(cluster);
  const pods = await runPods(api);
  log(
    `${arm}: ${pods.filter((p) => p.spec?.nodeName).length} of ${pods.length} Pods bound, ${wallSeconds.toFixed(1)} s`,
  );
  return {
    arm,
    trace,
    pods: pods.map(fabricPod),
    scheduled: after.scheduled - before.scheduled,
    schedulingSeconds: after.seconds - before.seconds,
    wallSeconds,
    admission: null,
    replay,
    notMutated:
      arm === 'topogate'
        ? pods.filter(
            (pod) =>
              pod.metadata?.namespace !== 'fx-bg' &&
              pod.metadata?.labels?.['app'] !== 'loadgenerator' &&
              !pod.metadata?.annotations?.['topogate.dev/policies'] &&
              !pod.metadata?.annotations?.['topogate.dev/warnings'],
          ).length
        : 0,
  };
}

const runPods = async (api: CoreV1Api): Promise<V1Pod[]> =>
  (await api.listPodForAllNamespaces({ labelSelector: RUN_LABEL })).items.filter((pod) =>
    FABRIC_NAMESPACES.includes(pod.metadata?.namespace ?? ''),
  );

/** Until the wave's Pods exist and are bound, or nothing changed for a while (the rest stay Pending). */
async function settle(api: CoreV1Api, expected: number): Promise<V1Pod[]> {
  const deadline = Date.now() + WAVE_TIMEOUT_MS;
  let last = '';
  let quietSince = Date.now();
  for (;;) {
    const pods = await runPods(api);
    const bound = pods.filter((pod) => pod.spec?.nodeName).length;
    const state = `${pods.length}/${bound}`;
    if (state !== last) [last, quietSince] = [state, Date.now()];
    if (pods.length >= expected && bound === pods.length) return pods;
    // Pods still missing after a long quiet: the controller cannot create them (the arm's error says why).
    const gated = pods.some((pod) => (pod.spec?.schedulingGates?.length ?? 0) > 0);
    const quiet = pods.length < expected ? MISSING_QUIET_MS : gated ? GATED_QUIET_MS : QUIET_MS;
    if (Date.now() - quietSince > quiet) return pods;
    if (Date.now() > deadline) return pods;
    await sleep(200);
  }
}

/** The scheduler's own count of Pods scheduled, the seconds its attempts took (all results), and those that bound. */
async function schedulerCounts(
  cluster: ClusterState,
): Promise<{ scheduled: number; seconds: number; scheduledSeconds: number }> {
  const answer = await httpsGet(`https://127.0.0.1:${cluster.schedulerPort}/metrics`, cluster.admin);
  if (answer.status !== 200) throw new Error(`kube-scheduler /metrics: HTTP ${answer.status}`);
  let scheduled = 0;
  let seconds = 0;
  let scheduledSeconds = 0;
  for (const line of answer.body.split('\n')) {
    const match = /^scheduler_scheduling_attempt_duration_seconds_(sum|count)\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    const bound = match[2]!.includes('result="scheduled"');
    if (match[1] === 'sum') {
      seconds += value;
      if (bound) scheduledSeconds += value;
    } else if (bound) scheduled += value;
  }
  return { scheduled, seconds, scheduledSeconds };
}

/** Kueue's manager for the training namespace, and its Topology, ResourceFlavor and queues, ready to admit. */
export async function startKueueArm(cluster: ClusterState, scratch: string): Promise<Kueue> {
  const kueue = await startKueue({ cluster: { ...cluster, dir: scratch }, namespaces: [TRAIN_NAMESPACE] });
  try {
    await applyAll(cluster, kueueQueueObjects(TRAIN_NAMESPACE));
    await kubectlOk(cluster, [
      'wait',
      '--for=condition=Active',
      '--timeout=60s',
      `clusterqueue/${KUEUE_CLUSTER_QUEUE}`,
    ]);
    return kueue;
  } catch (error) {
    await kueue.stop();
    throw error;
  }
}

async function makeFabric(cluster: Kube, api: CoreV1Api, fabric: Fabric): Promise<void> {
  await createNodes(api, fabric.fakeNodes);
  await applyAll(cluster, [fabric.networkTopology]);
  await kubectlOk(cluster, [
    'patch',
    'networktopology',
    'default',
    '--subresource=status',
    '--type=merge',
    '-p',
    JSON.stringify({ status: { ...fabric.networkStatus, observedAt: new Date().toISOString() } }),
  ]);
  await applyAll(
    cluster,
    fabric.tenants.map((tenant, index) => occupantPod(`fx-tenant-${index}`, tenant)),
  );
}

async function removeFabric(cluster: Kube): Promise<void> {
  const selector = `${FLEET_LABEL}=${FLEET}`;
  await kubectl(cluster, ['delete', 'pod', '-n', 'default', '-l', selector, '--grace-period=0', '--force']);
  await kubectl(cluster, ['delete', 'node', '-l', selector, '--ignore-not-found']);
  await kubectl(cluster, ['delete', 'networktopology', 'default', '--ignore-not-found']);
}

/** Owners first without their dependents (nothing recreates the Pods), then the Pods and PodGroups at once. */
async function cleanUp(cluster: Kube, api: CoreV1Api): Promise<void> {
  for (const namespace of FABRIC_NAMESPACES)
    await kubectl(cluster, ['delete', 'deployment,replicaset', '-n', namespace, '-l', RUN_LABEL, '--cascade=orphan']);
  for (const namespace of FABRIC_NAMESPACES)
    await kubectl(cluster, ['delete', 'pod', '-n', namespace, '-l', RUN_LABEL, '--grace-period=0', '--force']);
  await kubectl(cluster, ['delete', 'podgroups.scheduling.k8s.io', '-n', 'fx-train', '--all', '--ignore-not-found']);
  await waitFor(async () => (await runPods(api)).length === 0, {
    what: 'the Pods of the last arm deleted',
    timeoutMs: 60_000,
  });
}
