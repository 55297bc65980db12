// The shell of the placement benchmark: on a real control plane, make the
// fleet of a seed, create each scenario's Deployments once without topogate's
// policies and once with them, wait until the real scheduler has bound what it
// can, read back where every Pod went, and clean up for the next run.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import type { ClusterState } from '../../test/e2e/harness/cluster.ts';
import { coreApi, createNodes, kubectl, kubectlOk } from '../../test/e2e/harness/kube.ts';
import type { Topogate } from '../../test/e2e/harness/topogate.ts';
import { applyAll, installTopogateCrds, registerWebhook, startTopogate } from '../../test/e2e/harness/topogate.ts';
import { repoRoot } from '../../test/e2e/harness/versions.ts';
import { waitFor } from '../../test/e2e/harness/wait.ts';
import type { ServiceGraph } from './graph.ts';
import type { Fleet, Occupant } from './fleet.ts';
import { buildFleet, FLEET, FLEET_LABEL, ZONE } from './fleet.ts';
import type { PlacedPod } from './metrics.ts';
import { podRequests } from './metrics.ts';
import type { Mode, ScenarioPlan } from './workloads.ts';
import { MODES, namespaceOf, planRun, RUN_LABEL } from './workloads.ts';

type Kube = Pick<ClusterState, 'kubectl' | 'kubeconfig'>;

export const POLICIES_DIR = join(repoRoot, 'bench', 'placement', 'policies');
const NRT_CRD = join(repoRoot, 'bench', 'placement', 'nrt-crd.yaml');
const WEBHOOK = 'topogate';
const POLICIES_ANNOTATION = 'topogate.dev/policies';
const WARNINGS_ANNOTATION = 'topogate.dev/warnings';
const DEFERRED_ANNOTATION = 'topogate.dev/deferred';
/** How long the scheduler gets, after the last Pod appeared or was bound, before the rest count as Pending. */
const QUIET_MS = 4_000;
const SETTLE_TIMEOUT_MS = 120_000;

/** Where one scenario's Pods went in one run, and what the run saw of topogate. */
export interface ScenarioRun {
  readonly scenario: ScenarioPlan;
  readonly pods: readonly PlacedPod[];
  /** In the topogate run: Pods a policy matches that came through with neither its annotation nor its warnings (the webhook failed open). */
  readonly notMutated: number;
  /** Pods carrying topogate's warnings: a required rule dropped, or the placement deferred. */
  readonly warned: number;
  /** Pods topogate admitted behind its scheduling gate (its budget was spent), placed later by its controller. */
  readonly deferred: number;
  /** Pods still behind a scheduling gate when the run settled (they count as Pending). */
  readonly gated: number;
  /** What topogate wrote on each Pod (its annotations), for runs.json: how a figure came about. */
  readonly records: readonly {
    readonly name: string;
    readonly node?: string;
    readonly topogate: Record<string, string>;
  }[];
}

export interface Run {
  readonly seed: number;
  readonly mode: Mode;
  readonly fleet: Fleet;
  readonly scenarios: readonly ScenarioRun[];
  readonly settleSeconds: number;
}

export interface BenchCluster {
  readonly cluster: ClusterState;
  readonly seeds: readonly number[];
  readonly graph: ServiceGraph;
  readonly quick: boolean;
  readonly log: (line: string) => void;
}

const namespaceObject = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels: { [RUN_LABEL]: 'true' } },
});

