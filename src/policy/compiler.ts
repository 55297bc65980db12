// Policies × one topology snapshot → decision tables. Everything a rule can
// know without the Pod is answered here once, so that a decision costs the
// policies it matches and the Pod's size, never the node count.

import type { TopologySnapshot } from '../topology/model.ts';
import { snapshotId } from '../topology/snapshotId.ts';
import { compileMatch, type Matcher } from './match.ts';
import { namespaceLabels } from './context.ts';
import { DecisionMemo, lazyLruMap } from './memo.ts';
import type { CompiledRule } from './rules/rule.ts';
import { compileRule, freshUntil, ruleKeys, RULES } from './rules/table.ts';
import type { SchedulingPolicy } from './types.ts';

export interface CompiledPolicy {
  readonly policy: SchedulingPolicy;
  readonly match: Matcher;
  /** In evaluation order (rules/table.ts): numa last, since it picks among what the others allow. */
  readonly rules: readonly CompiledRule[];
  /** Of those, the ones written without the model (spread): a Pod deferred for the model gets them at admission. */
  readonly modelFree: readonly CompiledRule[];
  /** One of its rules needs the model: a Pod it matches waits for the model when there is none. */
  readonly needsModel: boolean;
  /** Its decisions read the occupancy (pack): they are memoised per occupancy version, the others are not. */
  readonly readsOccupancy: boolean;
  /** false: all it says is to other objects than Pods (a policy of dra rules only). */
  readonly writesPods: boolean;
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
  return {
    snapshot,
    policies: compiled,
    candidates,
    memo: new DecisionMemo(snapshot, id, (age) => freshUntil(snapshot, age)),
    snapshotId: id,
  };
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
  const keys = ruleKeys(policy.rules);
  let match = matchers.get(policy);
  if (match === undefined) matchers.set(policy, (match = compileMatch(policy.match)));
  let compiled: { rules: readonly CompiledRule[]; modelFree: readonly CompiledRule[] } | undefined;
  const rulesOf = () => (compiled ??= compileRules(policy, keys, snapshot));
  return {
    policy,
    match,
    get rules() {
      return rulesOf().rules;
    },
    get modelFree() {
      return rulesOf().modelFree;
    },
    needsModel: keys.some((key) => RULES[key].needsModel),
    readsOccupancy: keys.some((key) => RULES[key].readsOccupancy),
    get writesPods() {
      return rulesOf().rules.length > 0 || keys.every((key) => RULES[key].writesPods);
    },
  };
}

function compileRules(
  policy: SchedulingPolicy,
  keys: ReturnType<typeof ruleKeys>,
  snapshot: TopologySnapshot,
): { rules: readonly CompiledRule[]; modelFree: readonly CompiledRule[] } {
  const rules: CompiledRule[] = [];
  const modelFree: CompiledRule[] = [];
  for (const key of keys) {
    const compiled = compileRule(key, policy.rules, snapshot);
    rules.push(...compiled);
    if (!RULES[key].needsModel) modelFree.push(...compiled);
  }
  return { rules, modelFree };
}
