// colocate: zone-complete co-location. Every zone that runs a caller should
// also run a replica of the callee, so that a Service with
// trafficDistribution: PreferSameZone keeps each call in the caller's zone.
// Read from the occupancy (where the callers' Pods are bound, where the
// callee's own Pods are bound or held), never stored: the zones the callee
// still lacks weigh most, then the callers' zones, then the callers' finer
// domains (a block, a rack) inside them. Node affinity only, which keeps the
// Pod signable for the scheduler's batching, unlike pod affinity.

import type { NodeSelectorRequirement, PreferredSchedulingTerm } from '../../kube/types.ts';
import { workloadKey } from '../../kube/workload-identity.ts';
import type { Occupancy, TopologySnapshot } from '../../topology/model.ts';
import { NodeSet } from '../../topology/nodeset.ts';
import type { ColocateRule } from '../types.ts';
import { degradedOutput, type Degraded } from './latency.ts';
import { describeRequirement, output, type CompiledRule, type RuleInput, type RuleResult } from './rule.ts';

/** The kinds a caller's name is looked up as, in the Pod's namespace. */
const CALLER_KINDS = ['Deployment', 'StatefulSet'] as const;
const MISSING_WEIGHT = 100;
const CALLER_ZONE_WEIGHT = 50;
/** The innermost `within` level weighs this much, each level out a third less. */
const WITHIN_WEIGHT = 30;

/** Where a set of workloads runs: the values each label takes on the nodes that hold their Pods. */
type Domains = ReadonlyMap<string, ReadonlySet<string>>;

/** What one compiled colocate rule reads, made once. */
interface Colocation {
  readonly rule: ColocateRule;
  readonly snapshot: TopologySnapshot;
  /** The rule's topologyKey, then its `within` levels. */
  readonly levels: readonly string[];
  readonly avoid: Degraded | undefined;
}

export function compileColocate(rule: ColocateRule, snapshot: TopologySnapshot): CompiledRule {
  const levels = [rule.topologyKey, ...(rule.within ?? [])];
  const colocation: Colocation = {
    rule,
    snapshot,
    levels,
    avoid: rule.avoidDegradedNodes ? degradedOutput(snapshot) : undefined,
  };
  return {
    name: 'colocate',
    hard: rule.mode === 'Required',
    evaluate({ pod }: RuleInput): RuleResult {
      const callers = boundIn(colocation, callerKeys(rule, pod.facts.workload.namespace), pod.occupancy);
      const callerZones = [...callers.values.get(rule.topologyKey)!].sort();
      if (callerZones.length === 0)
        return {
          dropped: `no Pod of the callers [${rule.callers.join(', ')}] is bound on a node with a ${rule.topologyKey} label`,
        };
      const own = calleeZones(colocation, workloadKey(pod.facts.workload), pod.occupancy);
      const lacking = callerZones.filter((zone) => !own.has(zone));
      const notes = [
        `callers run in ${rule.topologyKey} [${callerZones.join(', ')}]; ` +
          (lacking.length > 0 ? `no replica yet in [${lacking.join(', ')}]` : 'every one holds a replica'),
      ];
      const missing = lacking.length > 0 ? lacking : fewerThanMinDomains(colocation, own, notes);
      const within = withinTerms(rule, callers.values);
      return rule.mode === 'Required'
        ? requiredZone(colocation, callerZones, byCallers(missing, callers.podsIn), within, notes)
        : preferredZones(colocation, callerZones, missing, within, notes);
    },
  };
}

function callerKeys(rule: ColocateRule, namespace: string): string[] {
  return rule.callers.flatMap((name) => CALLER_KINDS.map((kind) => workloadKey({ namespace, kind, name })));
}

/**
 * Each level's values on the nodes holding the workloads' bound Pods (empty when none is bound), and how many of
 * those Pods each value of the topologyKey holds.
 */
function boundIn(
  { snapshot, levels }: Colocation,
  workloads: readonly string[],
  occupancy: Occupancy,
): { values: Domains; podsIn: ReadonlyMap<string, number> } {
  const values = new Map<string, Set<string>>(levels.map((level) => [level, new Set()]));
  const podsIn = new Map<string, number>();
  for (const workload of workloads)
    for (const [nodeName, count] of occupancy.workloadNodes(workload) ?? []) {
      const node = count > 0 ? snapshot.nodes.get(nodeName) : undefined;
      if (!node) continue;
      for (const level of levels) {
        const value = node.labels[level];
        if (value !== undefined) values.get(level)!.add(value);
      }
      const zone = node.labels[levels[0]!];
      if (zone !== undefined) podsIn.set(zone, (podsIn.get(zone) ?? 0) + count);
    }
  return { values, podsIn };
}

