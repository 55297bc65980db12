// The recorders a claim's decision tells its story to: SILENT_CLAIM on the admission path, and the explain
// trace's (a DecisionTrace without nodes: a claim has none).

import type { ClaimFacts } from '../kube/claimFacts.ts';
import type { CompiledPolicy, CompiledPolicySet } from './compiler.ts';
import type { DecisionTrace, PolicyTrace } from './explain.ts';

export type ClaimPolicyOutcome = Extract<PolicyTrace['outcome'], 'not matched' | 'applied' | 'unchanged'>;

export interface ClaimRecorder {
  /** What a policy did: `detail` is why it did not match, or what its dra rule did. */
  policy(name: string, outcome: ClaimPolicyOutcome, detail: string): void;
}

export const SILENT_CLAIM: ClaimRecorder = { policy: () => undefined };

export class ClaimExplainRecorder implements ClaimRecorder {
  readonly #compiled: CompiledPolicySet;
  readonly #policies: PolicyTrace[] = [];

  /** Starts with every policy not `matched`, and why. */
  constructor(compiled: CompiledPolicySet, matched: readonly CompiledPolicy[], namespace: string) {
    this.#compiled = compiled;
    for (const { policy } of compiled.policies)
      if (!matched.some((candidate) => candidate.policy === policy))
        this.policy(
          policy.name,
          'not matched',
          policy.rules.dra ? `its namespace fields do not match ${namespace}` : 'has no dra rule',
        );
  }

  policy(name: string, outcome: ClaimPolicyOutcome, detail: string): void {
    const { policies } = this.#compiled;
    this.#policies.push({
      policy: name,
      priority: policies.find(({ policy }) => policy.name === name)?.policy.priority ?? 0,
      matched: outcome !== 'not matched',
      ...(outcome === 'not matched' && { reason: detail }),
      outcome,
      rules:
        outcome === 'not matched'
          ? []
          : [
              {
                rule: 'dra',
                outcome: outcome === 'applied' ? 'added' : 'unchanged',
                detail: [detail],
                nodesBefore: 0,
                nodesAfter: 0,
              },
            ],
      nodesBefore: 0,
      nodesAfter: 0,
    });
  }

  trace(request: ClaimFacts, warnings: readonly string[]): DecisionTrace {
    const { name } = request;
    return {
      pod: name,
      namespace: request.namespace,
      workload: `${request.namespace}/${request.kind}/${name}`,
      snapshot: this.#compiled.snapshotId,
      nodes: { total: 0, schedulable: 0, podPlacement: 0 },
      policies: this.#policies,
      finalNodes: 0,
      allowed: true,
      warnings,
    };
  }
}
