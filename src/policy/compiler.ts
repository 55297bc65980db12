// Policies × one topology snapshot → decision tables. Everything a rule can
// know without the Pod is answered here once, so that a decision costs the
// policies it matches and the Pod's size, never the node count.

import type { TopologySnapshot } from '../topology/model.ts';
import { snapshotId } from '../topology/snapshotId.ts';
import { compileMatch, type Matcher } from './match.ts';
import { namespaceLabels } from './context.ts';
import { DecisionMemo, lazyLruMap } from './memo.ts';
import { compileBandwidth } from './rules/bandwidth.ts';
import { compileGpu } from './rules/gpu.ts';
import { compileLatency } from './rules/latency.ts';
import { compileNodeLabels } from './rules/nodeLabels.ts';
import { compileNuma } from './rules/numa.ts';
import { compileColocate } from './rules/colocate.ts';
import { compilePack } from './rules/pack.ts';
import type { CompiledRule } from './rules/rule.ts';
import { compileSpread } from './rules/spread.ts';
import type { SchedulingPolicy } from './types.ts';

export interface CompiledPolicy {
  readonly policy: SchedulingPolicy;
  readonly match: Matcher;
  /** In evaluation order: numa last, since it picks among what the others allow. */
  readonly rules: readonly CompiledRule[];
  /** Its decisions read the occupancy (pack): they are memoised per occupancy version, the others are not. */
  readonly readsOccupancy: boolean;
}

export interface CompiledPolicySet {
  readonly snapshot: TopologySnapshot;
  /** Priority descending, then name. */
  readonly policies: readonly CompiledPolicy[];
  /**
   * The policies whose namespace fields hold for the namespace, in the same
   * order: a decision then asks each only about the Pod's own fields.
   */
  candidates(namespace: string): readonly CompiledPolicy[];
  /** What decisions share (node sets, whole decisions of replicas), for this snapshot only. */
  readonly memo: DecisionMemo;
  /** How decisions, logs and explain name the snapshot. */
  readonly snapshotId: string;
}

export function compile(policies: readonly SchedulingPolicy[], snapshot: TopologySnapshot): CompiledPolicySet {
  const ordered = [...policies].sort(
    (a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const compiled = ordered.map((policy) => compilePolicy(policy, snapshot));
  // Namespace labels come from this snapshot, so the answer per namespace holds as long as the set does.
  const byNamespace = lazyLruMap<string, readonly CompiledPolicy[]>();
  const candidates = (namespace: string): readonly CompiledPolicy[] => {
    let found = byNamespace.get(namespace);
    if (found === undefined) {
      const facts = { namespace, namespaceLabels: namespaceLabels(snapshot, namespace) };
      byNamespace.set(namespace, (found = compiled.filter((candidate) => candidate.match.namespaceMatches(facts))));
    }
    return found;
  };
  const id = snapshotId(snapshot);
  return { snapshot, policies: compiled, candidates, memo: new DecisionMemo(snapshot, id), snapshotId: id };
}

/**
 * A policy's match block does not depend on the snapshot: compiled once per policy object (policies are immutable
 * values, replaced whole when they change) and shared by every snapshot's compiled set.
 */
const matchers = new WeakMap<SchedulingPolicy, Matcher>();

/**
 * Its rules are compiled when a decision first needs them: a Node event publishes a new snapshot, and recompiling
 * every rule of 500 policies for it took tens of milliseconds at 65,000 nodes, which the next decision waited for,
 * though a Pod meets only the few policies that match it.
 */
function compilePolicy(policy: SchedulingPolicy, snapshot: TopologySnapshot): CompiledPolicy {
  const { pack, colocate } = policy.rules;
  let match = matchers.get(policy);
  if (match === undefined) matchers.set(policy, (match = compileMatch(policy.match)));
  let rules: readonly CompiledRule[] | undefined;
  return {
    policy,
    match,
    get rules() {
      return (rules ??= compileRules(policy, snapshot));
    },
    readsOccupancy: pack !== undefined || colocate !== undefined,
  };
}

function compileRules(policy: SchedulingPolicy, snapshot: TopologySnapshot): readonly CompiledRule[] {
  const { nodeLabels, gpu, latency, bandwidth, pack, colocate, spread, numa } = policy.rules;
  const rules: CompiledRule[] = [];
  if (nodeLabels) rules.push(...compileNodeLabels(nodeLabels, snapshot));
  if (gpu) rules.push(compileGpu(gpu, snapshot));
  if (latency) rules.push(compileLatency(latency, snapshot));
  if (bandwidth) rules.push(compileBandwidth(bandwidth, snapshot));
  // pack after the zone rules: the domain it picks must lie among the nodes they allow.
  if (pack) rules.push(compilePack(pack, snapshot));
  if (colocate) rules.push(compileColocate(colocate, snapshot));
  (spread ?? []).forEach((rule, index) => rules.push(compileSpread(rule, index, snapshot)));
  if (numa) rules.push(compileNuma(numa));
  return rules;
}
