// Policies × one topology snapshot → decision tables. Everything a rule can
// know without the Pod is answered here once, so that a decision costs the
// policies it matches and the Pod's size, never the node count.

import type { TopologySnapshot } from '../topology/model.ts';
import { snapshotId } from '../topology/snapshotId.ts';
import { compileMatch, type Matcher } from './match.ts';
import { namespaceLabels } from './context.ts';
import { DecisionMemo, lazyLruMap } from './memo.ts';
import type { CompiledRule } from './rules/rule.ts';
import { compileRule, freshUntil, ruleKeys, rulePodLabels, RULES } from './rules/table.ts';
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
  /** The Pod label keys some policy reads: decisions see those alone (projection.ts). */
  readonly podLabels: ReadonlySet<string>;
}

/** `previous`: the set compiled against the snapshot before, whose memo hands on what outlives a snapshot. */
export function compile(
  policies: readonly SchedulingPolicy[],
  snapshot: TopologySnapshot,
  previous?: CompiledPolicySet,
): CompiledPolicySet {
  const ordered = orderOf(policies);
  const compiled = ordered.map((policy) => new LazyPolicy(policy, snapshot));
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
    memo: new DecisionMemo(snapshot, id, (age) => freshUntil(snapshot, age), previous?.memo),
    snapshotId: id,
    podLabels: podLabelsOf(ordered),
  };
}

/** Each policy set's Pod label keys, gathered once: a set is recompiled against every new snapshot. */
const podLabelSets = new WeakMap<readonly SchedulingPolicy[], ReadonlySet<string>>();

function podLabelsOf(policies: readonly SchedulingPolicy[]): ReadonlySet<string> {
  let keys = podLabelSets.get(policies);
  if (keys === undefined) {
    keys = new Set(policies.flatMap((policy) => shapeOf(policy).podLabels));
    podLabelSets.set(policies, keys);
  }
  return keys;
}

/** Each policy set's evaluation order, sorted once: a set is recompiled against every new snapshot. */
const orders = new WeakMap<readonly SchedulingPolicy[], readonly SchedulingPolicy[]>();

function orderOf(policies: readonly SchedulingPolicy[]): readonly SchedulingPolicy[] {
  let ordered = orders.get(policies);
  if (ordered === undefined) {
    ordered = [...policies].sort((a, b) => b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    orders.set(policies, ordered);
  }
  return ordered;
}

/** What a policy's compiled form holds whatever the snapshot: its match block and what its rule keys say. */
interface PolicyShape {
  readonly match: Matcher;
  readonly keys: ReturnType<typeof ruleKeys>;
  readonly needsModel: boolean;
  readonly readsOccupancy: boolean;
  readonly writesPodsAlone: boolean;
  /** The Pod's label keys its podSelector and rules read. */
  readonly podLabels: readonly string[];
}

/**
 * Compiled once per policy object (policies are immutable values, replaced whole when they change) and shared by
 * every snapshot's compiled set: a Node event recompiles 500 policies, and this part of each was most of it.
 */
const shapes = new WeakMap<SchedulingPolicy, PolicyShape>();

function shapeOf(policy: SchedulingPolicy): PolicyShape {
  let shape = shapes.get(policy);
  if (shape === undefined) {
    const keys = ruleKeys(policy.rules);
    const match = compileMatch(policy.match);
    shape = {
      match,
      keys,
      needsModel: keys.some((key) => RULES[key].needsModel),
      readsOccupancy: keys.some((key) => RULES[key].readsOccupancy),
      writesPodsAlone: keys.every((key) => RULES[key].writesPods),
      podLabels: [...match.podLabels, ...rulePodLabels(policy.rules)],
    };
    shapes.set(policy, shape);
  }
  return shape;
}

/**
 * Its rules are compiled when a decision first needs them: a Node event publishes a new snapshot, and recompiling
 * every rule of 500 policies for it took tens of milliseconds at 65,000 nodes, which the next decision waited for,
 * though a Pod meets only the few policies that match it. A class, not an object literal with getters: V8 makes
 * such a literal slowly, and a compile makes one per policy.
 */
class LazyPolicy implements CompiledPolicy {
  readonly policy: SchedulingPolicy;
  readonly match: Matcher;
  readonly needsModel: boolean;
  readonly readsOccupancy: boolean;
  readonly #shape: PolicyShape;
  readonly #snapshot: TopologySnapshot;
  #compiled: { rules: readonly CompiledRule[]; modelFree: readonly CompiledRule[] } | undefined;

  constructor(policy: SchedulingPolicy, snapshot: TopologySnapshot) {
    const shape = shapeOf(policy);
    this.policy = policy;
    this.match = shape.match;
    this.needsModel = shape.needsModel;
    this.readsOccupancy = shape.readsOccupancy;
    this.#shape = shape;
    this.#snapshot = snapshot;
  }

  get rules(): readonly CompiledRule[] {
    return this.#rules().rules;
  }

  get modelFree(): readonly CompiledRule[] {
    return this.#rules().modelFree;
  }

  get writesPods(): boolean {
    return this.#rules().rules.length > 0 || this.#shape.writesPodsAlone;
  }

  #rules() {
    return (this.#compiled ??= compileRules(this.policy, this.#shape.keys, this.#snapshot));
  }
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
