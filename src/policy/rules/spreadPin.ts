// A spread constraint for a Pod that already exists. Kubernetes lets no
// topologySpreadConstraints be added to a Pod after its creation (a Pod gated
// while topogate was down was created without them), but a gated Pod's node
// affinity may still be narrowed: so the spread is held by pinning the Pod to
// one domain of the topology key, the one with the fewest of its workload's
// Pods now (bound there, or held there and not bound yet), ties by name. Each
// Pod placed so adds one to the least loaded domain, so the workload's domains
// never differ by more than one, which every maxSkew allows.

import type { NodeSelectorRequirement, TopologySpreadConstraint } from '../../kube/types.ts';
import { workloadKey } from '../../kube/workload-identity.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { PodContext } from '../context.ts';
import type { RuleOutput } from './rule.ts';

/** The weight of the preference that stands for a ScheduleAnyway constraint. */
const PREFERRED_WEIGHT = 100;

export function pinnedSpread(spread: TopologySpreadConstraint, pod: PodContext, allowed: NodeSet): RuleOutput {
  const key = spread.topologyKey;
  const hard = spread.whenUnsatisfiable === 'DoNotSchedule';
  const counts = domainCounts(key, pod, allowed);
  let chosen: string | undefined;
  for (const [domain, count] of counts)
    if (chosen === undefined || count < counts.get(chosen)! || (count === counts.get(chosen)! && domain < chosen))
      chosen = domain;
  if (chosen === undefined) {
    const modelHolds = `no allowed node carries the label ${key}`;
    return hard
      ? made({ nodes: NodeSet.EMPTY, modelHolds })
      : made({ warnings: [`spread on ${key}: ${modelHolds}; nothing pinned`] });
  }
  const requirement: NodeSelectorRequirement = { key, operator: 'In', values: [chosen] };
  const counted = [...counts].map(([domain, count]) => `${domain}: ${count}`).join(', ');
  const notes = [
    `the Pod existed before topogate decided (gated), so its spread on ${key} (maxSkew ${spread.maxSkew}) is held by node affinity to the domain with the fewest of the workload's Pods: ${chosen} (${counted})`,
  ];
  if (!hard)
    return made({ preferred: [{ weight: PREFERRED_WEIGHT, preference: { matchExpressions: [requirement] } }], notes });
  const nodes = pod.snapshot.nodes.withLabelValue(key, chosen);
  return made({ requirements: [requirement], nodes, modelHolds: `${nodes.size} nodes have ${key}=${chosen}`, notes });
}

const made = (fields: Partial<RuleOutput>): RuleOutput => ({
  requirements: [],
  preferred: [],
  warnings: [],
  ...fields,
});

/** Domain (a value of the key on an allowed node) → the workload's Pods there, bound or held there unbound. */
function domainCounts(key: string, pod: PodContext, allowed: NodeSet): Map<string, number> {
  const { snapshot, occupancy } = pod;
  const counts = new Map<string, number>();
  for (const [domain, nodes] of snapshot.nodes.labelValues(key))
    if (!nodes.and(allowed).isEmpty()) counts.set(domain, 0);
  const workload = workloadKey(pod.facts.workload);
  for (const [node, count] of occupancy.workloadNodes(workload) ?? []) {
    const domain = snapshot.nodes.get(node)?.labels[key];
    if (domain !== undefined && counts.has(domain)) counts.set(domain, counts.get(domain)! + count);
  }
  for (const [domain, held] of occupancy.pendingUnder(key) ?? [])
    if (counts.has(domain)) counts.set(domain, counts.get(domain)! + (held.workloads.get(workload) ?? 0));
  return counts;
}
