// Which nodes a Pod can be scheduled on at all, before any placement:
// what the scheduler's NodeUnschedulable, TaintToleration and
// PodTopologySpread filters leave.

import { recordsOf } from '../kube/json.ts';
import { podPlacementNodes } from '../topology/nodeSelector.ts';
import { toleratedNodes } from '../topology/tolerations.ts';
import type { Pod, Toleration } from '../kube/types.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { NodeSet } from '../topology/nodeset.ts';

/** Nodes the Pod may land on at all: not cordoned, Ready not False, every NoSchedule/NoExecute taint tolerated, and carrying the key of each of its own DoNotSchedule spread constraints. */
export function schedulableFor(pod: Pod, snapshot: TopologySnapshot): NodeSet {
  let nodes = snapshot.nodes
    .schedulable()
    .and(toleratedNodes(snapshot.nodes, recordsOf(pod.spec?.tolerations) as Toleration[]));
  for (const spread of recordsOf(pod.spec?.topologySpreadConstraints)) {
    if (spread.whenUnsatisfiable === 'DoNotSchedule' && typeof spread.topologyKey === 'string')
      nodes = nodes.and(snapshot.nodes.withLabel(spread.topologyKey));
  }
  return nodes;
}

/** The schedulable nodes the Pod's own nodeSelector and required node affinity allow. */
export function placementNodes(
  pod: Pod,
  snapshot: TopologySnapshot,
  schedulable = schedulableFor(pod, snapshot),
): NodeSet {
  return schedulable.and(podPlacementNodes(snapshot.nodes, pod));
}
