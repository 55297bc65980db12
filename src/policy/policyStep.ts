// One policy's step of a decision: match it, run its rules (settling an
// unsatisfiable required placement as its onUnsatisfiable and the Pod's
// existence say), merge their outputs, and answer a PolicyOutcome for the
// fold in engine.ts. The recorder hears each rule's result.

import { workloadKey, type WorkloadIdentity } from '../kube/workload-identity.ts';
import type { TopologySpreadConstraint } from '../kube/types.ts';
import type { NodeSet } from '../topology/nodeset.ts';
import type { CompiledPolicy } from './compiler.ts';
import type { PodContext } from './context.ts';
import type { RuleTrace } from './explain.ts';
import type { DecisionMemo } from './memo.ts';
import { PodChanges } from './merge.ts';
import { merge } from './mergeOutput.ts';
import type { DecisionRecorder, PolicyOutcome } from './outcome.ts';
import type { RuleResultName } from './record.ts';
import { inRollout, rolloutBucket } from './rollout.ts';
import type { RuleOutput } from './rules/rule.ts';
import { pinnedSpread } from './rules/spreadPin.ts';
import type { AfterCreation } from './types.ts';

export interface StepInput {
  readonly pod: PodContext;
  /** What policies are judged against: the Pod's own placement, else its schedulable nodes, else every node. */
  readonly base: NodeSet;
  /** What the higher-priority policies left allowed. */
  readonly allowed: NodeSet;
  /** The higher-priority policies applied, named when this one conflicts with them. */
  readonly applied: readonly string[];
  readonly memo: DecisionMemo;
  readonly created: AfterCreation | undefined;
  /** The decision's changes and warnings: an Enforce policy adds to them, an Audit one to its own. */
  readonly changes: PodChanges;
  readonly warnings: string[];
  readonly recorder: DecisionRecorder;
}

export function decidePolicy(compiledPolicy: CompiledPolicy, input: StepInput): PolicyOutcome {
  const { policy } = compiledPolicy;
  const reason =
    input.recorder.whyNot(compiledPolicy, input.pod) ?? outOfRollout(policy.rollout?.percent, input.pod.facts.workload);
  if (reason !== undefined) return { kind: 'not matched', reason };
  const audit = policy.enforcement === 'Audit';
  // An Audit policy is decided as under Enforce, into changes of its own that never reach the Pod.
  const changes = audit ? new PodChanges(input.pod.facts) : input.changes;
  const said: string[] = audit ? [] : input.warnings;
  const created = audit ? undefined : input.created;
  const settled = settle(compiledPolicy, input, created, said);
  if ('message' in settled) return { kind: 'rejected', ...settled };
  const { changed, results } = applySteps(policy.name, settled.attempt.steps, changes, said, created, input.recorder);
  const { unsatisfiable, kept } = settled.unsatisfiable;
  return { kind: 'decided', changed, results, nodes: settled.attempt.nodes, changes, said, unsatisfiable, kept };
}

interface Unsatisfiable {
  readonly unsatisfiable: boolean;
  readonly kept: boolean;
}

/** Most policies' placement is satisfiable: one answer for all of them. */
const SATISFIABLE: Unsatisfiable = { unsatisfiable: false, kept: false };

type Settled =
  | { readonly attempt: Evaluated; readonly unsatisfiable: Unsatisfiable }
  | { readonly message: string; readonly rules: readonly RuleTrace[] };

/** The policy's rules run, with its required placement dropped or kept when unsatisfiable; or its rejection. */
function settle(
  compiledPolicy: CompiledPolicy,
  { pod, base, allowed, memo, applied }: StepInput,
  created: AfterCreation | undefined,
  said: string[],
): Settled {
  const { policy } = compiledPolicy;
  const attempt = evaluate(compiledPolicy, pod, base, allowed, memo, undefined, created);
  if (!('unsatisfiable' in attempt)) return { attempt, unsatisfiable: SATISFIABLE };
  const { rule, modelHolds, conflict } = attempt.unsatisfiable;
  const reject = !conflict && policy.onUnsatisfiable === 'Reject';
  let again: Attempt;
  if (reject && created?.keepUnsatisfiable) {
    // A Pod that exists cannot be denied: it keeps what the policy requires and waits at the scheduler.
    said.push(
      `policy ${policy.name}, rule ${rule}: no schedulable node satisfies the Pod's placement (the model holds: ${modelHolds}); its required placement is kept and the Pod waits at the scheduler`,
    );
    again = evaluate(compiledPolicy, pod, base, allowed, memo, undefined, created, true);
  } else if (reject) {
    const message = `policy ${policy.name}, rule ${rule}: no schedulable node satisfies the Pod's placement; the model holds: ${modelHolds}`;
    return { message, rules: attempt.rules };
  } else {
    const why = conflict
      ? `rule ${rule} conflicts with higher-priority policies (${applied.join(', ')}); the model holds: ${modelHolds}`
      : `rule ${rule} is unsatisfiable; the model holds: ${modelHolds}`;
    const hardRules = compiledPolicy.rules.filter((candidate) => candidate.hard).map((candidate) => candidate.name);
    said.push(`policy ${policy.name}: required placement (${hardRules.join(', ')}) dropped: ${why}`);
    again = evaluate(compiledPolicy, pod, base, allowed, memo, why, created);
  }
  if ('unsatisfiable' in again) throw new Error('unreachable: preferred outputs never constrain nodes');
  return { attempt: again, unsatisfiable: { unsatisfiable: true, kept: reject } };
}

