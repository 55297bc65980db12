// Taints and tolerations as the scheduler's TaintToleration filter sees them:
// only NoSchedule and NoExecute taints keep a Pod off a node.

import type { NodeIndex } from './model.ts';
import type { NodeSet } from './nodeset.ts';
import type { TolerationFacts } from '../kube/podFacts.ts';
import type { Taint } from '../kube/types.ts';

/** v1.Toleration.ToleratesTaint. */
export function toleratesTaint(toleration: TolerationFacts, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

export function blocksScheduling(taint: Taint): boolean {
  return taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';
}

export function toleratesAll(tolerations: readonly TolerationFacts[], taints: readonly Taint[]): boolean {
  return taints.every(
    (taint) => !blocksScheduling(taint) || tolerations.some((toleration) => toleratesTaint(toleration, taint)),
  );
}

/** Nodes whose NoSchedule/NoExecute taints the tolerations all tolerate: one check per taint group. */
export function toleratedNodes(nodes: NodeIndex, tolerations: readonly TolerationFacts[]): NodeSet {
  let tolerated = nodes.all();
  for (const group of nodes.taintGroups()) {
    if (!toleratesAll(tolerations, group.taints)) tolerated = tolerated.andNot(group.nodes);
  }
  return tolerated;
}
