// decide: one Pod against the compiled policies. Pure and synchronous: the
// snapshot, the compiled tables and options.now are all it reads.
//
// Policies run in priority order. Each one's required outputs must leave a
// schedulable node both on their own (else its onUnsatisfiable decides) and
// with what higher-priority policies already added (else it is dropped).

import type { PodFacts } from '../kube/podFacts.ts';
import { workloadKey, type WorkloadIdentity } from '../kube/workload-identity.ts';
import type { NodeSet } from '../topology/nodeset.ts';
import type { TopologySnapshot } from '../topology/model.ts';
import type { CompiledPolicy, CompiledPolicySet } from './compiler.ts';
import { PodContext } from './context.ts';
import type { DecisionTrace, PolicyTrace, RuleTrace } from './explain.ts';
import { patchedPod, PodChanges, POLICIES_ANNOTATION, SKIP_ANNOTATION, type MergeResult } from './merge.ts';
import { describeRequirement, type RuleOutput } from './rules/rule.ts';
import type { DecisionMemo } from './memo.ts';
import type { RuleResultName } from './record.ts';
import { inRollout, rolloutBucket } from './rollout.ts';
import type { TopologySpreadConstraint } from '../kube/types.ts';
import { pinnedSpread } from './rules/spreadPin.ts';
import type { AfterCreation, AuditOutcome, Decision, DecisionOptions, PodRequest } from './types.ts';
import type { AppliedPolicy } from './writes.ts';

/** How an Audit policy's warning begins: it is said to whoever creates the Pod, never written onto the Pod. */
export const AUDIT_WARNING = 'audit: ';

