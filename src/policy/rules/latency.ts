// latency: the zones within maxRttMs of a target (a zone, the zones of a
// Service's ready endpoints, or the etcd leader's zone), from the measured
// NetworkTopology (its median or its p99), optionally without the nodes it
// names degraded. Targets resolve per snapshot; freshness is judged per
// decision, since only the decision knows the time.

import type { NodeSelectorRequirement, PreferredSchedulingTerm } from '../../kube/types.ts';
import type { SourceName, TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { LatencyRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
const HOSTNAME_LABEL = 'kubernetes.io/hostname';
const MAX_WEIGHT = 100;

export type Target = { readonly zones: readonly string[]; readonly label: string } | { readonly unknown: string };

export function compileLatency(rule: LatencyRule, snapshot: TopologySnapshot): CompiledRule {
  const domainLabel = snapshot.network?.domainLabel ?? ZONE_LABEL;
  const target = resolveTarget(rule, snapshot, domainLabel);
  const avoid = rule.avoidDegradedNodes ? degradedOutput(snapshot) : undefined;
  const required = 'zones' in target ? requiredOutput(rule, snapshot, domainLabel, target, avoid) : undefined;
  const preferred = 'zones' in target ? preferredTerms(rule, snapshot, domainLabel, target.zones) : [];
  if (avoid && rule.mode === 'Preferred')
    preferred.unshift({ weight: MAX_WEIGHT, preference: { matchExpressions: [avoid.requirement] } });

  return {
    name: 'latency',
    hard: rule.mode === 'Required',
    evaluate({ pod }: RuleInput): RuleResult {
      if ('unknown' in target) return { dropped: target.unknown };
      const state = targetState(rule, pod);
      if ('dropped' in state) return state;
      const { networkStale } = state;
      if (rule.mode === 'Required' && required) {
        if (!networkStale) return required;
        return output({
          preferred,
          warnings: [`latency degraded from Required to Preferred: NetworkTopology is ${networkStale}`],
        });
      }
      if (preferred.length === 0) return { dropped: `no zone within ${rule.maxRttMs}ms of ${target.label} is known` };
      return output({
        preferred,
        warnings: networkStale ? [`latency preferences come from a NetworkTopology that is ${networkStale}`] : [],
      });
    },
  };
}

/**
 * What a rule toward a known target (latency, bandwidth) knows as it decides: nothing, when the etcd leader it
 * names is stale; else how stale the NetworkTopology is (undefined: fresh).
 */
export function targetState(
  rule: Pick<LatencyRule, 'to'>,
  pod: RuleInput['pod'],
): { readonly dropped: string } | { readonly networkStale: string | undefined } {
  if ('etcdLeader' in rule.to) {
    const etcdStale = staleness(pod.snapshot, 'etcd', undefined, pod.options);
    if (etcdStale) return { dropped: `etcd data is ${etcdStale}: the leader is not known` };
  }
  const network = pod.snapshot.network;
  return {
    networkStale: network ? staleness(pod.snapshot, 'networkTopologies', network.observedAt, pod.options) : undefined,
  };
}

export function resolveTarget(rule: Pick<LatencyRule, 'to'>, snapshot: TopologySnapshot, domainLabel: string): Target {
  const to = rule.to;
  if ('zone' in to) return { zones: [to.zone], label: `zone ${to.zone}` };
  if ('service' in to) {
    const zones = snapshot.services.get(to.service);
    if (!zones || zones.size === 0)
      return { unknown: `service ${to.service} has no ready endpoints with a zone in the model` };
    return { zones: [...zones].sort(), label: `service ${to.service}` };
  }
  const leader = snapshot.etcd.leader;
  if (!leader) return { unknown: 'the model knows no etcd leader' };
  const zone = leader.nodeName ? snapshot.nodes.get(leader.nodeName)?.labels[domainLabel] : undefined;
  if (zone === undefined)
    return { unknown: `the etcd leader ${leader.name} runs on no node with a ${domainLabel} label in the model` };
  return { zones: [zone], label: `the etcd leader (${leader.name}, ${zone})` };
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
  target: { zones: readonly string[]; label: string },
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

/**
 * Until when (options.now at most this) no source a latency rule reads is
 * failing or stale: till then no decision depends on the clock.
 * -Infinity when one is failing already.
 */
export function freshUntil(snapshot: TopologySnapshot, maxSourceAgeMs: number): number {
  let until = Number.POSITIVE_INFINITY;
  const read: [SourceName, number | undefined][] = [['etcd', undefined]];
  if (snapshot.network) read.push(['networkTopologies', snapshot.network.observedAt]);
  for (const [source, observedAt] of read) {
    const { error, at } = reading(snapshot, source, observedAt);
    if (error !== undefined) return Number.NEGATIVE_INFINITY;
    if (at !== undefined) until = Math.min(until, at + maxSourceAgeMs);
  }
  return until;
}

export function staleness(
  snapshot: TopologySnapshot,
  source: SourceName,
  observedAt: number | undefined,
  options: { now: number; maxSourceAgeMs: number },
): string | undefined {
  const { error, at } = reading(snapshot, source, observedAt);
  if (error !== undefined) return `failing (${error})`;
  if (at === undefined) return undefined;
  const age = options.now - at;
  return age > options.maxSourceAgeMs
    ? `stale (${Math.round(age / 1000)}s old, max ${Math.round(options.maxSourceAgeMs / 1000)}s)`
    : undefined;
}

/** Why a source is failing, or when its data was observed: the object's own time when it has one, else the source's last update. */
function reading(
  snapshot: TopologySnapshot,
  source: SourceName,
  observedAt: number | undefined,
): { readonly error?: string; readonly at?: number } {
  const status = snapshot.sources.get(source);
  if (status?.error) return { error: status.error };
  const at = observedAt ?? status?.updatedAt;
  return at === undefined ? {} : { at };
}
