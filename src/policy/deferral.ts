// Which of a policy's outputs need the model, as data, and the answer that
// defers those to the placement controller: what needs no model now (spread,
// schedulerName), the scheduling gate and the reason. The gate is what makes
// a Pod wait for its placement instead of being scheduled without it.

import type { PodFacts } from '../kube/podFacts.ts';
import type { PatchOperation } from '../kube/types.ts';
import type { SourceName, SourceStatus, TopologySnapshot } from '../topology/model.ts';
import type { CompiledPolicy, CompiledPolicySet } from './compiler.ts';
import { PodContext } from './context.ts';
import { buildPatch, patchedPod, PodChanges } from './merge.ts';
import { pointer } from './patch.ts';
import { DECISION_ANNOTATION, recordText, type RecordedPolicy, type RuleResultName } from './record.ts';
import { snapshotId } from '../topology/snapshotId.ts';
import { inRollout } from './rollout.ts';
import { RULES, type RuleKey } from './rules/table.ts';
import type { Decision, DecisionOptions, PodRequest, SchedulingPolicy } from './types.ts';

export const PLACEMENT_GATE = 'topogate.dev/placement';
export const DEFERRED_ANNOTATION = 'topogate.dev/deferred';

type Freshness = Pick<DecisionOptions, 'now' | 'maxSourceAgeMs'>;

/**
 * Whether a source's data is older than maxSourceAgeMs: out of contact that long, or not updated that long. A
 * source failing for a moment (a watch being re-established) is not stale yet; a disabled one never is.
 */
function isStale(status: SourceStatus | undefined, options: Freshness): boolean {
  if (status === undefined || status.disabled !== undefined) return false;
  const since = status.staleSince ?? status.updatedAt;
  return since !== undefined && options.now - since > options.maxSourceAgeMs;
}

/** The sources the policy's rules read that are stale (isStale). */
export function staleSources(policy: SchedulingPolicy, snapshot: TopologySnapshot, options: Freshness): SourceName[] {
  // In the order the policy writes its rules, as the reason has always named them.
  const written = (Object.keys(policy.rules) as RuleKey[]).filter((rule) => policy.rules[rule] !== undefined);
  const read = new Set(written.flatMap((rule) => RULES[rule].sources));
  return [...read].filter((source) => isStale(snapshot.sources.get(source), options));
}

/** Whether any source of the snapshot is stale: while none is, no policy's is, whatever Pod it matches. */
export function anySourceStale(snapshot: TopologySnapshot, options: Freshness): boolean {
  for (const status of snapshot.sources.values()) if (isStale(status, options)) return true;
  return false;
}

/** The compiled policies that would write onto the Pod, in priority order. */
export function matchingPolicies(
  request: PodRequest,
  compiled: CompiledPolicySet,
  options: DecisionOptions,
): { readonly matched: readonly CompiledPolicy[]; readonly context: PodContext } {
  const context = new PodContext(request.facts, compiled.snapshot, options);
  const { workload } = request.facts;
  // As the engine: an Audit policy writes nothing, and one whose rollout leaves the workload out does not match.
  const matched = compiled
    .candidates(request.facts.namespace)
    .filter(
      ({ policy, match }) =>
        policy.enforcement !== 'Audit' &&
        (policy.rollout === undefined || inRollout(policy.rollout.percent, workload)) &&
        match.podMatches(context),
    );
  return { matched, context };
}

/**
 * The deferred answer: what the matching policies' model-free rules write (spread constraints) and their scheduler
 * name, the gate (unless the Pod has it already, from the gate plane) and the reason. Undefined when no matching
 * policy needs the model: there is then nothing to wait for.
 */
export function deferredDecision(
  request: PodRequest,
  { matched, context }: ReturnType<typeof matchingPolicies>,
  reason: string,
): Decision | undefined {
  if (!matched.some((candidate) => candidate.needsModel)) return undefined;
  const pod = request.facts;
  const changes = new PodChanges(pod);
  const everyNode = context.snapshot.nodes.all();
  const recorded: RecordedPolicy[] = [];
  for (const { policy, modelFree } of matched) {
    const results: Record<string, RuleResultName> = {};
    for (const rule of modelFree) {
      const result = rule.evaluate({ pod: context, allowed: everyNode });
      if (!('output' in result) || !result.output.spread) continue;
      const merged = changes.addSpread(result.output.spread);
      results[rule.name] = 'dropped' in merged ? 'dropped' : merged.added ? 'added' : 'unchanged';
    }
    const schedulerName = policy.rules.numa?.schedulerName;
    if (schedulerName !== undefined) changes.setSchedulerName(schedulerName);
    if (Object.keys(results).length > 0)
      recorded.push({
        name: policy.name,
        ...(policy.generation !== undefined && { generation: policy.generation }),
        rules: results,
      });
  }
  // What is written now, recorded now: the controller's decision later counts it as added (it is on the Pod),
  // and explain takes it back, rather than finding constraints the Pod "already had".
  const written = changes.spreads.length > 0 || changes.schedulerName !== undefined;
  const patch = buildPatch(patchedPod(pod), changes, {
    [DEFERRED_ANNOTATION]: reason,
    ...(written && { [DECISION_ANNOTATION]: recordText(snapshotId(context.snapshot), recorded, changes) }),
  });
  if (gateIndex(pod.schedulingGates) < 0) patch.push(addGate(pod));
  return {
    allowed: true,
    patch,
    warnings: [`topogate deferred this Pod's placement (${reason}): it is scheduled once the placement is decided`],
    auditAnnotations: { deferred: reason },
    applied: [],
    matched: matched.map((candidate) => candidate.policy.name),
    deferred: reason,
  };
}

/** Where the placement gate is in the Pod's schedulingGates, or -1. */
export function gateIndex(gates: readonly (string | null)[]): number {
  return gates.indexOf(PLACEMENT_GATE);
}

/** The operation removing the placement gate (the Pod must have it): only ours, other gates stay. */
export function removeGate(gates: readonly (string | null)[]): PatchOperation {
  return { op: 'remove', path: pointer(['spec', 'schedulingGates', gateIndex(gates)]) };
}

function addGate(pod: PodFacts): PatchOperation {
  const gate = { name: PLACEMENT_GATE };
  return pod.shape.schedulingGates
    ? { op: 'add', path: '/spec/schedulingGates/-', value: gate }
    : { op: 'add', path: '/spec/schedulingGates', value: [gate] };
}

/** A decision made at admission on a Pod the gate plane gated: its answer lifts the gate in the same patch. */
export function liftingGate(decision: Decision, pod: PodFacts): Decision {
  if (!decision.allowed || decision.deferred !== undefined || gateIndex(pod.schedulingGates) < 0) return decision;
  return { ...decision, patch: [...decision.patch, removeGate(pod.schedulingGates)] };
}