export function decide(request: PodRequest, compiled: CompiledPolicySet, options: DecisionOptions): Decision {
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
  const { facts, name: podName } = request;
  const { namespace, workload } = facts;
  const snapshot = compiled.snapshot;
  const skipped = skipReason(facts) ?? daemonSetReason(workload);
  if (skipped !== undefined) {
    const trace: DecisionTrace | undefined = options.explain
      ? {
          pod: podName,
          namespace,
          workload: workloadKey(workload),
          snapshot: compiled.snapshotId,
          skipped,
          nodes: { total: snapshot.nodes.count, schedulable: 0, podPlacement: 0 },
          policies: [],
          finalNodes: 0,
          allowed: true,
          warnings: [],
        }
      : undefined;
    return {
      allowed: true,
      patch: [],
      warnings: [],
      auditAnnotations: {},
      applied: [],
      matched: [],
      audited: NONE,
      snapshot: compiled.snapshotId,
      ...(trace ? { trace } : {}),
    };
  }

  const context = new PodContext(facts, snapshot, options, compiled.memo.quantity);
  const { schedulable, own } = compiled.memo.placement(facts.placement);
  const warnings: string[] = [];
  // Policies are not blamed for the Pod's own placement: when it allows nothing they are judged against
  // the schedulable nodes alone, and when nothing is schedulable for the Pod, against every node.
  const base = !own.isEmpty() ? own : !schedulable.isEmpty() ? schedulable : snapshot.nodes.all();
  if (schedulable.isEmpty()) {
    warnings.push(
      `no node in the model is schedulable for this Pod (of ${snapshot.nodes.count}: cordoned, NotReady, with taints it does not tolerate, or without the key of its own DoNotSchedule spread constraints)`,
    );
  } else if (own.isEmpty()) {
    warnings.push(
      `the Pod's own nodeSelector and required node affinity allow none of the ${schedulable.size} nodes schedulable for it`,
    );
  }

  const changes = new PodChanges(facts);
  const matched: string[] = [];
  const applied: string[] = [];
  const recorded: AppliedPolicy[] = [];
  const keptUnsatisfiable: string[] = [];
  let audited: AuditOutcome[] | undefined;
  const auditNotes: Record<string, string> = {};
  const traces: PolicyTrace[] = [];
  let allowed = base;

  const candidates = options.explain ? compiled.policies : compiled.candidates(namespace);
  for (const compiledPolicy of candidates) {
    const { policy } = compiledPolicy;
    // A policy of claim rules only (dra) has nothing to say to a Pod.
    if (!compiledPolicy.writesPods) continue;
    const audit = policy.enforcement === 'Audit';
    // Explain looks at every policy and says why one does not match; candidates already hold for the namespace.
    const whyNot =
      (options.explain
        ? compiledPolicy.match.whyNot(context)
        : compiledPolicy.match.podMatches(context)
          ? undefined
          : 'does not match') ?? outOfRollout(policy.rollout?.percent, workload);
    if (whyNot !== undefined) {
      if (options.explain)
        traces.push({
          policy: policy.name,
          priority: policy.priority,
          ...(audit && { enforcement: 'Audit' as const }),
          matched: false,
          reason: whyNot,
          outcome: 'not matched',
          rules: [],
          nodesBefore: allowed.size,
          nodesAfter: allowed.size,
        });
      continue;
    }
    matched.push(policy.name);
    // An Audit policy is decided as under Enforce, into changes of its own that never reach the Pod.
    const target = audit ? new PodChanges(facts) : changes;
    const said: string[] = audit ? [] : warnings;
    let unsatisfiable = false;
    const created = audit ? undefined : options.created;
    let attempt = evaluate(compiledPolicy, context, base, allowed, compiled.memo, undefined, created);
    if ('unsatisfiable' in attempt) {
      unsatisfiable = true;
      const { rule, modelHolds, conflict } = attempt.unsatisfiable;
      if (!conflict && policy.onUnsatisfiable === 'Reject' && created?.keepUnsatisfiable) {
        // A Pod that exists cannot be denied: it keeps what the policy requires and waits at the scheduler.
        warnings.push(
          `policy ${policy.name}, rule ${rule}: no schedulable node satisfies the Pod's placement (the model holds: ${modelHolds}); its required placement is kept and the Pod waits at the scheduler`,
        );
        keptUnsatisfiable.push(policy.name);
        attempt = evaluate(compiledPolicy, context, base, allowed, compiled.memo, undefined, created, true);
      } else {
        if (!conflict && policy.onUnsatisfiable === 'Reject') {
          const message = `policy ${policy.name}, rule ${rule}: no schedulable node satisfies the Pod's placement; the model holds: ${modelHolds}`;
          if (options.explain)
            traces.push({
              policy: policy.name,
              priority: policy.priority,
              ...(audit && { enforcement: 'Audit' as const }),
              matched: true,
              unsatisfiable: true,
              outcome: 'rejected',
              rules: attempt.rules,
              nodesBefore: allowed.size,
              nodesAfter: audit ? allowed.size : 0,
            });
          if (audit) {
            (audited ??= []).push({ policy: policy.name, wouldChange: false, unsatisfiable: true });
            auditNotes[policy.name] = `would deny the Pod: ${message}`;
            warnings.push(`${AUDIT_WARNING}policy ${policy.name} would deny the Pod: ${message}`);
            continue;
          }
          return denied(
            policy.name,
            message,
            warnings,
            matched,
            audited ?? NONE,
            compiled.snapshotId,
            options.explain
              ? trace(
                  podName,
                  namespace,
                  workload,
                  compiled.snapshotId,
                  snapshot,
                  schedulable,
                  own,
                  traces,
                  0,
                  false,
                  message,
                  warnings,
                )
              : undefined,
          );
        }
        const why = conflict
          ? `rule ${rule} conflicts with higher-priority policies (${applied.join(', ')}); the model holds: ${modelHolds}`
          : `rule ${rule} is unsatisfiable; the model holds: ${modelHolds}`;
        const hardRules = compiledPolicy.rules.filter((candidate) => candidate.hard).map((candidate) => candidate.name);
        said.push(`policy ${policy.name}: required placement (${hardRules.join(', ')}) dropped: ${why}`);
        attempt = evaluate(compiledPolicy, context, base, allowed, compiled.memo, why, created);
      }
    }
    if ('unsatisfiable' in attempt) throw new Error('unreachable: preferred outputs never constrain nodes');

    const before = allowed;
    const ruleTraces: RuleTrace[] = [];
    const results: Record<string, RuleResultName> = {};
    let changed = false;
    for (const step of attempt.steps) {
      if ('dropped' in step) {
        if (!step.withPolicy) said.push(`policy ${policy.name}: ${step.rule} dropped: ${step.dropped}`);
        results[step.rule] = 'dropped';
        if (options.explain)
          ruleTraces.push({
            rule: step.rule,
            outcome: 'dropped',
            detail: [step.dropped],
            nodesBefore: step.before.size,
            nodesAfter: step.before.size,
          });
        continue;
      }
      const { added, details } = merge(
        target,
        step.output,
        options.explain === true || audit,
        (why) => said.push(`policy ${policy.name}: ${step.rule}: ${why}`),
        created,
      );
      for (const warning of step.output.warnings) said.push(`policy ${policy.name}: ${warning}`);
      changed ||= added;
      results[step.rule] = added ? (step.pinned ? 'pinned' : 'added') : 'unchanged';
      if (options.explain)
        ruleTraces.push({
          rule: step.rule,
          outcome: added ? 'added' : 'unchanged',
          detail: [...details, ...(step.output.notes ?? [])],
          nodesBefore: step.before.size,
          nodesAfter: step.after.size,
        });
    }
    if (audit) {
      (audited ??= []).push({ policy: policy.name, wouldChange: changed, unsatisfiable });
      const note = changed ? `would add ${describeChanges(target)}` : 'would change nothing';
      auditNotes[policy.name] = note;
      warnings.push(`${AUDIT_WARNING}policy ${policy.name} ${note}${said.length > 0 ? `; ${said.join('; ')}` : ''}`);
    } else if (changed) {
      applied.push(policy.name);
      recorded.push({ policy, rules: results });
      allowed = attempt.nodes;
    } else {
      warnings.push(`policy ${policy.name} matched but changed nothing`);
    }
    if (options.explain)
      traces.push({
        policy: policy.name,
        priority: policy.priority,
        ...(audit && { enforcement: 'Audit' as const }),
        matched: true,
        ...(unsatisfiable && { unsatisfiable }),
        outcome: audit ? (changed ? 'would apply' : 'unchanged') : changed ? 'applied' : 'unchanged',
        rules: ruleTraces,
        nodesBefore: before.size,
        nodesAfter: audit ? before.size : allowed.size,
      });
  }

  const written =
    recorded.length > 0
      ? compiled.memo.writes({
          applied: recorded,
          added: changes,
          pod: patchedPod(facts),
        })
      : undefined;
  return {
    allowed: true,
    patch: written?.patch ?? [],
    warnings,
    // The writes may be shared with other decisions: the audit notes go on a copy.
    auditAnnotations: audited
      ? { ...written?.auditAnnotations, audit: JSON.stringify(auditNotes) }
      : (written?.auditAnnotations ?? {}),
    applied,
    matched,
    audited: audited ?? NONE,
    snapshot: compiled.snapshotId,
    ...(keptUnsatisfiable.length > 0 && { unsatisfiable: keptUnsatisfiable }),
    ...(options.explain
      ? {
          trace: trace(
            podName,
            namespace,
            workload,
            compiled.snapshotId,
            snapshot,
            schedulable,
            own,
            traces,
            allowed.size,
            true,
            undefined,
            warnings,
          ),
        }
      : {}),
  };
}

