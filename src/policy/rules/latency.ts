// latency: the zones within maxRttMs of a target (a zone, the zones of a
// Service's ready endpoints, or the etcd leader's zone), from the measured
// NetworkTopology (its median or its p99), optionally without the nodes it
// names degraded. Targets resolve per snapshot; freshness is judged per
// decision, since only the decision knows the time.

import type { NodeSelectorRequirement, PreferredSchedulingTerm } from '../../kube/types.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { LatencyRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule, type RuleResult } from './rule.ts';
import { HOSTNAME_LABEL, ZONE_LABEL } from '../../kube/labels.ts';
import { resolveTarget, towardTarget } from './target.ts';

const MAX_WEIGHT = 100;

export function compileLatency(rule: LatencyRule, snapshot: TopologySnapshot): CompiledRule {
  const domainLabel = snapshot.network?.domainLabel ?? ZONE_LABEL;
  const target = resolveTarget(rule, snapshot, domainLabel);
  const avoid = rule.avoidDegradedNodes ? degradedOutput(snapshot) : undefined;
  const required = 'zones' in target ? requiredOutput(rule, snapshot, domainLabel, target, avoid) : undefined;
  const preferred = 'zones' in target ? preferredTerms(rule, snapshot, domainLabel, target.zones) : [];
  if (avoid && rule.mode === 'Preferred')
    preferred.unshift({ weight: MAX_WEIGHT, preference: { matchExpressions: [avoid.requirement] } });

  return towardTarget({
    name: 'latency',
    rule,
    target,
    required,
    preferred,
    noPreferred: 'zones' in target ? `no zone within ${rule.maxRttMs}ms of ${target.label} is known` : undefined,
  });
}

/** Zones within maxRttMs of any target: a Service is near when one of its endpoints is. */
function zonesWithin(rule: LatencyRule, snapshot: TopologySnapshot, targets: readonly string[]): string[] {
  const zones = new Set<string>(targets);
  if (snapshot.network)
    for (const target of targets)
      for (const zone of snapshot.network.within(target, rule.maxRttMs, rule.percentile)) zones.add(zone);
  return [...zones].sort();
}

function requiredOutput(
  rule: LatencyRule,
  snapshot: TopologySnapshot,
  domainLabel: string,
  target: { readonly zones: readonly string[]; readonly label: string },
  avoid: Degraded | undefined,
): RuleResult {
  const zones = zonesWithin(rule, snapshot, target.zones);
  const requirement = { key: domainLabel, operator: 'In' as const, values: zones };
  let nodes = NodeSet.EMPTY;
  for (const zone of zones) nodes = nodes.or(snapshot.nodes.withLabelValue(domainLabel, zone));
  const percentile = rule.percentile === 'p99' ? ' at p99' : '';
  let modelHolds = `${nodes.size} of ${snapshot.nodes.count} nodes match ${describeRequirement(requirement)} (within ${rule.maxRttMs}ms${percentile} of ${target.label})`;
  if (!avoid) return output({ requirements: [requirement], nodes, modelHolds });
  nodes = nodes.andNot(avoid.nodes);
  modelHolds += `, ${nodes.size} of them not degraded`;
  return output({ requirements: [requirement, avoid.requirement], nodes, modelHolds });
}

export interface Degraded {
  readonly requirement: NodeSelectorRequirement;
  readonly nodes: NodeSet;
}

/** The nodes NetworkTopology status.degradedNodes names, as a hostname NotIn requirement; undefined when there are none. */
export function degradedOutput(snapshot: TopologySnapshot): Degraded | undefined {
  const names = [...(snapshot.network?.degradedNodes.keys() ?? [])].sort();
  if (names.length === 0) return undefined;
  const slots: number[] = [];
  const hostnames = names.map((name) => {
    const node = snapshot.nodes.get(name);
    if (node) slots.push(node.slot);
    return node?.labels[HOSTNAME_LABEL] ?? name;
  });
  return {
    requirement: { key: HOSTNAME_LABEL, operator: 'NotIn', values: [...new Set(hostnames)] },
    nodes: NodeSet.of(slots),
  };
}

/** One term per weight: the target's zone weighs 100, a zone at maxRttMs weighs 1. */
function preferredTerms(
  rule: LatencyRule,
  snapshot: TopologySnapshot,
  domainLabel: string,
  targets: readonly string[],
): PreferredSchedulingTerm[] {
  const best = new Map<string, number>();
  for (const target of targets) {
    best.set(target, 0);
    for (const { domain, rttMs } of snapshot.network?.nearest(target, rule.percentile) ?? []) {
      if (rttMs <= rule.maxRttMs && rttMs < (best.get(domain) ?? Infinity)) best.set(domain, rttMs);
    }
  }
  const byWeight = new Map<number, string[]>();
  for (const [zone, rttMs] of best) {
    const weight =
      rule.maxRttMs === 0
        ? MAX_WEIGHT
        : Math.max(1, Math.round(MAX_WEIGHT - ((MAX_WEIGHT - 1) * rttMs) / rule.maxRttMs));
    byWeight.set(weight, [...(byWeight.get(weight) ?? []), zone]);
  }
  return [...byWeight.entries()]
    .sort(([a], [b]) => b - a)
    .map(([weight, zones]) => ({
      weight,
      preference: { matchExpressions: [{ key: domainLabel, operator: 'In' as const, values: zones.sort() }] },
    }));
}
