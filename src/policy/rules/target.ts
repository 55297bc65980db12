// What the rules toward a target (latency, bandwidth) share: the target
// resolved per snapshot (a zone, the zones of a Service's ready endpoints, the
// etcd leader's zone), the sources whose age they read, and the evaluation
// that degrades a Required rule to its preferred terms while the measured
// NetworkTopology is stale, and drops the rule while the etcd leader is.

import type { PreferredSchedulingTerm } from '../../kube/types.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import type { LatencyRule } from '../types.ts';
import { output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';
import { staleness, type SourceReading } from './sourceAge.ts';

export type Target = { readonly zones: readonly string[]; readonly label: string } | { readonly unknown: string };

type TargetRule = Pick<LatencyRule, 'to' | 'mode'>;

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

/** The etcd reading a rule toward the etcd leader judges: the source's last update. */
const ETCD: SourceReading = { source: 'etcd' };

/** The sources a rule toward a target reads through the clock: etcd (for its leader), the NetworkTopology if any. */
export function targetReadings(snapshot: TopologySnapshot): readonly SourceReading[] {
  const network = snapshot.network;
  return network ? [ETCD, { source: 'networkTopologies', observedAt: network.observedAt }] : [ETCD];
}

/** How stale the NetworkTopology the rule reads is; undefined when fresh, or when there is none. */
function networkStaleness(pod: RuleInput['pod']): string | undefined {
  const network = pod.snapshot.network;
  return network
    ? staleness(pod.snapshot, { source: 'networkTopologies', observedAt: network.observedAt }, pod.options)
    : undefined;
}

export interface TowardTarget {
  /** As written in the policy, and as its warnings begin. */
  readonly name: 'latency' | 'bandwidth';
  readonly rule: TargetRule;
  readonly target: Target;
  /** The Required output toward a known target. */
  readonly required: RuleResult | undefined;
  readonly preferred: readonly PreferredSchedulingTerm[];
  /** Why a Preferred rule without terms is dropped; undefined: it applies with none. */
  readonly noPreferred?: string | undefined;
}

/** The compiled rule: its outputs were made per snapshot, and only the sources' age is judged per decision. */
export function towardTarget({ name, rule, target, required, preferred, noPreferred }: TowardTarget): CompiledRule {
  // While the NetworkTopology is fresh, every Pod gets the same preferred output.
  const freshPreferred = output({ preferred });
  return {
    name,
    hard: rule.mode === 'Required',
    evaluate({ pod }: RuleInput): RuleResult {
      if ('unknown' in target) return { dropped: target.unknown };
      if ('etcdLeader' in rule.to) {
        // Nothing is known while the etcd leader the rule names is stale.
        const etcdStale = staleness(pod.snapshot, ETCD, pod.options);
        if (etcdStale) return { dropped: `etcd data is ${etcdStale}: the leader is not known` };
      }
      const networkStale = networkStaleness(pod);
      if (rule.mode === 'Required' && required) {
        if (!networkStale) return required;
        return output({
          preferred,
          warnings: [`${name} degraded from Required to Preferred: NetworkTopology is ${networkStale}`],
        });
      }
      if (noPreferred !== undefined && preferred.length === 0) return { dropped: noPreferred };
      if (!networkStale) return freshPreferred;
      return output({
        preferred,
        warnings: [`${name} preferences come from a NetworkTopology that is ${networkStale}`],
      });
    },
  };
}