const NONE: readonly AuditOutcome[] = [];

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

/** Why a matching policy is treated as not matching: the workload is left out of its rollout. */
function outOfRollout(percent: number | undefined, workload: WorkloadIdentity): string | undefined {
  if (percent === undefined || inRollout(percent, workload)) return undefined;
  return `left out by rollout.percent ${percent}: workload ${workloadKey(workload)} has bucket ${rolloutBucket(workload)} (in when below ${percent})`;
}

/** Why the Pod is admitted unchanged without looking at any policy (merge rule 5). */
export function skipReason(pod: PodFacts): string | undefined {
  if (pod.nodeName !== undefined) return `spec.nodeName is set (${pod.nodeName})`;
  if (pod.annotations[SKIP_ANNOTATION] === 'true') return `annotation ${SKIP_ANNOTATION}: "true"`;
  if (pod.decidedBy !== undefined) return `already decided (annotation ${POLICIES_ANNOTATION}: ${pod.decidedBy})`;
  return undefined;
}

/** Node sets before and after each rule, not their sizes: only explain counts them. */
type Step =
  | {
      readonly rule: string;
      readonly output: RuleOutput;
      readonly before: NodeSet;
      readonly after: NodeSet;
      /** A spread the existing Pod could not be given, written as node affinity instead (spreadPin.ts). */
      readonly pinned?: boolean;
    }
  /** withPolicy: dropped with the policy's whole required placement, which one warning already says. */
  | { readonly rule: string; readonly dropped: string; readonly before: NodeSet; readonly withPolicy?: boolean };