/** Runs every seed in both modes on one topogate; removes what it made, the webhook configuration first. */
export async function runOnCluster(options: BenchCluster): Promise<Run[]> {
  const { cluster, log } = options;
  const api = coreApi(cluster);
  await installCrds(cluster);
  const scratch = mkdtempSync(join(cluster.dir, 'placement-'));
  const planned = planRun({ seed: 1, mode: 'default', graph: options.graph, controlPlaneZone: 'zone-a', quick: false });
  await applyAll(
    cluster,
    planned.flatMap((plan) => MODES.map((mode) => namespaceObject(plan.namespace.replace(/-default$/, `-${mode}`)))),
  );
  let topogate: Topogate | undefined;
  const runs: Run[] = [];
  try {
    // What a run that was stopped half-way left behind.
    await cleanUp(cluster, api);
    await removeFleet(cluster);
    // The fleet of the first seed is there before topogate starts, so its first sync has it.
    let fleet = buildFleet(options.seeds[0]!, options.quick ? 2 : 3);
    await makeFleet(cluster, api, fleet);
    // kubectl makes the Leases' namespace, so that the placement controller can lead and release deferred Pods.
    topogate = await startTopogate({
      cluster: { kubectl: cluster.kubectl, kubeconfig: cluster.kubeconfig, dir: scratch },
      policies: POLICIES_DIR,
      etcdMetrics: cluster.etcd.map((member) => member.metricsUrl),
    });
    await registerWebhook(cluster, topogate);
    for (const [index, seed] of options.seeds.entries()) {
      if (index > 0) {
        await removeFleet(cluster);
        fleet = buildFleet(seed, options.quick ? 2 : 3);
        await makeFleet(cluster, api, fleet);
      }
      await waitForModel(cluster, fleet);
      for (const mode of MODES) {
        const started = Date.now();
        const plans = planRun({
          seed,
          mode,
          graph: options.graph,
          controlPlaneZone: fleet.controlPlaneZone,
          quick: options.quick,
        });
        const scenarios = await runScenarios(cluster, api, plans, mode);
        const settleSeconds = (Date.now() - started) / 1000;
        runs.push({ seed, mode, fleet, scenarios, settleSeconds });
        const bound = scenarios.flatMap((s) => s.pods).filter((p) => p.node !== undefined).length;
        const total = scenarios.reduce((sum, s) => sum + s.pods.length, 0);
        log(`seed ${seed} ${mode}: ${bound} of ${total} Pods bound in ${settleSeconds.toFixed(1)} s`);
        await cleanUp(cluster, api);
      }
    }
  } catch (error) {
    if (topogate) writeFileSync(join(scratch, 'topogate-tail.log'), topogate.output());
    throw error;
  } finally {
    await kubectl(cluster, ['delete', 'mutatingwebhookconfiguration', WEBHOOK, '--ignore-not-found']);
    await topogate?.stop();
    await cleanUp(cluster, api);
    await removeFleet(cluster);
    await kubectl(cluster, ['delete', 'networktopology', 'default', '--ignore-not-found']);
    await kubectl(cluster, ['delete', 'namespace', '-l', RUN_LABEL, '--wait=false']);
  }
  return runs;
}

async function installCrds(cluster: Kube): Promise<void> {
  const present = await kubectl(cluster, ['get', 'crd', 'noderesourcetopologies.topology.node.k8s.io']);
  if (present.code !== 0) await kubectlOk(cluster, ['apply', '-f', NRT_CRD]);
  await kubectlOk(cluster, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/noderesourcetopologies.topology.node.k8s.io',
  ]);
  await installTopogateCrds(cluster);
}

async function makeFleet(cluster: Kube, api: CoreV1Api, fleet: Fleet): Promise<void> {
  await createNodes(api, fleet.nodes);
  await applyAll(cluster, [...fleet.nodeResourceTopologies, fleet.networkTopology]);
  // Other tenants' Pods, bound by name: the scheduler and topogate's pack rule count what they request.
  await applyAll(
    cluster,
    fleet.occupants.map((occupant, index) => occupantPod(`occupant-${index}`, occupant)),
  );
}

/** Another tenant's Pod, bound by name (as a kubelet's static Pod would be), in `default`. */
export function occupantPod(name: string, occupant: Occupant): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { [FLEET_LABEL]: FLEET } },
    spec: {
      nodeName: occupant.node,
      terminationGracePeriodSeconds: 0,
      tolerations: [{ operator: 'Exists' }],
      containers: [
        {
          name: 'main',
          image: 'registry.k8s.io/pause:3.10',
          resources: {
            requests: {
              cpu: `${occupant.cpuMilli}m`,
              memory: `${occupant.memoryMi}Mi`,
              ...(occupant.gpus > 0 ? { 'nvidia.com/gpu': String(occupant.gpus) } : {}),
            },
            ...(occupant.gpus > 0 ? { limits: { 'nvidia.com/gpu': String(occupant.gpus) } } : {}),
          },
        },
      ],
    },
  };
}