/** Merges each step's output, saying what was dropped; whether anything was added, and each rule's result. */
function applySteps(
  name: string,
  steps: readonly Step[],
  changes: PodChanges,
  said: string[],
  created: AfterCreation | undefined,
  recorder: DecisionRecorder,
): { changed: boolean; results: Record<string, RuleResultName> } {
  const results: Record<string, RuleResultName> = {};
  let changed = false;
  for (const step of steps) {
    if ('dropped' in step) {
      if (!step.withPolicy) said.push(`policy ${name}: ${step.rule} dropped: ${step.dropped}`);
      results[step.rule] = 'dropped';
      recorder.dropped(step.rule, step.dropped, step.before);
      continue;
    }
    const drops = { said, policy: name, rule: step.rule };
    const { added, details } = merge(changes, step.output, recorder.details, drops, created);
    for (const warning of step.output.warnings) said.push(`policy ${name}: ${warning}`);
    changed ||= added;
    results[step.rule] = added ? (step.pinned ? 'pinned' : 'added') : 'unchanged';
    recorder.merged(step.rule, added, details, step.output.notes, step.before, step.after);
  }
  return { changed, results };
}

/** Why a matching policy is treated as not matching: the workload is left out of its rollout. */
function outOfRollout(percent: number | undefined, workload: WorkloadIdentity): string | undefined {
  if (percent === undefined || inRollout(percent, workload)) return undefined;
  return `left out by rollout.percent ${percent}: workload ${workloadKey(workload)} has bucket ${rolloutBucket(workload)} (in when below ${percent})`;
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

interface Evaluated {
  readonly steps: readonly Step[];
  readonly nodes: NodeSet;
}

type Attempt =
  | Evaluated
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
  // One input for the policy's rules, its allowed set moved along: a rule reads it as it evaluates and keeps none.
  const input: { pod: PodContext; allowed: NodeSet } = { pod, allowed };
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
    input.allowed = combined;
    const result = rule.evaluate(input);
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
        const modelHolds = output.modelHolds ?? 'no schedulable node';
        return unsatisfiableAt(steps, rule.name, modelHolds, !ownNext.isEmpty(), before);
      }
      own = ownNext;
      combined = combinedNext;
    }
    // A literal of either shape, not a spread of { pinned }: V8 builds a spread member by a slower path.
    steps.push(
      pinned
        ? { rule: rule.name, output, before, after: combined, pinned }
        : { rule: rule.name, output, before, after: combined },
    );
  }
  return { steps, nodes: combined };
}

/** The attempt stopped at an unsatisfiable rule, with the rules' traces so far (its rejection's trace). */
function unsatisfiableAt(
  steps: readonly Step[],
  rule: string,
  modelHolds: string,
  conflict: boolean,
  before: NodeSet,
): Attempt {
  const earlier = steps.map((step): RuleTrace =>
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
          detail: [`not written: rule ${rule} is unsatisfiable`],
          nodesBefore: step.before.size,
          nodesAfter: step.after.size,
        },
  );
  const last: RuleTrace = {
    rule,
    outcome: 'dropped',
    detail: [`unsatisfiable: ${modelHolds}`],
    nodesBefore: before.size,
    nodesAfter: 0,
  };
  return { unsatisfiable: { rule, modelHolds, conflict }, rules: [...earlier, last] };
}

/** The existing Pod has the spread already (written when topogate deferred it at admission). */
function carries(created: AfterCreation, spread: TopologySpreadConstraint): boolean {
  return created.spreads.some(
    (carried) => carried.topologyKey === spread.topologyKey && carried.whenUnsatisfiable === spread.whenUnsatisfiable,
  );
}
