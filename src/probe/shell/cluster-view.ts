// What a probe agent sees of the cluster: the probe Pods (its peers) and the Nodes (their zones), watched.

import { CoreV1Api, type KubeConfig, type V1Node, type V1Pod } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { Informer } from '../../kube-client/informer.ts';
import { DEFAULT_DOMAIN_LABEL as ZONE_LABEL } from '../../api/v1alpha1/networktopology.ts';
import { type Peer, type ProbePod, peersOf, readProbePod } from '../peers.ts';

export interface ClusterView {
  readonly pods: Informer<V1Pod>;
  readonly nodes: Informer<V1Node>;
  /** Node name → its zone, for the nodes that have one. */
  zones(): Map<string, string>;
  /** The agent's peers, and its own node's zone. */
  view(): { peers: readonly Peer[]; zone: string | undefined };
}

/** `node`: the agent's own; `selector`: the probe Pods' labels in `namespace`. Not started. */
export function clusterView(
  config: KubeConfig,
  { node, namespace, selector }: { node: string; namespace: string; selector: string },
  log: Logger,
): ClusterView {
  const core = config.makeApiClient(CoreV1Api);
  const pods = new Informer<V1Pod>({
    config,
    path: `/api/v1/namespaces/${namespace}/pods`,
    // Whole: a few small Pods per node, and the probe reads their ports and podIP.
    list: () => core.listNamespacedPod({ namespace, labelSelector: selector }),
    labelSelector: selector,
    title: 'probe Pods',
    log: log.child({ watch: 'pods' }),
  });
  const nodes = new Informer<V1Node>({
    config,
    path: '/api/v1/nodes',
    list: () => core.listNode(),
    slimAs: 'nodes',
    title: 'Nodes',
    log: log.child({ watch: 'nodes' }),
  });
  const zones = (): Map<string, string> => {
    const out = new Map<string, string>();
    for (const item of nodes.list()) {
      const zone = item.metadata?.labels?.[ZONE_LABEL];
      if (item.metadata?.name && zone) out.set(item.metadata.name, zone);
    }
    return out;
  };
  const view = () => {
    const zoneOf = zones();
    const probePods: ProbePod[] = pods.list().flatMap((pod) => readProbePod(pod) ?? []);
    return { peers: peersOf(probePods, (name) => zoneOf.get(name), node), zone: zoneOf.get(node) };
  };
  return { pods, nodes, zones, view };
}
