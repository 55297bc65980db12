// bandwidth: keep a data-heavy Pod in the zones whose link to its target (a
// zone, a Service's zones, the etcd leader's zone) carries at least minGbps,
// from the NetworkTopology's bandwidth (measured, else declared). The target's
// own zones always qualify; a pair whose bandwidth is not known never does.

import type { PreferredSchedulingTerm } from '../../kube/types.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { BandwidthRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule } from './rule.ts';
import { ZONE_LABEL } from '../../kube/labels.ts';
import { resolveTarget, towardTarget } from './target.ts';

const MAX_WEIGHT = 100;

export function compileBandwidth(rule: BandwidthRule, snapshot: TopologySnapshot): CompiledRule {
  const domainLabel = snapshot.network?.domainLabel ?? ZONE_LABEL;
  const target = resolveTarget(rule, snapshot, domainLabel);
  const qualifying = 'zones' in target ? qualifyingZones(rule, snapshot, domainLabel, target.zones) : undefined;
  const requirement = qualifying && {
    key: domainLabel,
    operator: 'In' as const,
    values: [...qualifying.keys()].sort(),
  };
  let nodes = NodeSet.EMPTY;
  for (const zone of qualifying?.keys() ?? []) nodes = nodes.or(snapshot.nodes.withLabelValue(domainLabel, zone));
  const label = 'label' in target ? target.label : '';
  const required =
    requirement &&
    output({
      requirements: [requirement],
      nodes,
      modelHolds: `${nodes.size} of ${snapshot.nodes.count} nodes match ${describeRequirement(requirement)} (at least ${rule.minGbps} Gbps to ${label})`,
    });
  const preferred = qualifying ? preferredTerms(domainLabel, qualifying) : [];
  return towardTarget({ name: 'bandwidth', rule, target, required, preferred });
}

/** Zone → its best bandwidth to any target zone (Infinity for a target zone itself). */
function qualifyingZones(
  rule: BandwidthRule,
  snapshot: TopologySnapshot,
  domainLabel: string,
  targets: readonly string[],
): Map<string, number> {
  const zones = new Map<string, number>(targets.map((zone) => [zone, Number.POSITIVE_INFINITY]));
  const network = snapshot.network;
  if (!network) return zones;
  for (const zone of snapshot.nodes.labelValues(domainLabel).keys()) {
    if (zones.has(zone)) continue;
    let best: number | undefined;
    for (const target of targets) {
      const gbps = network.bandwidthGbps(zone, target);
      if (gbps !== undefined && (best === undefined || gbps > best)) best = gbps;
    }
    if (best !== undefined && best >= rule.minGbps) zones.set(zone, best);
  }
  return zones;
}

/** The target's zones weigh 100; the others by their bandwidth against the best of them (1-99). */
function preferredTerms(domainLabel: string, zones: ReadonlyMap<string, number>): PreferredSchedulingTerm[] {
  const finite = [...zones.values()].filter(Number.isFinite);
  const top = Math.max(0, ...finite);
  const byWeight = new Map<number, string[]>();
  for (const [zone, gbps] of zones) {
    const weight = Number.isFinite(gbps) ? Math.max(1, Math.min(99, Math.round((99 * gbps) / top))) : MAX_WEIGHT;
    byWeight.set(weight, [...(byWeight.get(weight) ?? []), zone]);
  }
  return [...byWeight.entries()]
    .sort(([a], [b]) => b - a)
    .map(([weight, list]) => ({
      weight,
      preference: { matchExpressions: [{ key: domainLabel, operator: 'In' as const, values: list.sort() }] },
    }));
}
