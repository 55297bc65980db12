// gpu: nodes with the GPUs a Pod needs, by either source the model has: GPU
// Feature Discovery labels (product globs expanded to the concrete products
// present, a memory floor, a count floor from the Pod's request of the
// resource) or the devices DRA drivers publish in ResourceSlices (productName,
// capacity memory, counted per node). Label-qualified nodes keep the label
// requirements; when slices qualify other nodes too, the output names every
// qualifying node by hostname, as a label cannot say "this or that source".

import { HOSTNAME_LABEL } from '../../kube/labels.ts';
import type { NodeSelectorRequirement } from '../../kube/types.ts';
import { requirementNodes, requirementsNodes } from '../../topology/nodeSelector.ts';
import type { Device, TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import { globMatcher } from '../glob.ts';
import { deviceIndex, labelForm, type DeviceIndex } from './gpuDevices.ts';
import type { GpuRule } from '../types.ts';
import { describeRequirement, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

export const GPU_PRODUCT = 'nvidia.com/gpu.product';
export const GPU_MEMORY = 'nvidia.com/gpu.memory';
export const GPU_COUNT = 'nvidia.com/gpu.count';
const MEMOISED_COUNTS = 64;
/** Nodes named per source in explain. */
const NAMED = 5;

interface Qualified {
  readonly requirements: readonly NodeSelectorRequirement[];
  readonly nodes: NodeSet;
  readonly notes: readonly string[];
}

export function compileGpu(rule: GpuRule, snapshot: TopologySnapshot): CompiledRule {
  const matches = globMatcher(rule.products);
  const present = [...snapshot.nodes.labelValues(GPU_PRODUCT).keys()].sort();
  const staticRequirements: NodeSelectorRequirement[] = [];
  const matching = present.filter(matches);
  if (rule.products.length > 0) staticRequirements.push({ key: GPU_PRODUCT, operator: 'In', values: matching });
  if (rule.minMemoryMiB !== undefined) {
    staticRequirements.push({ key: GPU_MEMORY, operator: 'Gt', values: [String(rule.minMemoryMiB - 1)] });
  }
  const staticNodes = requirementsNodes(snapshot.nodes, staticRequirements);
  const devices = sliceDevicesOf(rule, snapshot, matches);
  const missing =
    matching.length === 0 && devices.size === 0 && rule.products.length > 0
      ? `no GPU product in the model matches [${rule.products.join(', ')}] (labels: [${present.join(', ')}]; ResourceSlice devices: [${deviceIndex(snapshot.devices).products.join(', ')}])`
      : undefined;
  const required = rule.mode === 'Required';
  // Counts repeat across Pods (1, 2, 4, 8 GPUs), and each answer costs a pass over the nodes; the map lives and dies with this compiled rule.
  const byCount = new Map<number, Qualified>();
  const qualifiedFor = (requested: number): Qualified => {
    let qualified = byCount.get(requested);
    if (qualified === undefined) {
      qualified = qualify(snapshot, staticRequirements, staticNodes, devices, requested);
      if (byCount.size < MEMOISED_COUNTS) byCount.set(requested, qualified);
    }
    return qualified;
  };

  // One result per qualified set, so that Pods asking for the same count get the same output object (jsonText.ts).
  const results = new WeakMap<Qualified, RuleResult>();
  const resultFor = (qualified: Qualified): RuleResult => {
    let result = results.get(qualified);
    if (result === undefined) results.set(qualified, (result = outputFor(qualified)));
    return result;
  };
  const outputFor = ({ requirements, nodes, notes }: Qualified): RuleResult => {
    if (!required) {
      if (missing) return { dropped: missing };
      return output({
        preferred: [{ weight: rule.weight, preference: { matchExpressions: [...requirements] } }],
        notes,
      });
    }
    // An empty In list is invalid in the API: the rule is then unsatisfiable and never written.
    const modelHolds =
      missing ??
      `${nodes.size} of ${snapshot.nodes.count} nodes match ${requirements.map(describeRequirement).join(', ')}`;
    return output({ requirements, nodes, modelHolds, notes });
  };

  return {
    name: 'gpu',
    hard: required,
    evaluate({ pod }: RuleInput): RuleResult {
      const requested = Math.ceil((pod.requests[rule.resource] ?? 0) / 1000);
      if (staticRequirements.length === 0 && requested === 0)
        return { dropped: 'gives no product, memory or count to require' };
      return resultFor(qualifiedFor(requested));
    },
  };
}

/** A rule's fitting devices per devices map: a Node event, which leaves the map alone, reads none of them again. */
const fittingByDevices = new WeakMap<DeviceIndex, WeakMap<GpuRule, ReadonlyMap<string, readonly Device[]>>>();

function sliceDevicesOf(
  rule: GpuRule,
  snapshot: TopologySnapshot,
  matches: (value: string) => boolean,
): ReadonlyMap<string, readonly Device[]> {
  const index = deviceIndex(snapshot.devices);
  let byRule = fittingByDevices.get(index);
  if (byRule === undefined) fittingByDevices.set(index, (byRule = new WeakMap()));
  let found = byRule.get(rule);
  if (found === undefined) byRule.set(rule, (found = sliceDevices(rule, snapshot, matches)));
  return found;
}

/**
 * Node → its slice devices that have the rule's product and memory, in the node's own order; only the nodes that
 * have a matching product are read.
 */
function sliceDevices(
  rule: GpuRule,
  snapshot: TopologySnapshot,
  matches: (value: string) => boolean,
): Map<string, readonly Device[]> {
  const { products, byProduct } = deviceIndex(snapshot.devices);
  const found = new Map<string, readonly Device[]>();
  for (const product of products) {
    if (!matches(product)) continue;
    for (const node of byProduct.get(product)!) {
      if (found.has(node)) continue;
      const fitting = snapshot.devices
        .get(node)!
        .filter(
          (device) =>
            device.productName !== undefined &&
            matches(labelForm(device.productName)) &&
            (rule.minMemoryMiB === undefined || (device.memoryMiB ?? 0) >= rule.minMemoryMiB),
        );
      if (fitting.length > 0) found.set(node, fitting);
    }
  }
  return found;
}

function qualify(
  snapshot: TopologySnapshot,
  staticRequirements: readonly NodeSelectorRequirement[],
  staticNodes: NodeSet,
  devices: ReadonlyMap<string, readonly Device[]>,
  requested: number,
): Qualified {
  const requirements = [...staticRequirements];
  let labelled = staticNodes;
  if (requested > 0) {
    const count: NodeSelectorRequirement = { key: GPU_COUNT, operator: 'Gt', values: [String(requested - 1)] };
    requirements.push(count);
    labelled = staticNodes.and(requirementNodes(snapshot.nodes, count));
  }
  const bySlices: { slot: number; hostname: string; name: string; devices: readonly Device[] }[] = [];
  for (const [name, fitting] of devices) {
    const node = snapshot.nodes.get(name);
    if (!node || fitting.length < Math.max(1, requested)) continue;
    bySlices.push({ slot: node.slot, hostname: node.labels[HOSTNAME_LABEL] ?? name, name, devices: fitting });
  }
  const sliceNodes = NodeSet.of(bySlices.map((entry) => entry.slot));
  const labelNames: string[] = [];
  for (const slot of labelled.slots()) {
    if (labelNames.length === NAMED) break;
    labelNames.push(snapshot.nodes.bySlot(slot)!.name);
  }
  const notes = [
    `GPU Feature Discovery labels qualify ${labelled.size} node(s)${named(labelNames, labelled.size)}`,
    `ResourceSlice devices qualify ${bySlices.length} node(s)${named(
      bySlices.map(({ name, devices: fitting }) => `${name} (${describeDevices(fitting)})`),
    )}`,
  ];
  if (sliceNodes.andNot(labelled).isEmpty()) return { requirements, nodes: labelled, notes };
  const nodes = labelled.or(sliceNodes);
  const hostnames = [...nodes.slots()].map((slot) => {
    const node = snapshot.nodes.bySlot(slot)!;
    return node.labels[HOSTNAME_LABEL] ?? node.name;
  });
  return {
    requirements: [{ key: HOSTNAME_LABEL, operator: 'In', values: [...new Set(hostnames)].sort() }],
    nodes,
    notes,
  };
}

function describeDevices(devices: readonly Device[]): string {
  const first = devices[0]!;
  const memory = first.memoryMiB !== undefined ? `, ${first.memoryMiB} MiB` : '';
  return `${devices.length} × ${first.driver} ${first.productName}${memory}`;
}

/** The first names of `count`: only those are read. */
function named(names: readonly string[], count = names.length): string {
  if (count === 0) return '';
  const shown = names.slice(0, NAMED).join(', ');
  return `: ${shown}${count > NAMED ? `, … (${count - NAMED} more)` : ''}`;
}
