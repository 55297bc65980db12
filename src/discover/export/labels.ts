// The derived levels as node labels: one partial Node per node, for `kubectl apply --server-side`, which
// sets these labels and leaves every other field of the Node alone.

import type { Discovery } from '../types.ts';
import { tierLabel, tierOf } from './tiers.ts';

export interface NodeLabels {
  readonly apiVersion: 'v1';
  readonly kind: 'Node';
  readonly metadata: { readonly name: string; readonly labels: Readonly<Record<string, string>> };
}

export function labelObjects(discovery: Discovery): NodeLabels[] {
  return Object.entries(discovery.nodes).map(([name, groups]) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: Object.fromEntries(groups.map((group, level) => [tierLabel(tierOf(level, discovery.levels)), group])),
    },
  }));
}
