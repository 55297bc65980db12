// Writes PolicyReports by server-side apply (shell): each namespace's report
// is replaced whole, under topogate's field manager.

import { KubernetesObjectApi, PatchStrategy, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeObject } from '../kube/types.ts';

export async function writePolicyReports(config: KubeConfig, reports: readonly KubeObject[]): Promise<number> {
  const client = KubernetesObjectApi.makeApiClient(config);
  for (const report of reports)
    await client.patch(
      report as KubernetesObject,
      undefined,
      undefined,
      'topogate',
      true,
      PatchStrategy.ServerSideApply,
    );
  return reports.length;
}
