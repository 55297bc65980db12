// spread: one topologySpreadConstraints entry whose labelSelector picks the
// Pod's own labels, so that it spreads among its siblings.

import type { TopologySpreadConstraint } from '../../kube/types.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import type { SpreadRule } from '../types.ts';
import { lazyLruMap } from '../memo.ts';
import { degradedOutput } from './latency.ts';
import { output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

/** A degraded node left out by a ScheduleAnyway entry: as much as the scheduler's preferences weigh. */
const AVOID_WEIGHT = 100;

export const DEFAULT_SELECTOR_KEYS = ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app'] as const;

/** The Pod's labels whose values the entry's labelSelector copies. */
export function spreadLabelKeys(rule: SpreadRule): string[] {
  const passedThrough = new Set(rule.matchLabelKeys ?? []);
  // The API server rejects a key both in matchLabelKeys and in the labelSelector.
  return (rule.selectorLabelKeys ?? DEFAULT_SELECTOR_KEYS).filter((key) => !passedThrough.has(key));
}

export function compileSpread(rule: SpreadRule, index: number, snapshot: TopologySnapshot): CompiledRule {
  const selectorKeys = spreadLabelKeys(rule);
  const hard = rule.whenUnsatisfiable === 'DoNotSchedule';
  const avoid = rule.avoidDegradedNodes ? degradedOutput(snapshot) : undefined;
  // The scheduler filters out nodes without the topology key for a DoNotSchedule constraint.
  const labelled = hard ? snapshot.nodes.withLabel(rule.topologyKey) : undefined;
  const nodes = labelled && avoid ? labelled.andNot(avoid.nodes) : labelled;
  const modelHolds =
    `${labelled?.size ?? 0} of ${snapshot.nodes.count} nodes carry the label ${rule.topologyKey}` +
    (avoid && nodes ? `, ${nodes.size} of them not degraded` : '');
  // A node whose label lies would count in the wrong domain: left out, as the constraint is hard or soft.
  const avoiding = !avoid
    ? {}
    : hard
      ? { requirements: [avoid.requirement] }
      : { preferred: [{ weight: AVOID_WEIGHT, preference: { matchExpressions: [avoid.requirement] } }] };

  // A workload's Pods repeat its selector labels: one result per set of their values, so that the output is the
  // same object for all of them (its JSON text is then made once, jsonText.ts).
  const byValues = lazyLruMap<string, RuleResult>();

  return {
    name: `spread[${index}]`,
    hard,
    evaluate({ pod }: RuleInput): RuleResult {
      const values = JSON.stringify(selectorKeys.map((key) => pod.labels[key] ?? null));
      let result = byValues.get(values);
      if (result === undefined) byValues.set(values, (result = evaluateFor(pod.labels)));
      return result;
    },
  };

  function evaluateFor(labels: Readonly<Record<string, string>>): RuleResult {
    const matchLabels: Record<string, string> = {};
    for (const key of selectorKeys) {
      const value = labels[key];
      if (value !== undefined) matchLabels[key] = value;
    }
    if (Object.keys(matchLabels).length === 0) {
      return { dropped: `the Pod has none of the selector labels [${selectorKeys.join(', ')}]` };
    }
    const spread: TopologySpreadConstraint = {
      maxSkew: rule.maxSkew,
      topologyKey: rule.topologyKey,
      whenUnsatisfiable: rule.whenUnsatisfiable,
      labelSelector: { matchLabels },
      ...(rule.minDomains !== undefined ? { minDomains: rule.minDomains } : {}),
      ...(rule.matchLabelKeys?.length ? { matchLabelKeys: [...rule.matchLabelKeys] } : {}),
    };
    return output(nodes ? { spread, nodes, modelHolds, ...avoiding } : { spread, ...avoiding });
  }
}
