// Where a workload's Pods are: the bound Pods per node and zone (the model's
// occupancy), with the policies that placed them and their decisions, for a
// workload or a whole namespace chosen on the page. The workloads offered are
// those the recent decisions name. Pure.

import type { Occupancy, TopologySnapshot } from '../topology/model.ts';
import { ZONE_LABEL } from '../kube/labels.ts';
import type { RecentDecision } from './recent.ts';

export interface WorkloadRow {
  readonly workload: string;
  readonly namespace: string;
  /** Decisions in the ring for it. */
  readonly decisions: number;
  readonly policies: readonly string[];
}

export interface Placements {
  /** namespace/Kind/name or a namespace. */
  readonly chosen: string;
  readonly workloads: readonly string[];
  /** Bound Pods, per node (most first) and per zone. */
  readonly byNode: readonly { readonly node: string; readonly zone: string; readonly pods: number }[];
  readonly byZone: readonly { readonly zone: string; readonly pods: number }[];
  readonly bound: number;
  /** The policies the decisions applied, each once. */
  readonly policies: readonly string[];
  /** The chosen workloads' recent decisions, newest first. */
  readonly decisions: readonly RecentDecision[];
}

/** The workloads the recent decisions name, most decided first. */
export function workloadRows(decisions: readonly RecentDecision[]): WorkloadRow[] {
  const rows = new Map<string, { namespace: string; decisions: number; policies: Set<string> }>();
  for (const decision of decisions) {
    const row = rows.get(decision.workload) ?? { namespace: decision.namespace, decisions: 0, policies: new Set() };
    row.decisions++;
    for (const policy of decision.policies) row.policies.add(policy);
    rows.set(decision.workload, row);
  }
  return [...rows]
    .map(([workload, row]) => ({
      workload,
      namespace: row.namespace,
      decisions: row.decisions,
      policies: [...row.policies],
    }))
    .sort((a, b) => b.decisions - a.decisions || a.workload.localeCompare(b.workload));
}

/** `chosen` is a workload key (namespace/Kind/name) or a namespace (every workload of it the decisions name). */
export function placements(
  snapshot: TopologySnapshot,
  occupancy: Occupancy,
  decisions: readonly RecentDecision[],
  chosen: string,
): Placements {
  const isWorkload = chosen.includes('/');
  const mine = decisions.filter((d) => (isWorkload ? d.workload === chosen : d.namespace === chosen));
  const workloads = isWorkload ? [chosen] : [...new Set(mine.map((d) => d.workload))].sort();
  const perNode = new Map<string, number>();
  for (const workload of workloads)
    for (const [node, pods] of occupancy.workloadNodes(workload) ?? [])
      perNode.set(node, (perNode.get(node) ?? 0) + pods);
  const zoneOf = (node: string) => snapshot.nodes.get(node)?.labels[ZONE_LABEL] ?? '(none)';
  const perZone = new Map<string, number>();
  for (const [node, pods] of perNode) perZone.set(zoneOf(node), (perZone.get(zoneOf(node)) ?? 0) + pods);
  return {
    chosen,
    workloads,
    byNode: [...perNode]
      .map(([node, pods]) => ({ node, zone: zoneOf(node), pods }))
      .sort((a, b) => b.pods - a.pods || a.node.localeCompare(b.node)),
    byZone: [...perZone].map(([zone, pods]) => ({ zone, pods })).sort((a, b) => a.zone.localeCompare(b.zone)),
    bound: [...perNode.values()].reduce((sum, pods) => sum + pods, 0),
    policies: [...new Set(mine.flatMap((d) => d.policies))],
    decisions: mine,
  };
}
