// `topogate audit` and the background audit (pure): every Pod of a cluster,
// as topogate first saw it, and every workload's pod template, decided again
// against the policies, and tallied per policy.

import type { KubeObject, Pod } from '../kube/types.ts';
import { podRequest } from '../kube/podFacts.ts';
import { objectWorkload, podWorkload } from '../kube/workload-identity.ts';
import { templatePod } from '../kube/workloads.ts';
import type { CompiledPolicySet } from './compiler.ts';
import { decide } from './engine.ts';
import type { DecisionTrace } from './explain.ts';
import { readRecord } from './record.ts';
import { takeBack } from './takeBack.ts';
import type { DecisionOptions } from './types.ts';

/** How many names each list of examples holds. */
export const EXAMPLES = 5;

export interface Tally {
  matched: number;
  wouldChange: number;
  unsatisfiable: number;
  readonly examples: { matched: string[]; wouldChange: string[]; unsatisfiable: string[] };
}

export interface PolicyAudit extends Tally {
  readonly name: string;
  readonly enforcement: 'Enforce' | 'Audit';
  /** The same tally over workloads' pod templates (a Deployment, not its Pods). */
  readonly workloads: Tally;
}

/** What one policy does to one Pod: for PolicyReports. */
export interface PodResult {
  readonly policy: string;
  readonly enforcement: 'Enforce' | 'Audit';
  readonly pod: { readonly namespace: string; readonly name: string; readonly uid?: string };
  /** pass: matched and in force on the Pod (or changes nothing); warn: would change it; fail: unsatisfiable. */
  readonly result: 'pass' | 'warn' | 'fail';
  readonly message: string;
}

export interface AuditReport {
  readonly policies: readonly PolicyAudit[];
  readonly results: readonly PodResult[];
}

export function auditCluster(
  pods: readonly Pod[],
  workloads: readonly KubeObject[],
  compiled: CompiledPolicySet,
  options: DecisionOptions,
): AuditReport {
  const audits = new Map<string, PolicyAudit>(
    compiled.policies.map(({ policy }) => [
      policy.name,
      { name: policy.name, enforcement: policy.enforcement ?? 'Enforce', ...tally(), workloads: tally() },
    ]),
  );
  const results: PodResult[] = [];
  for (const live of pods) {
    const namespace = live.metadata?.namespace ?? 'default';
    const name = live.metadata?.name ?? '';
    const { record } = readRecord(live);
    const pod = takeBack(live, record);
    const trace = decide(podRequest(pod, namespace, podWorkload(live, namespace)), compiled, {
      ...options,
      explain: true,
    }).trace as DecisionTrace;
    for (const policy of trace.policies) {
      const audit = audits.get(policy.policy);
      if (!audit || !policy.matched) continue;
      const outcome = count(audit, policy, `${namespace}/${name}`);
      const inForce = record?.policies.some((recorded) => recorded.name === policy.policy) ?? false;
      results.push({
        policy: policy.policy,
        enforcement: audit.enforcement,
        pod: { namespace, name, ...(typeof live.metadata?.uid === 'string' && { uid: live.metadata.uid }) },
        ...podResult(
          outcome,
          inForce,
          policy.rules.flatMap((rule) => rule.detail),
        ),
      });
    }
  }
  for (const workload of workloads) {
    const pod = templatePod(workload);
    if (!pod) continue;
    const namespace = workload.metadata?.namespace ?? 'default';
    const trace = decide(podRequest(pod, namespace, objectWorkload(workload, namespace)), compiled, {
      ...options,
      explain: true,
    }).trace as DecisionTrace;
    for (const policy of trace.policies) {
      const audit = audits.get(policy.policy);
      if (audit && policy.matched)
        count(audit.workloads, policy, `${String(workload.kind)}/${namespace}/${workload.metadata?.name ?? ''}`);
    }
  }
  return { policies: [...audits.values()], results };
}

type Outcome = 'unsatisfiable' | 'wouldChange' | 'unchanged';

function count(into: Tally, policy: DecisionTrace['policies'][number], name: string): Outcome {
  add(into, 'matched', name);
  if (policy.unsatisfiable) {
    add(into, 'unsatisfiable', name);
    return 'unsatisfiable';
  }
  if (policy.outcome === 'applied' || policy.outcome === 'would apply') {
    add(into, 'wouldChange', name);
    return 'wouldChange';
  }
  return 'unchanged';
}

function podResult(
  outcome: Outcome,
  inForce: boolean,
  details: readonly string[],
): Pick<PodResult, 'result' | 'message'> {
  const what = details.filter((detail) => !detail.startsWith('already present')).join('; ');
  if (outcome === 'unsatisfiable') return { result: 'fail', message: `placement unsatisfiable: ${what}` };
  if (outcome === 'wouldChange' && !inForce) return { result: 'warn', message: `would add: ${what}` };
  return { result: 'pass', message: inForce ? `in force: ${what}` : 'matched; changes nothing' };
}

function add(into: Tally, key: 'matched' | 'wouldChange' | 'unsatisfiable', name: string): void {
  into[key]++;
  if (into.examples[key].length < EXAMPLES) into.examples[key].push(name);
}

function tally(): Tally {
  return {
    matched: 0,
    wouldChange: 0,
    unsatisfiable: 0,
    examples: { matched: [], wouldChange: [], unsatisfiable: [] },
  };
}
