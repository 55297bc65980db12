// pack's domains in one snapshot: the nodes under each value of the rule's level, named by their path of level
// values, and the indexes the rule reads them by.

import { fnv1a } from '../../kube/fnv1a.ts';
import type { NodeSelectorRequirement } from '../../kube/types.ts';
import type { NodeInfo, TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { PackRule } from '../types.ts';

export interface Domain {
  /** Position in the rule's domains (sorted by key): where a Room keeps the domain's count. */
  readonly index: number;
  /** The level values from the outermost level down to the rule's level, joined by "/". */
  readonly key: string;
  /** FNV-1a of key, mixed with a workload's hash to rank the domain for it. */
  readonly hash: number;
  readonly value: string;
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly nodes: readonly NodeInfo[];
  readonly set: NodeSet;
}

/** The rule's domains in one snapshot, built on first use. */
export interface Layout {
  /** Sorted by key. */
  readonly domains: readonly Domain[];
  /** Each domain's hash by index: what ranking the domains for a workload reads, in one typed array. */
  readonly hashes: Uint32Array;
  /** Node name → its domain, to place a workload's bound Pods and a bind without a pass over the nodes. */
  readonly domainOf: ReadonlyMap<string, Domain>;
  /** The rule level's value → its domains (more than one when the value recurs under other paths). */
  readonly byValue: ReadonlyMap<string, readonly Domain[]>;
}

/**
 * Domains at the rule's level, each named by its path of level values. A domain's requirement names the
 * outer levels too only when its value recurs under another path (rack "r1" in two blocks).
 */
function domainsOf(rule: PackRule, snapshot: TopologySnapshot): Domain[] {
  const path = rule.levels.slice(0, rule.levels.indexOf(rule.level) + 1);
  const byKey = new Map<string, { values: string[]; nodes: NodeInfo[] }>();
  for (const slot of snapshot.nodes.withLabel(rule.level).slots()) {
    const node = snapshot.nodes.bySlot(slot);
    if (!node) continue;
    const values = path.map((key) => node.labels[key]);
    if (values.some((value) => value === undefined)) continue;
    const key = values.join('/');
    let domain = byKey.get(key);
    if (!domain) byKey.set(key, (domain = { values: values as string[], nodes: [] }));
    domain.nodes.push(node);
  }
  const paths = new Map<string, number>();
  for (const { values } of byKey.values()) paths.set(values.at(-1)!, (paths.get(values.at(-1)!) ?? 0) + 1);
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, { values, nodes }], index) => {
      const value = values.at(-1)!;
      const keys = paths.get(value)! > 1 ? path : [rule.level];
      const requirements = keys.map((label) => ({
        key: label,
        operator: 'In' as const,
        values: [values[path.indexOf(label)]!],
      }));
      const set = NodeSet.of(nodes.map((node) => node.slot));
      return { index, key, hash: fnv1a(key), value, requirements, nodes, set };
    });
}

export function layoutOf(rule: PackRule, snapshot: TopologySnapshot): Layout {
  const domains = domainsOf(rule, snapshot);
  return {
    domains,
    hashes: Uint32Array.from(domains, (domain) => domain.hash),
    domainOf: new Map(domains.flatMap((domain) => domain.nodes.map((node) => [node.name, domain] as const))),
    byValue: Map.groupBy(domains, (domain) => domain.value),
  };
}
