// Which nodes a Pod can be scheduled on at all, before any placement:
// what the scheduler's NodeUnschedulable, TaintToleration and
// PodTopologySpread filters leave.

import type { PlacementFacts } from '../kube/podFacts.ts';
import { podPlacementNodes } from '../topology/nodeSelector.ts';
import { toleratedNodes } from '../topology/tolerations.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { NodeSet } from '../topology/nodeset.ts';

/** Nodes the Pod may land on at all: not cordoned, Ready not False, every NoSchedule/NoExecute taint tolerated, and carrying the key of each of its own DoNotSchedule spread constraints. */
export function schedulableFor(placement: PlacementFacts, snapshot: TopologySnapshot): NodeSet {
  let nodes = snapshot.nodes.schedulable().and(toleratedNodes(snapshot.nodes, placement.tolerations));
  for (const key of placement.spreadKeys) nodes = nodes.and(snapshot.nodes.withLabel(key));
  return nodes;
}

/** The schedulable nodes the Pod's own nodeSelector and required node affinity allow. */
export function placementNodes(
  placement: PlacementFacts,
  snapshot: TopologySnapshot,
  schedulable = schedulableFor(placement, snapshot),
): NodeSet {
  return schedulable.and(podPlacementNodes(snapshot.nodes, placement));
}
