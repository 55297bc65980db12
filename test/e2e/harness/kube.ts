// What e2e tests do against the cluster: run the kubectl that was built with
// it, talk to it with @kubernetes/client-node, and make a fake fleet of Nodes
// (no kubelets) that the real scheduler binds Pods to.

import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Node, V1NodeAddress, V1Pod, V1Taint } from '@kubernetes/client-node';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { ClusterState } from './cluster.ts';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl against the cluster; never throws on a non-zero exit (tests assert on it). */
export function kubectl(
  cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>,
  args: readonly string[],
  stdin?: string,
): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cluster.kubectl,
      [...args],
      { env: { ...process.env, KUBECONFIG: cluster.kubeconfig }, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(new Error(`kubectl ${args.join(' ')}: ${error.message}`));
        else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** Like kubectl, but a failure is an error that carries kubectl's own message. */
export async function kubectlOk(
  cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>,
  args: readonly string[],
  stdin?: string,
): Promise<string> {
  const result = await kubectl(cluster, args, stdin);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${result.code}: ${result.stderr.trim()}`);
  return result.stdout;
}

export function kubeConfig(cluster: Pick<ClusterState, 'kubeconfig'>): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(cluster.kubeconfig);
  return config;
}

export function coreApi(cluster: Pick<ClusterState, 'kubeconfig'>): CoreV1Api {
  return kubeConfig(cluster).makeApiClient(CoreV1Api);
}

export interface FakeNode {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** Added to cpu 8, memory 32Gi, pods 110. */
  readonly allocatable?: Readonly<Record<string, string>>;
  readonly unschedulable?: boolean;
  readonly taints?: readonly V1Taint[];
  /** Besides the Hostname address, e.g. an InternalIP. */
  readonly addresses?: readonly V1NodeAddress[];
}

/** A Node as a kubelet would have registered it: Ready, with allocatable resources. */
export function nodeObject(node: FakeNode): V1Node {
  const allocatable = { cpu: '8', memory: '32Gi', pods: '110', ...node.allocatable };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name: node.name,
      labels: { 'kubernetes.io/hostname': node.name, 'kubernetes.io/os': 'linux', ...node.labels },
    },
    spec: {
      ...(node.unschedulable ? { unschedulable: true } : {}),
      ...(node.taints ? { taints: [...node.taints] } : {}),
    },
    status: {
      allocatable,
      capacity: allocatable,
      conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'fake node: no kubelet' }],
      addresses: [...(node.addresses ?? []), { type: 'Hostname', address: node.name }],
    },
  };
}

/** Creates the Nodes; the API server keeps the status given at creation. */
export async function createNodes(api: CoreV1Api, nodes: readonly FakeNode[]): Promise<void> {
  for (const node of nodes) await api.createNode({ body: nodeObject(node) });
}

/** Resolves to the node the scheduler bound the Pod to; rejects with the Pod's conditions when it stays unbound. */
export async function boundNode(api: CoreV1Api, namespace: string, name: string, timeoutMs = 30_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let pod: V1Pod | undefined;
  while (Date.now() < deadline) {
    pod = await api.readNamespacedPod({ namespace, name });
    if (pod.spec?.nodeName) return pod.spec.nodeName;
    await sleep(200);
  }
  throw new Error(
    `${namespace}/${name} not bound after ${timeoutMs} ms: ${JSON.stringify(pod?.status?.conditions ?? [])}`,
  );
}

/** The samples of one metric in Prometheus text format, with their labels. */
export function metricSamples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const samples: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1] ?? ''] = pair[2] ?? '';
    samples.push({ labels, value: Number(match[3]) });
  }
  return samples;
}

/** One kube-system `etcd-cp-<i>` Pod per member, bound to Node `cp-<i>`, serving its metrics URL: how the live topology places each member on a Node. */
export async function createEtcdPods(
  api: CoreV1Api,
  members: readonly { readonly metricsUrl: string }[],
): Promise<void> {
  for (const [index, member] of members.entries()) {
    await api.createNamespacedPod({
      namespace: 'kube-system',
      body: {
        metadata: { name: `etcd-cp-${index}`, labels: { component: 'etcd', tier: 'control-plane' } },
        spec: {
          nodeName: `cp-${index}`,
          containers: [
            {
              name: 'etcd',
              image: 'registry.k8s.io/etcd:3.5.16-0',
              command: ['etcd', `--listen-metrics-urls=${member.metricsUrl}`],
            },
          ],
        },
      },
    });
  }
}
