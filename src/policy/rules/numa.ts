// numa: the best-fitting nodes with one NUMA cell that holds the Pod's whole
// request, among those the rest of its placement allows. The fit itself is
// the snapshot's memoised index; this only walks the ranked candidates
// until enough of them fall in the allowed set.

import { HOSTNAME_LABEL } from '../../kube/labels.ts';
import { formatQuantity } from '../../kube/quantity.ts';
import type { NodeSelectorRequirement, PreferredSchedulingTerm } from '../../kube/types.ts';
import type { NodeIndex, NumaFit, ResourceList } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { PodContext } from '../context.ts';
import { lruMap, type MemoMap } from '../memo.ts';
import type { NumaRule, QosClass } from '../types.ts';
import { NONE, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

const PREFERRED_WEIGHT = 100;

export function compileNuma(rule: NumaRule): CompiledRule {
  // Fits are memoised by the snapshot and allowed sets by the decision memo, so replicas of a workload ask again for the same pair.
  const picks = new WeakMap<NumaFit, MemoMap<NodeSet, Candidates>>();
  // A preferred hint is the same for every Pod these candidates serve with the same warnings (alignmentWarning's).
  const hinted = new WeakMap<Candidates, Map<readonly string[], RuleResult>>();
  const scheduler = rule.schedulerName ? { schedulerName: rule.schedulerName } : {};
  const pickFor = (nodes: NodeIndex, fit: NumaFit, allowed: NodeSet): Candidates => {
    let byAllowed = picks.get(fit);
    if (byAllowed === undefined) picks.set(fit, (byAllowed = lruMap()));
    let candidates = byAllowed.get(allowed);
    if (candidates === undefined) byAllowed.set(allowed, (candidates = pick(nodes, fit, allowed, rule.maxCandidates)));
    return candidates;
  };
  return {
    name: 'numa',
    hard: rule.mode === 'Required',
    evaluate({ pod, allowed }: RuleInput): RuleResult {
      const request = numaAlignedRequest(pod.requests);
      const fit = pod.snapshot.numa.fit(request);
      const candidates = pickFor(pod.snapshot.nodes, fit, allowed);
      const { hint, hostnames, nodes, requirement, preferred } = candidates;
      if (hostnames.length === 0 && rule.mode === 'Preferred')
        return { dropped: `no candidate: ${modelHolds(pod, fit, request, hostnames)}` };
      const warnings = alignmentWarning(pod);
      if (rule.mode === 'Required') {
        const holds = modelHolds(pod, fit, request, hostnames);
        return output({
          requirements: [requirement],
          nodes,
          modelHolds: holds,
          numaHint: hint,
          warnings,
          ...scheduler,
        });
      }
      let byWarnings = hinted.get(candidates);
      if (byWarnings === undefined) hinted.set(candidates, (byWarnings = new Map()));
      let result = byWarnings.get(warnings);
      if (result === undefined) {
        if (byWarnings.size >= KEPT_WARNINGS) byWarnings.clear();
        byWarnings.set(warnings, (result = output({ preferred, numaHint: hint, warnings, ...scheduler })));
      }
      return result;
    },
  };
}

/** Said only when dropped or required: a preferred hint that found candidates has nothing to explain. */
function modelHolds(pod: PodContext, fit: NumaFit, request: ResourceList, hostnames: readonly string[]): string {
  return `${fit.nodes.size} nodes have a NUMA zone with ${describeRequest(request)} available (${pod.snapshot.numa.known().size} report NodeResourceTopology), ${hostnames.length} of them allowed by the rest of the placement`;
}

interface Candidates {
  /** Candidate node → NUMA zone. */
  readonly hint: Readonly<Record<string, string>>;
  readonly hostnames: readonly string[];
  /** The candidates' slots (hostname labels are unique per node, so the nodes a hostname requirement allows). */
  readonly nodes: NodeSet;
  /** What the rule writes for them, made once per candidates so that replicas share the objects (jsonText.ts). */
  readonly requirement: NodeSelectorRequirement;
  readonly preferred: readonly PreferredSchedulingTerm[];
}

/** The best-fitting nodes in `allowed`, up to `max` of them. */
function pick(nodes: NodeIndex, fit: NumaFit, allowed: NodeSet, max: number): Candidates {
  const hint: Record<string, string> = {};
  const hostnames: string[] = [];
  const slots: number[] = [];
  for (const candidate of fit.ranked) {
    if (hostnames.length >= max) break;
    const node = nodes.get(candidate.node);
    const hostname = node?.labels[HOSTNAME_LABEL];
    if (!node || hostname === undefined || !allowed.has(node.slot)) continue;
    hostnames.push(hostname);
    hint[node.name] = candidate.zone;
    slots.push(node.slot);
  }
  const requirement: NodeSelectorRequirement = { key: HOSTNAME_LABEL, operator: 'In', values: [...hostnames] };
  const preferred = [{ weight: PREFERRED_WEIGHT, preference: { matchExpressions: [requirement] } }];
  return { hint, hostnames, nodes: NodeSet.of(slots), requirement, preferred };
}

/** Resources a NUMA cell accounts for: cpu, memory, hugepages and devices; not storage or pod counts. */
function numaAlignedRequest(requests: ResourceList): ResourceList {
  const aligned: Record<string, number> = {};
  for (const name in requests) {
    const amount = requests[name]!;
    if (amount > 0 && (name === 'cpu' || name === 'memory' || name.startsWith('hugepages-') || name.includes('/')))
      aligned[name] = amount;
  }
  return aligned;
}

/** The alignment warnings made, by QoS class and cpu request: the same list for every Pod that gets one. */
const alignmentWarnings: Readonly<Record<QosClass, Map<number, readonly string[]>>> = {
  Guaranteed: new Map(),
  Burstable: new Map(),
  BestEffort: new Map(),
};
/** Distinct cpu requests kept per QoS class (and hints per candidates); past it, the map is emptied. */
const KEPT_WARNINGS = 256;

function alignmentWarning(pod: PodContext): readonly string[] {
  const cpu = pod.requests.cpu ?? 0;
  const qos = pod.qos;
  if (qos === 'Guaranteed' && cpu > 0 && cpu % 1000 === 0) return NONE;
  const byCpu = alignmentWarnings[qos];
  let warnings = byCpu.get(cpu);
  if (warnings === undefined) {
    if (byCpu.size >= KEPT_WARNINGS) byCpu.clear();
    const fraction = cpu % 1000 === 0 ? '' : `, cpu ${cpu}m`;
    const warning = `numa: the kubelet aligns only Guaranteed Pods with integer CPUs (this Pod is ${qos}${fraction}), so the NUMA hint may not be honoured`;
    byCpu.set(cpu, (warnings = [warning]));
  }
  return warnings;
}

function describeRequest(request: ResourceList): string {
  const parts = Object.entries(request).map(([name, amount]) => `${name}=${formatQuantity(amount)}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing requested';
}
