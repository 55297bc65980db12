// The step-by-step story of one decision (recorded only when asked), and
// its renderings for a terminal and as JSON.

export interface RuleTrace {
  readonly rule: string;
  readonly outcome: 'added' | 'unchanged' | 'dropped';
  /** What the rule wrote (added), or why it wrote nothing (dropped, unchanged). */
  readonly detail: readonly string[];
  /** Schedulable nodes the required placement allows before and after the rule. */
  readonly nodesBefore: number;
  readonly nodesAfter: number;
}

export interface PolicyTrace {
  readonly policy: string;
  readonly priority: number;
  /** Absent: Enforce. */
  readonly enforcement?: 'Audit';
  readonly matched: boolean;
  /** Why it did not match (or was left out by its rollout). */
  readonly reason?: string;
  /** Its required placement left no schedulable node. */
  readonly unsatisfiable?: boolean;
  /** 'would apply': an Audit policy whose outputs would have changed the Pod. */
  readonly outcome: 'not matched' | 'applied' | 'unchanged' | 'rejected' | 'would apply';
  readonly rules: readonly RuleTrace[];
  readonly nodesBefore: number;
  readonly nodesAfter: number;
}

export interface DecisionTrace {
  readonly pod: string;
  readonly namespace: string;
  /** namespace/Kind/name: what rollout.percent hashes. */
  readonly workload: string;
  /** The topology snapshot decided on. */
  readonly snapshot: string;
  /** Why the Pod was admitted unchanged before any policy was looked at. */
  readonly skipped?: string;
  /** Nodes in the model; schedulable ones (cordon, Ready, taints vs tolerations); those the Pod's own placement allows. */
  readonly nodes: { readonly total: number; readonly schedulable: number; readonly podPlacement: number };
  readonly policies: readonly PolicyTrace[];
  readonly finalNodes: number;
  readonly allowed: boolean;
  readonly message?: string;
  readonly warnings: readonly string[];
}

export function renderTrace(trace: DecisionTrace, subject = `Pod ${trace.namespace}/${trace.pod}`): string {
  const lines = [subject, `  workload ${trace.workload}, topology snapshot ${trace.snapshot}`];
  if (trace.skipped !== undefined) {
    lines.push(`  admitted unchanged: ${trace.skipped}`);
    return `${lines.join('\n')}\n`;
  }
  const { total, schedulable, podPlacement } = trace.nodes;
  lines.push(
    `  nodes: ${total} in the model, ${schedulable} schedulable for this Pod, ${podPlacement} allowed by its own placement`,
  );
  for (const policy of trace.policies) {
    const audit = policy.enforcement === 'Audit' ? ', Audit: never written' : '';
    lines.push(
      '',
      `policy ${policy.policy} (priority ${policy.priority}${audit}): ${policy.matched ? policy.outcome : `not matched: ${policy.reason}`}`,
    );
    for (const rule of policy.rules) {
      const counts =
        rule.nodesBefore === rule.nodesAfter
          ? `${rule.nodesAfter} nodes`
          : `${rule.nodesBefore} → ${rule.nodesAfter} nodes`;
      lines.push(`  ${rule.rule}: ${rule.outcome} (${counts})`);
      for (const detail of rule.detail) lines.push(`    ${detail}`);
    }
  }
  lines.push(
    '',
    trace.allowed ? `admitted: ${trace.finalNodes} schedulable nodes allowed` : `denied: ${trace.message}`,
  );
  for (const warning of trace.warnings) lines.push(`  warning: ${warning}`);
  return `${lines.join('\n')}\n`;
}