type Attempt =
  | { readonly steps: readonly Step[]; readonly nodes: NodeSet }
  | {
      readonly unsatisfiable: { readonly rule: string; readonly modelHolds: string; readonly conflict: boolean };
      readonly rules: RuleTrace[];
    };

/**
 * Runs a policy's rules. `own` tracks the Pod's placement with this policy
 * alone, `combined` with the higher-priority policies too: the first empty
 * one says whose fault an unsatisfiable placement is. `keepEmpty`: the
 * outputs are kept even when they leave no node (AfterCreation.keepUnsatisfiable).
 */
function evaluate(
  compiledPolicy: CompiledPolicy,
  pod: PodContext,
  base: NodeSet,
  allowed: NodeSet,
  memo: DecisionMemo,
  requiredDropped: string | undefined,
  created: AfterCreation | undefined,
  keepEmpty = false,
): Attempt {
  let own = base;
  let combined = allowed;
  const steps: Step[] = [];
  for (const rule of compiledPolicy.rules) {
    const before = combined;
    if (requiredDropped !== undefined && rule.hard) {
      steps.push({
        rule: rule.name,
        dropped: `required placement dropped: ${requiredDropped}`,
        before,
        withPolicy: true,
      });
      continue;
    }
    const result = rule.evaluate({ pod, allowed: combined });
    if ('dropped' in result) {
      steps.push({ rule: rule.name, dropped: result.dropped, before });
      continue;
    }
    const spread = result.output.spread;
    const pinned = created !== undefined && spread !== undefined && !carries(created, spread);
    const output = pinned ? pinnedSpread(spread, pod, combined) : result.output;
    if (output.nodes) {
      const ownNext = memo.and(own, output.nodes);
      const combinedNext = memo.and(combined, output.nodes);
      if (!keepEmpty && (ownNext.isEmpty() || combinedNext.isEmpty())) {
        const unsatisfiable = {
          rule: rule.name,
          modelHolds: output.modelHolds ?? 'no schedulable node',
          conflict: !ownNext.isEmpty(),
        };
        const earlier: RuleTrace[] = steps.map((step) =>
          'dropped' in step
            ? {
                rule: step.rule,
                outcome: 'dropped',
                detail: [step.dropped],
                nodesBefore: step.before.size,
                nodesAfter: step.before.size,
              }
            : {
                rule: step.rule,
                outcome: 'unchanged',
                detail: [`not written: rule ${rule.name} is unsatisfiable`],
                nodesBefore: step.before.size,
                nodesAfter: step.after.size,
              },
        );
        return {
          unsatisfiable,
          rules: [
            ...earlier,
            {
              rule: rule.name,
              outcome: 'dropped',
              detail: [`unsatisfiable: ${unsatisfiable.modelHolds}`],
              nodesBefore: before.size,
              nodesAfter: 0,
            },
          ],
        };
      }
      own = ownNext;
      combined = combinedNext;
    }
    steps.push({ rule: rule.name, output, before, after: combined, ...(pinned && { pinned }) });
  }
  return { steps, nodes: combined };
}

/** The existing Pod has the spread already (written when topogate deferred it at admission). */
function carries(created: AfterCreation, spread: TopologySpreadConstraint): boolean {
  return created.spreads.some(
    (carried) => carried.topologyKey === spread.topologyKey && carried.whenUnsatisfiable === spread.whenUnsatisfiable,
  );
}

