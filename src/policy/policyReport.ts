// Audit results as the ecosystem's standard report objects: one
// wgpolicyk8s.io/v1alpha2 PolicyReport per namespace (pure), which existing
// report viewers (Policy Reporter, kubectl get polr) read.

import type { KubeObject } from '../kube/types.ts';
import type { PodResult } from './audit.ts';

export const POLICY_REPORT_API = 'wgpolicyk8s.io/v1alpha2';
export const POLICY_REPORT_NAME = 'topogate';
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'topogate' };

type Result = PodResult['result'];

/** One report per namespace that has results; namespaces in `clear` get an empty one (their results are gone). */
export function policyReports(results: readonly PodResult[], now: number, clear: readonly string[] = []): KubeObject[] {
  const byNamespace = new Map<string, PodResult[]>(clear.map((namespace) => [namespace, []]));
  for (const result of results) {
    const list = byNamespace.get(result.pod.namespace) ?? [];
    list.push(result);
    byNamespace.set(result.pod.namespace, list);
  }
  const timestamp = { seconds: Math.floor(now / 1000), nanos: 0 };
  return [...byNamespace].map(([namespace, list]) => {
    const summary: Record<Result | 'error' | 'skip', number> = { pass: 0, fail: 0, warn: 0, error: 0, skip: 0 };
    for (const result of list) summary[result.result]++;
    return {
      apiVersion: POLICY_REPORT_API,
      kind: 'PolicyReport',
      metadata: { name: POLICY_REPORT_NAME, namespace, labels: { ...MANAGED_BY } },
      summary,
      results: list.map((result) => ({
        source: 'topogate',
        policy: result.policy,
        rule: 'placement',
        category: 'Scheduling',
        result: result.result,
        severity: result.result === 'fail' ? 'medium' : 'info',
        scored: result.result !== 'pass',
        message: result.message,
        timestamp,
        properties: { enforcement: result.enforcement },
        resources: [
          {
            apiVersion: 'v1',
            kind: 'Pod',
            namespace,
            name: result.pod.name,
            ...(result.pod.uid !== undefined && { uid: result.pod.uid }),
          },
        ],
      })),
    };
  });
}
