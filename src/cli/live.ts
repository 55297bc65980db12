// What the cluster commands (audit, explain pod/…, mutate --kubeconfig) read
// of a live cluster: the topology model and the policies in force, as serve
// would have them (shell). The model is watched until ready, then stopped.

import type { KubeConfig } from '@kubernetes/client-node';
import { AppsV1Api, BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { KubeObject, Pod } from '../kube/types.ts';
import { combinePolicies, objectOrigin, readPolicyObjects } from '../policy/combine.ts';
import { compile, type CompiledPolicySet } from '../policy/compiler.ts';
import { formatPolicyError } from '../policy/errors.ts';
import type { PolicySet } from '../policy/parse.ts';
import { loadPolicies } from '../sources/policies/files.ts';
import { readWebhookPolicyFiles } from '../sources/policies/webhook-files.ts';
import { loadKubeConfig } from '../kube-client/kubeconfig.ts';

const READY_TIMEOUT_MS = 30_000;

export interface LiveCluster {
  readonly config: KubeConfig;
  readonly compiled: CompiledPolicySet;
  /** Invalid policies (files or objects), one line each: they are left out, as serve leaves them out. */
  readonly policyErrors: readonly string[];
  /** Where the policies in force come from, in a sentence for stderr. */
  readonly policySources: string;
}

export function kubeConfig(kubeconfig: string | undefined): KubeConfig {
  const config = loadKubeConfig(kubeconfig);
  if (!config.getCurrentCluster()?.server) throw new Error(`no cluster in ${kubeconfig ?? 'the default kubeconfig'}`);
  return config;
}

/**
 * The live model and the policies: the cluster's SchedulingPolicy objects, and the files in `policyPaths`, or,
 * without them, the files the running webhook serves (its policies ConfigMap).
 */
export async function readLiveCluster(options: {
  readonly kubeconfig?: string;
  readonly policyPaths: readonly string[];
  readonly cwd: string;
}): Promise<LiveCluster> {
  const config = kubeConfig(options.kubeconfig);
  const files: PolicyFiles =
    options.policyPaths.length > 0
      ? { ...(await loadPolicies(options.policyPaths, { cwd: options.cwd })), from: options.policyPaths.join(', ') }
      : await webhookFiles(config);
  // Loaded only here, as serve does: the watches bring the generated API models.
  const [{ createKubeTopology }, { listed, watchPolicyObjects }] = await Promise.all([
    import('../sources/topology/kube.ts'),
    import('../sources/policies/objects.ts'),
  ]);
  const shell = { log: pino({ level: 'silent' }), registry: new Registry() };
  const topology = createKubeTopology({
    ...(options.kubeconfig !== undefined && { kubeconfig: options.kubeconfig }),
    etcdMetrics: [],
    ...shell,
  });
  const policyObjects = watchPolicyObjects({ config, ...shell });
  try {
    await Promise.all([topology.ready(READY_TIMEOUT_MS), listed(policyObjects, READY_TIMEOUT_MS)]);
    const objects = policyObjects.objects();
    const combined = combinePolicies(files.policies, readPolicyObjects(objects, new Map()));
    const fromObjects = combined.policies.filter((policy) => policy.source?.file.startsWith(objectOrigin(''))).length;
    return {
      config,
      compiled: compile(combined.policies, topology.current()),
      policyErrors: [...files.errors, ...combined.errors].map(formatPolicyError),
      policySources:
        `${combined.policies.length} policies in force: ${fromObjects} from SchedulingPolicy objects, ` +
        ('missing' in files
          ? `none from files: ${files.missing} (--policies DIR adds files)`
          : `${combined.policies.length - fromObjects} from ${files.from}`),
    };
  } finally {
    await Promise.all([topology.stop(), policyObjects.stop()]);
  }
}

type PolicyFiles = PolicySet & ({ readonly from: string } | { readonly missing: string });

/** The webhook's policy files, or none and why (then only the objects are in force, and the sentence says so). */
async function webhookFiles(config: KubeConfig): Promise<PolicyFiles> {
  const read = await readWebhookPolicyFiles(config);
  if ('missing' in read) return { policies: [], errors: [], missing: read.missing };
  return { ...read.set, from: `the webhook's files (ConfigMap ${read.configMap})` };
}

/** Every Pod of the cluster, as plain JSON. */
export async function listPods(config: KubeConfig): Promise<Pod[]> {
  const list = await config.makeApiClient(CoreV1Api).listPodForAllNamespaces();
  return plain(list.items, 'v1', 'Pod');
}

/**
 * Every workload with a pod template that no other workload controls: Deployments, StatefulSets, DaemonSets,
 * CronJobs, and the ReplicaSets and Jobs of their own (not a Deployment's, not a CronJob's).
 */
export async function listWorkloads(config: KubeConfig): Promise<KubeObject[]> {
  const apps = config.makeApiClient(AppsV1Api);
  const batch = config.makeApiClient(BatchV1Api);
  const [deployments, statefulSets, daemonSets, replicaSets, jobs, cronJobs] = await Promise.all([
    apps.listDeploymentForAllNamespaces(),
    apps.listStatefulSetForAllNamespaces(),
    apps.listDaemonSetForAllNamespaces(),
    apps.listReplicaSetForAllNamespaces(),
    batch.listJobForAllNamespaces(),
    batch.listCronJobForAllNamespaces(),
  ]);
  const uncontrolled = (object: KubeObject) =>
    !(object.metadata?.ownerReferences ?? []).some(
      (owner) => typeof owner === 'object' && owner !== null && (owner as { controller?: unknown }).controller === true,
    );
  return [
    ...plain(deployments.items, 'apps/v1', 'Deployment'),
    ...plain(statefulSets.items, 'apps/v1', 'StatefulSet'),
    ...plain(daemonSets.items, 'apps/v1', 'DaemonSet'),
    ...plain(replicaSets.items, 'apps/v1', 'ReplicaSet').filter(uncontrolled),
    ...plain(jobs.items, 'batch/v1', 'Job').filter(uncontrolled),
    ...plain(cronJobs.items, 'batch/v1', 'CronJob'),
  ];
}

/** The client's model objects as the JSON the API server sent, with the kind list items leave out. */
export function plain(items: readonly object[], apiVersion: string, kind: string): KubeObject[] {
  return items.map((item) => ({ apiVersion, kind, ...(JSON.parse(JSON.stringify(item)) as KubeObject) }));
}
