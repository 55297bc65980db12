// The placement gate as the e2e tests see it: its name, a Pod's gates, and the wait for the webhook to defer.

import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Pod } from '@kubernetes/client-node';
import type { ClusterState } from './cluster.ts';
import { kubectl } from './kube.ts';

export const GATE = 'topogate.dev/placement';

export const gatesOf = (pod: V1Pod): string[] => (pod.spec?.schedulingGates ?? []).map((gate) => gate.name);

/**
 * Resolves once a server-side dry run of `pod` in `namespace` comes back gated: the webhook configuration
 * reaches the admission chain a moment after it is stored, and a test must not create Pods before then.
 */
export async function untilDryRunDeferred(
  cluster: Pick<ClusterState, 'kubectl' | 'kubeconfig'>,
  namespace: string,
  pod: V1Pod,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const probe = await kubectl(
      cluster,
      ['create', '-n', namespace, '--dry-run=server', '-o', 'json', '-f', '-'],
      JSON.stringify(pod),
    );
    if (probe.code === 0 && gatesOf(JSON.parse(probe.stdout) as V1Pod).includes(GATE)) return;
    assert.ok(attempt < 120, 'the webhook never deferred a dry run');
    await sleep(250);
  }
}
