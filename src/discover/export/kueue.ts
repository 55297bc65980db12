// The derived levels as a Kueue Topology (kueue.x-k8s.io/v1beta2, the version Kueue v0.17 stores): its
// levels are the tier labels, coarsest first, then kubernetes.io/hostname, so that Kueue's
// topology-aware scheduling packs and spreads by measured structure once the labels are on the nodes.

import { HOSTNAME_LABEL } from '../../kube/labels.ts';
import type { Discovery } from '../types.ts';
import { tierLabel, tierOf } from './tiers.ts';

export const KUEUE_TOPOLOGY_NAME = 'topogate-measured';
/** Kueue's limit on a Topology's levels. */
const KUEUE_MAX_LEVELS = 8;

export function kueueTopology(discovery: Discovery, name = KUEUE_TOPOLOGY_NAME) {
  const levels = Array.from({ length: discovery.levels }, (_, level) => ({
    nodeLabel: tierLabel(tierOf(level, discovery.levels)),
  }));
  return {
    apiVersion: 'kueue.x-k8s.io/v1beta2',
    kind: 'Topology',
    metadata: { name },
    spec: { levels: [...levels, { nodeLabel: HOSTNAME_LABEL }].slice(-KUEUE_MAX_LEVELS) },
  };
}