async function removeFleet(cluster: Kube): Promise<void> {
  const selector = `${FLEET_LABEL}=${FLEET}`;
  await kubectl(cluster, ['delete', 'pod', '-n', 'default', '-l', selector, '--grace-period=0', '--force']);
  await kubectl(cluster, ['delete', 'noderesourcetopologies', '-l', selector, '--ignore-not-found']);
  await kubectl(cluster, ['delete', 'node', '-l', selector, '--ignore-not-found']);
}

const requiredZones = (pod: V1Pod): string[] =>
  pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms
    ?.flatMap((term) => term.matchExpressions ?? [])
    .filter((e) => e.key === ZONE)
    .flatMap((e) => e.values ?? []) ?? [];

async function dryRun(api: CoreV1Api, namespace: string, labels: Record<string, string>): Promise<V1Pod> {
  return api.createNamespacedPod({
    namespace,
    dryRun: 'All',
    body: {
      metadata: { generateName: 'probe-', labels },
      spec: {
        nodeSelector: { [FLEET_LABEL]: FLEET },
        containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', resources: { requests: { cpu: '250m' } } }],
      },
    },
  });
}

/** topogate has the seed's fleet once the etcd leader's zone (the control-plane Node's) reaches its decisions. */
async function waitForModel(cluster: Kube, fleet: Fleet): Promise<void> {
  const api = coreApi(cluster);
  await waitFor(
    async () =>
      requiredZones(await dryRun(api, namespaceOf('operators', 'topogate'), { app: 'probe' })).join() ===
      fleet.controlPlaneZone,
    { what: `topogate to see the etcd leader in ${fleet.controlPlaneZone}`, timeoutMs: 60_000, intervalMs: 500 },
  );
  // The NodeResourceTopology objects and Nodes came in the same burst; let their watch events land too.
  await sleep(1000);
}

async function runScenarios(cluster: Kube, api: CoreV1Api, plans: readonly ScenarioPlan[], mode: Mode) {
  // The state store first: its zone is what the shop's latency rule aims at.
  const anchored = plans.filter((plan) => plan.anchor);
  await applyAll(
    cluster,
    anchored.map((plan) => plan.anchor!),
  );
  for (const plan of anchored) await publishAnchor(cluster, api, plan, mode);
  await applyAll(
    cluster,
    plans.flatMap((plan) => plan.deployments),
  );
  const expected = plans.reduce((sum, plan) => sum + plan.pods, 0);
  const pods = await settle(api, expected);
  return plans.map((scenario): ScenarioRun => {
    const own = pods.filter((pod) => pod.metadata?.namespace === scenario.namespace);
    const matched = own.filter((pod) => pod.metadata?.labels?.['app'] !== scenario.anchorService);
    return {
      scenario,
      pods: own.map(placed),
      // A Pod topogate decided carries what it applied, or the warnings saying why nothing was.
      notMutated:
        mode === 'topogate'
          ? matched.filter(
              (pod) =>
                !pod.metadata?.annotations?.[POLICIES_ANNOTATION] && !pod.metadata?.annotations?.[WARNINGS_ANNOTATION],
            ).length
          : 0,
      warned: own.filter((pod) => pod.metadata?.annotations?.[WARNINGS_ANNOTATION]).length,
      deferred: own.filter((pod) => pod.metadata?.annotations?.[DEFERRED_ANNOTATION]).length,
      gated: own.filter((pod) => (pod.spec?.schedulingGates ?? []).length > 0).length,
      records: own.map((pod) => ({
        name: pod.metadata?.name ?? '',
        node: pod.spec?.nodeName,
        topogate: Object.fromEntries(
          Object.entries(pod.metadata?.annotations ?? {}).filter(([key]) => key.startsWith('topogate.dev/')),
        ),
      })),
    };
  });
}