/** Merges one rule's output; `details` (what was written, for explain) are only written when asked. */
function merge(
  changes: PodChanges,
  output: RuleOutput,
  explain: boolean,
  drop: (why: string) => void,
  created: AfterCreation | undefined,
): { added: boolean; details: string[] } {
  const details: string[] = [];
  let added = false;
  const record = (result: MergeResult, what: () => string) => {
    if ('dropped' in result) {
      drop(result.dropped);
      if (explain) details.push(`dropped: ${result.dropped}`);
    } else {
      added ||= result.added;
      if (explain) details.push(result.added ? what() : `already present: ${what()}`);
    }
  };
  for (const requirement of output.requirements)
    record(changes.addRequirement(requirement), () => `required ${describeRequirement(requirement)}`);
  for (const term of output.preferred) {
    record(
      changes.addPreferred(term),
      () =>
        `preferred (weight ${term.weight}) ${(term.preference.matchExpressions ?? []).map(describeRequirement).join(', ')}`,
    );
  }
  const { spread, schedulerName, numaHint } = output;
  if (spread)
    record(
      changes.addSpread(spread),
      () => `topologySpreadConstraint ${spread.topologyKey} maxSkew ${spread.maxSkew} ${spread.whenUnsatisfiable}`,
    );
  if (schedulerName !== undefined && created !== undefined && created.schedulerName !== schedulerName)
    record(
      {
        dropped: `schedulerName ${schedulerName} cannot be set on a Pod that exists (it was gated before topogate decided)`,
      },
      () => `schedulerName ${schedulerName}`,
    );
  else if (schedulerName !== undefined)
    record(changes.setSchedulerName(schedulerName), () => `schedulerName ${schedulerName}`);
  if (numaHint && Object.keys(numaHint).length > 0)
    record(changes.setNumaHint(numaHint), () => `numa-hint ${JSON.stringify(numaHint)}`);
  return { added, details };
}

/** What an Audit policy would have written, for its warning and audit annotation. */
function describeChanges(changes: PodChanges): string {
  const parts = [
    ...changes.requirements.map((requirement) => `required ${describeRequirement(requirement)}`),
    ...changes.preferred.map(
      (term) =>
        `preferred (weight ${term.weight}) ${(term.preference.matchExpressions ?? []).map(describeRequirement).join(', ')}`,
    ),
    ...changes.spreads.map(
      (spread) =>
        `topologySpreadConstraint ${spread.topologyKey} maxSkew ${spread.maxSkew} ${spread.whenUnsatisfiable}`,
    ),
  ];
  if (changes.schedulerName !== undefined) parts.push(`schedulerName ${changes.schedulerName}`);
  if (changes.numaHint) parts.push(`numa-hint on ${Object.keys(changes.numaHint).length} nodes`);
  return parts.join('; ');
}

function denied(
  rejectedBy: string,
  message: string,
  warnings: readonly string[],
  matched: readonly string[],
  audited: readonly AuditOutcome[],
  snapshot: string,
  trace: DecisionTrace | undefined,
): Decision {
  return {
    allowed: false,
    message,
    rejectedBy,
    patch: [],
    warnings,
    auditAnnotations: { denied: message, snapshot },
    applied: [],
    matched,
    audited,
    snapshot,
    ...(trace ? { trace } : {}),
  };
}

function trace(
  pod: string,
  namespace: string,
  workload: WorkloadIdentity,
  snapshotId: string,
  snapshot: TopologySnapshot,
  schedulable: NodeSet,
  own: NodeSet,
  policies: PolicyTrace[],
  finalNodes: number,
  allowed: boolean,
  message: string | undefined,
  warnings: readonly string[],
): DecisionTrace {
  return {
    pod,
    namespace,
    workload: workloadKey(workload),
    snapshot: snapshotId,
    nodes: { total: snapshot.nodes.count, schedulable: schedulable.size, podPlacement: own.size },
    policies,
    finalNodes,
    allowed,
    ...(message !== undefined ? { message } : {}),
    warnings,
  };
}