/**
 * The zones given, the one holding the most caller Pods first (ties by name): a callee with fewer replicas than
 * its callers have zones leaves the fewest calls to cross zones where most callers run.
 */
function byCallers(zones: readonly string[], callerPods: ReadonlyMap<string, number>): string[] {
  const pods = (zone: string) => callerPods.get(zone) ?? 0;
  return [...zones].sort((a, b) => pods(b) - pods(a) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * With every callers' zone holding a replica but the replicas in fewer zones than `minDomains`: the zones that
 * hold none and have a node the rule may use, by name. The callers may be in one zone for the moment (their
 * other replicas not bound yet, or not seen bound): the callee still keeps a replica elsewhere.
 */
function fewerThanMinDomains({ rule, snapshot, avoid }: Colocation, own: ReadonlySet<string>, notes: string[]) {
  if (own.size >= (rule.minDomains ?? 1)) return [];
  const others = [...snapshot.nodes.labelValues(rule.topologyKey)]
    .filter(([zone, nodes]) => !own.has(zone) && (avoid ? nodes.andNot(avoid.nodes) : nodes).size > 0)
    .map(([zone]) => zone)
    .sort();
  if (others.length > 0)
    notes.push(`replicas in ${own.size} of minDomains ${rule.minDomains} zones: [${others.join(', ')}] lack one too`);
  return others;
}

/** The zones holding the callee: its bound Pods, and those held to one zone but not bound yet. */
function calleeZones(colocation: Colocation, workload: string, occupancy: Occupancy): Set<string> {
  const { topologyKey } = colocation.rule;
  const zones = new Set(boundIn(colocation, [workload], occupancy).values.get(topologyKey));
  for (const [zone, held] of occupancy.pendingUnder(topologyKey) ?? [])
    if ((held.workloads.get(workload) ?? 0) > 0) zones.add(zone);
  return zones;
}

function inZones(rule: ColocateRule, zones: string[]): NodeSelectorRequirement {
  return { key: rule.topologyKey, operator: 'In', values: zones };
}

/**
 * Required: one missing zone at a time, the one with the most caller Pods first. The Pod is then held there, so
 * the next replica of a burst, admitted before this one binds, sees that zone taken and goes to the next (two
 * would otherwise share one).
 */
function requiredZone(
  { rule, snapshot, avoid }: Colocation,
  callerZones: string[],
  missing: string[],
  within: PreferredSchedulingTerm[],
  notes: string[],
): RuleResult {
  const requirement = inZones(rule, missing.length > 0 ? [missing[0]!] : callerZones);
  let nodes = NodeSet.EMPTY;
  for (const zone of requirement.values!) nodes = nodes.or(snapshot.nodes.withLabelValue(rule.topologyKey, zone));
  let modelHolds = `${nodes.size} of ${snapshot.nodes.count} nodes match ${describeRequirement(requirement)}`;
  if (!avoid) return output({ requirements: [requirement], nodes, modelHolds, preferred: within, notes });
  nodes = nodes.andNot(avoid.nodes);
  modelHolds += `, ${nodes.size} of them not degraded`;
  return output({ requirements: [requirement, avoid.requirement], nodes, modelHolds, preferred: within, notes });
}

/** Preferred: the zones the callee lacks weigh most, then the callers' zones, then the `within` levels. */
function preferredZones(
  { rule, avoid }: Colocation,
  callerZones: string[],
  missing: string[],
  within: PreferredSchedulingTerm[],
  notes: string[],
): RuleResult {
  const preferred: PreferredSchedulingTerm[] = [];
  if (avoid) preferred.push({ weight: MISSING_WEIGHT, preference: { matchExpressions: [avoid.requirement] } });
  if (missing.length > 0)
    preferred.push({ weight: MISSING_WEIGHT, preference: { matchExpressions: [inZones(rule, missing)] } });
  if (callerZones.some((zone) => !missing.includes(zone)))
    preferred.push({ weight: CALLER_ZONE_WEIGHT, preference: { matchExpressions: [inZones(rule, callerZones)] } });
  return output({ preferred: [...preferred, ...within], notes });
}

/** One term per `within` level: the values the callers' nodes carry, the innermost weighing most. */
function withinTerms(rule: ColocateRule, callers: Domains): PreferredSchedulingTerm[] {
  const within = rule.within ?? [];
  return within.flatMap((level, index) => {
    const values = [...callers.get(level)!].sort();
    if (values.length === 0) return [];
    const weight = Math.max(1, Math.round(WITHIN_WEIGHT * (1 - (within.length - 1 - index) / 3)));
    return [{ weight, preference: { matchExpressions: [{ key: level, operator: 'In' as const, values }] } }];
  });
}
