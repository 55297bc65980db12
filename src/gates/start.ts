// Starting the placement controller against a cluster: only when the API
// server lets this account patch Pods (else a deferred Pod would wait for
// --defer-max with nobody to release it), with the Lease where serve keeps its
// Leases (--lease-namespace).

import type { KubeConfig } from '@kubernetes/client-node';
import { AuthorizationV1Api } from '@kubernetes/client-node';
import { describeKubeError } from '../kube-client/errors.ts';
import { startPlacementController, type PlacementController, type PlacementControllerOptions } from './controller.ts';
import { loadKubeConfig } from '../kube-client/kubeconfig.ts';

export type PlacementStart = { readonly controller: PlacementController } | { readonly problem: string };

export async function startPlacement(
  kubeconfig: string | undefined,
  options: Omit<PlacementControllerOptions, 'config'>,
): Promise<PlacementStart> {
  const config = loadKubeConfig(kubeconfig);
  const problem = await cannotRelease(config);
  if (problem !== undefined) return { problem };
  return { controller: startPlacementController({ ...options, config }) };
}

/** Why this account may not patch Pods cluster-wide, if it may not. */
async function cannotRelease(config: KubeConfig): Promise<string | undefined> {
  try {
    const review = await config.makeApiClient(AuthorizationV1Api).createSelfSubjectAccessReview({
      body: { spec: { resourceAttributes: { verb: 'patch', resource: 'pods' } } },
    });
    return review.status?.allowed ? undefined : 'it may not patch Pods';
  } catch (error) {
    return `asking whether it may patch Pods failed: ${describeKubeError(error)}`;
  }
}