/**
 * No kubelet reports the store's Pod IP, so the EndpointSlice controller has nothing to publish:
 * the bench writes the slice it would, in the zone the scheduler chose, and waits until topogate
 * decides with it (in the topogate run).
 */
async function publishAnchor(cluster: Kube, api: CoreV1Api, plan: ScenarioPlan, mode: Mode): Promise<void> {
  const service = plan.anchorService!;
  let node = '';
  await waitFor(
    async () => {
      const pods = await api.listNamespacedPod({ namespace: plan.namespace, labelSelector: `app=${service}` });
      node = pods.items.find((pod) => pod.spec?.nodeName)?.spec?.nodeName ?? '';
      return node !== '';
    },
    { what: `${plan.namespace}/${service} bound`, timeoutMs: 60_000 },
  );
  const zone = (await api.readNode({ name: node })).metadata?.labels?.[ZONE];
  await applyAll(cluster, [
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${service}-bench`,
        namespace: plan.namespace,
        labels: { 'kubernetes.io/service-name': service, [RUN_LABEL]: 'true' },
      },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.0.10'], zone, nodeName: node, conditions: { ready: true } }],
      ports: [{ name: 'redis', port: 6379, protocol: 'TCP' }],
    },
  ]);
  if (mode !== 'topogate') return;
  await waitFor(
    async () => {
      const pod = await dryRun(api, plan.namespace, { app: 'probe' });
      const preferred = pod.spec?.affinity?.nodeAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? [];
      return preferred.some((term) =>
        term.preference.matchExpressions?.some((e) => e.key === ZONE && e.values?.includes(zone ?? '')),
      );
    },
    { what: `topogate to see ${plan.namespace}/${service} in ${zone}`, timeoutMs: 30_000, intervalMs: 300 },
  );
}

/** Until every expected Pod exists and nothing was created or bound for a while: bound where the scheduler put them, the rest Pending. */
async function settle(api: CoreV1Api, expected: number): Promise<V1Pod[]> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = '';
  let quietSince = Date.now();
  for (;;) {
    const pods = (await api.listPodForAllNamespaces({ labelSelector: RUN_LABEL })).items;
    const state = pods
      .map((pod) => `${pod.metadata?.name}@${pod.spec?.nodeName ?? ''}${pod.spec?.schedulingGates?.length ?? 0}`)
      .join();
    if (state !== last) {
      last = state;
      quietSince = Date.now();
    }
    const allBound = pods.length >= expected && pods.every((pod) => pod.spec?.nodeName);
    // A Pod topogate deferred waits behind its scheduling gate until the placement controller decides it.
    const gated = pods.some((pod) => (pod.spec?.schedulingGates ?? []).length > 0);
    const quiet = pods.length >= expected && !gated && Date.now() - quietSince > QUIET_MS;
    if (allBound || quiet || Date.now() > deadline) return pods;
    await sleep(500);
  }
}

function placed(pod: V1Pod): PlacedPod {
  return {
    name: pod.metadata?.name ?? '',
    workload: pod.metadata?.labels?.['app'] ?? '',
    node: pod.spec?.nodeName || undefined,
    requests: podRequests(pod),
  };
}

/**
 * No kubelet confirms a graceful delete, so owners go first without their dependents (no
 * controller recreates the Pods), then the Pods are removed at once.
 */
async function cleanUp(cluster: Kube, api: CoreV1Api): Promise<void> {
  await kubectl(cluster, ['delete', 'deployment,replicaset', '-A', '-l', RUN_LABEL, '--cascade=orphan']);
  await kubectl(cluster, ['delete', 'pod,endpointslice', '-A', '-l', RUN_LABEL, '--grace-period=0', '--force']);
  await waitFor(async () => (await api.listPodForAllNamespaces({ labelSelector: RUN_LABEL })).items.length === 0, {
    what: 'the Pods of the last run deleted',
    timeoutMs: 60_000,
  });
}

export function writeJson(dir: string, file: string, value: unknown): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), `${JSON.stringify(value, null, 2)}\n`);
}
