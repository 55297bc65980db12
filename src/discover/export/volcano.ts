// The derived levels as Volcano HyperNodes (topology.volcano.sh/v1alpha1): one per group, tier 1 the finest
// with its Nodes as members, each coarser tier with the HyperNodes of the tier below. Names are the groups'.

import type { Discovery } from '../types.ts';
import { tierLabel, tierOf } from './tiers.ts';

export function volcanoHyperNodes(discovery: Discovery) {
  const { levels } = discovery;
  const members: Map<string, Set<string>>[] = Array.from({ length: levels }, () => new Map());
  for (const [node, groups] of Object.entries(discovery.nodes))
    groups.forEach((group, level) => {
      const member = level === levels - 1 ? node : groups[level + 1]!;
      const set = members[level]!.get(group) ?? new Set<string>();
      members[level]!.set(group, set.add(member));
    });
  return members.flatMap((groups, level) => {
    const tier = tierOf(level, levels);
    return [...groups].map(([name, inside]) => ({
      apiVersion: 'topology.volcano.sh/v1alpha1',
      kind: 'HyperNode',
      metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'topogate' } },
      spec: {
        tier,
        tierName: tierLabel(tier),
        members: [...inside].sort().map((member) => ({
          type: tier === 1 ? 'Node' : 'HyperNode',
          selector: { exactMatch: { name: member } },
        })),
      },
    }));
  });
}
