// The recorders a decision is told its story by: SILENT on the admission
// path (no trace, no detail), and the explain trace's.

import type { NodeSet } from '../topology/nodeset.ts';
import type { CompiledPolicy, CompiledPolicySet } from './compiler.ts';
import type { PodContext } from './context.ts';
import type { DecisionTrace, PolicyTrace, RuleTrace } from './explain.ts';
import type { DecisionRecorder, PolicyOutcome, TraceEnd, TraceHead } from './outcome.ts';
import type { SchedulingPolicy } from './types.ts';

export const SILENT: DecisionRecorder = {
  details: false,
  candidates: (compiled, namespace) => compiled.candidates(namespace),
  whyNot: ({ match }, pod) => (match.podMatches(pod) ? undefined : 'does not match'),
  dropped: () => undefined,
  merged: () => undefined,
  policy: () => undefined,
  trace: () => undefined,
};

export class ExplainRecorder implements DecisionRecorder {
  readonly details = true;
  readonly #head: TraceHead;
  readonly #policies: PolicyTrace[] = [];
  #rules: RuleTrace[] = [];

  constructor(head: TraceHead) {
    this.#head = head;
  }

  candidates(compiled: CompiledPolicySet): readonly CompiledPolicy[] {
    return compiled.policies;
  }

  whyNot({ match }: CompiledPolicy, pod: PodContext): string | undefined {
    return match.whyNot(pod);
  }

  dropped(rule: string, why: string, before: NodeSet): void {
    this.#rules.push({ rule, outcome: 'dropped', detail: [why], nodesBefore: before.size, nodesAfter: before.size });
  }

  merged(
    rule: string,
    added: boolean,
    details: readonly string[],
    notes: readonly string[] | undefined,
    before: NodeSet,
    after: NodeSet,
  ): void {
    this.#rules.push({
      rule,
      outcome: added ? 'added' : 'unchanged',
      detail: [...details, ...(notes ?? [])],
      nodesBefore: before.size,
      nodesAfter: after.size,
    });
  }

  policy(policy: SchedulingPolicy, outcome: PolicyOutcome, before: NodeSet, after: NodeSet): void {
    const audit = policy.enforcement === 'Audit';
    const head = { policy: policy.name, priority: policy.priority, ...(audit && { enforcement: 'Audit' as const }) };
    const nodes = { nodesBefore: before.size, nodesAfter: after.size };
    const rules = this.#rules;
    this.#rules = [];
    if (outcome.kind === 'not matched')
      this.#policies.push({ ...head, matched: false, reason: outcome.reason, outcome: 'not matched', rules, ...nodes });
    else if (outcome.kind === 'rejected')
      this.#policies.push({
        ...head,
        matched: true,
        unsatisfiable: true,
        outcome: 'rejected',
        rules: outcome.rules,
        ...nodes,
      });
    else
      this.#policies.push({
        ...head,
        matched: true,
        ...(outcome.unsatisfiable && { unsatisfiable: true }),
        outcome: audit ? (outcome.changed ? 'would apply' : 'unchanged') : outcome.changed ? 'applied' : 'unchanged',
        rules,
        ...nodes,
      });
  }

  trace({ skipped, total, schedulable, own, final, allowed, message, warnings }: TraceEnd): DecisionTrace {
    return {
      ...this.#head,
      ...(skipped !== undefined && { skipped }),
      nodes: { total, schedulable: schedulable.size, podPlacement: own.size },
      policies: this.#policies,
      finalNodes: final.size,
      allowed,
      ...(message !== undefined && { message }),
      warnings,
    };
  }
}
