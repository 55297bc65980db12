// gpu: product globs expanded to the concrete products the model holds, a
// memory floor, and a count floor from the Pod's request of the resource.

import type { NodeSelectorRequirement } from '../../kube/types.ts';
import { requirementNodes, requirementsNodes } from '../../kube/nodeSelector.ts';
import type { TopologySnapshot } from '../../topology/model.ts';
import type { NodeSet } from '../../topology/nodeset.ts';
import { globMatcher } from '../glob.ts';
import type { GpuRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

export const GPU_PRODUCT = 'nvidia.com/gpu.product';
export const GPU_MEMORY = 'nvidia.com/gpu.memory';
export const GPU_COUNT = 'nvidia.com/gpu.count';
const MEMOISED_COUNTS = 64;

export function compileGpu(rule: GpuRule, snapshot: TopologySnapshot): CompiledRule {
  const present = [...snapshot.nodes.labelValues(GPU_PRODUCT).keys()].sort();
  const staticRequirements: NodeSelectorRequirement[] = [];
  let missing: string | undefined;
  if (rule.products.length > 0) {
    const matching = present.filter(globMatcher(rule.products));
    if (matching.length === 0) {
      missing = `no GPU product in the model matches [${rule.products.join(', ')}] (present: [${present.join(', ')}])`;
    }
    staticRequirements.push({ key: GPU_PRODUCT, operator: 'In', values: matching });
  }
  if (rule.minMemoryMiB !== undefined) {
    staticRequirements.push({ key: GPU_MEMORY, operator: 'Gt', values: [String(rule.minMemoryMiB - 1)] });
  }
  const staticNodes = requirementsNodes(snapshot.nodes, staticRequirements);
  const required = rule.mode === 'Required';
  // Counts repeat across Pods (1, 2, 4, 8 GPUs), and each set costs a pass over the nodes; the map lives and dies with this compiled rule.
  const byCount = new Map<number, NodeSet>();
  const countNodes = (count: NodeSelectorRequirement, requested: number): NodeSet => {
    let nodes = byCount.get(requested);
    if (nodes === undefined) {
      nodes = staticNodes.and(requirementNodes(snapshot.nodes, count));
      if (byCount.size < MEMOISED_COUNTS) byCount.set(requested, nodes);
    }
    return nodes;
  };

  return {
    name: 'gpu',
    hard: required,
    evaluate({ pod }: RuleInput): RuleResult {
      const requested = Math.ceil((pod.requests[rule.resource] ?? 0) / 1000);
      const requirements = [...staticRequirements];
      let nodes = staticNodes;
      if (requested > 0) {
        const count: NodeSelectorRequirement = { key: GPU_COUNT, operator: 'Gt', values: [String(requested - 1)] };
        requirements.push(count);
        nodes = countNodes(count, requested);
      }
      if (requirements.length === 0) return { dropped: 'gives no product, memory or count to require' };
      if (!required) {
        if (missing) return { dropped: missing };
        return output({ preferred: [{ weight: rule.weight, preference: { matchExpressions: requirements } }] });
      }
      // An empty In list is invalid in the API: the rule is then unsatisfiable and never written.
      const modelHolds =
        missing ??
        `${nodes.size} of ${pod.snapshot.nodes.count} nodes match ${requirements.map(describeRequirement).join(', ')}`;
      return output({ requirements, nodes, modelHolds });
    },
  };
}
