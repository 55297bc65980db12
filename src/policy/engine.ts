// decide: one Pod against the compiled policies. Pure and synchronous: the
// snapshot, the compiled tables and options.now are all it reads.
//
// Policies run in priority order. Each one's required outputs must leave a
// schedulable node both on their own (else its onUnsatisfiable decides) and
// with what higher-priority policies already added (else it is dropped).

import type { PodFacts } from '../kube/podFacts.ts';
import { workloadKey, type WorkloadIdentity } from '../kube/workload-identity.ts';
import { NodeSet } from '../topology/nodeset.ts';
import type { CompiledPolicySet } from './compiler.ts';
import { DecisionFold, NO_AUDIT } from './fold.ts';
import { POLICIES_ANNOTATION, SKIP_ANNOTATION } from './merge.ts';
import type { DecisionRecorder, TraceHead } from './outcome.ts';
import { decidePolicy } from './policyStep.ts';
import { projected } from './projection.ts';
import { ExplainRecorder, SILENT } from './recorder.ts';
import type { Decision, DecisionOptions, PodRequest } from './types.ts';

export function decide(whole: PodRequest, compiled: CompiledPolicySet, options: DecisionOptions): Decision {
  const request = projected(whole, compiled.podLabels);
  // While every source is fresh a decision depends on the Pod and the compiled set alone; explain always walks.
  if (options.explain || options.created || options.now > compiled.memo.freshUntil(options.maxSourceAgeMs))
    return decideNow(request, compiled, options);
  // A bind changes what a pack decision reads, not the compiled set: those decisions are kept per occupancy.
  const occupancy = compiled.candidates(request.facts.namespace).some((candidate) => candidate.readsOccupancy)
    ? (options.occupancy ?? compiled.snapshot.pods).version
    : undefined;
  return compiled.memo.decision(request, () => decideNow(request, compiled, options), occupancy);
}

function decideNow(request: PodRequest, compiled: CompiledPolicySet, options: DecisionOptions): Decision {
  const { facts } = request;
  const recorder = options.explain ? new ExplainRecorder(traceHead(request, compiled)) : SILENT;
  const skipped = leftAloneReason(request);
  if (skipped !== undefined) return skippedDecision(compiled, skipped, recorder);
  const fold = new DecisionFold(request, compiled, options, recorder);
  for (const compiledPolicy of recorder.candidates(compiled, facts.namespace)) {
    // A policy of claim rules only (dra) has nothing to say to a Pod.
    if (!compiledPolicy.writesPods) continue;
    const denial = fold.apply(compiledPolicy.policy, decidePolicy(compiledPolicy, fold.stepInput()));
    if (denial !== undefined) return denial;
  }
  return fold.decision();
}

function traceHead({ facts, name }: PodRequest, compiled: CompiledPolicySet): TraceHead {
  return {
    pod: name,
    namespace: facts.namespace,
    workload: workloadKey(facts.workload),
    snapshot: compiled.snapshotId,
  };
}

function skippedDecision(compiled: CompiledPolicySet, skipped: string, recorder: DecisionRecorder): Decision {
  const [total, none] = [compiled.snapshot.nodes.count, NodeSet.EMPTY];
  const trace = recorder.trace({
    skipped,
    total,
    schedulable: none,
    own: none,
    final: none,
    allowed: true,
    warnings: [],
  });
  return {
    allowed: true,
    patch: [],
    warnings: [],
    auditAnnotations: {},
    applied: [],
    matched: [],
    audited: NO_AUDIT,
    snapshot: compiled.snapshotId,
    ...(trace ? { trace } : {}),
  };
}

/** Why the engine gives the Pod no placement at all, before looking at any policy (deferral asks too). */
export function leftAloneReason(request: PodRequest): string | undefined {
  return skipReason(request.facts) ?? daemonSetReason(request.facts.workload);
}

/** Pods of a DaemonSet are never given placement outputs: the DaemonSet places one per node itself. */
function daemonSetReason(workload: WorkloadIdentity): string | undefined {
  return workload.kind === 'DaemonSet'
    ? `owned by DaemonSet ${workload.name}: a DaemonSet places one Pod on every node it selects, and a spread or a required zone would strand its Pods, so topogate gives them no placement outputs`
    : undefined;
}

/** Why the Pod is admitted unchanged without looking at any policy (merge rule 5). */
export function skipReason(pod: PodFacts): string | undefined {
  if (pod.nodeName !== undefined) return `spec.nodeName is set (${pod.nodeName})`;
  if (pod.annotations[SKIP_ANNOTATION] === 'true') return `annotation ${SKIP_ANNOTATION}: "true"`;
  if (pod.decidedBy !== undefined) return `already decided (annotation ${POLICIES_ANNOTATION}: ${pod.decidedBy})`;
  return undefined;
}
