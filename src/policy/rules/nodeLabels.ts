// nodeLabels: static requirements, answered once per snapshot.

import type { NodeSelectorRequirement } from '../../kube/types.ts';
import { requirementsNodes } from '../../topology/nodeSelector.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import type { NodeLabelsRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule } from './rule.ts';

export function compileNodeLabels(rule: NodeLabelsRule, snapshot: TopologySnapshot): CompiledRule[] {
  const rules: CompiledRule[] = [];
  if (rule.required.length > 0) {
    const requirements: NodeSelectorRequirement[] = rule.required.map(copyRequirement);
    const nodes = requirementsNodes(snapshot.nodes, requirements);
    const modelHolds = `${nodes.size} of ${snapshot.nodes.count} nodes match ${requirements.map(describeRequirement).join(', ')}`;
    const result = output({ requirements, nodes, modelHolds });
    rules.push({ name: 'nodeLabels.required', hard: true, evaluate: () => result });
  }
  if (rule.preferred.length > 0) {
    const preferred = rule.preferred.map(({ weight, requirements }) => ({
      weight,
      preference: { matchExpressions: requirements.map(copyRequirement) },
    }));
    const result = output({ preferred });
    rules.push({ name: 'nodeLabels.preferred', hard: false, evaluate: () => result });
  }
  return rules;
}

export function copyRequirement(requirement: NodeLabelsRule['required'][number]): NodeSelectorRequirement {
  return requirement.values === undefined ||
    requirement.operator === 'Exists' ||
    requirement.operator === 'DoesNotExist'
    ? { key: requirement.key, operator: requirement.operator }
    : { key: requirement.key, operator: requirement.operator, values: [...requirement.values] };
}
