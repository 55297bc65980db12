// The policies in force: the directory's, joined in a cluster (--topology kube) by its SchedulingPolicy
// objects, watched by an informer of their own.

import type { PolicyProvider } from '../../ports/policies.ts';
import type { ServeConfig } from './config.ts';
import type { Shell } from './shell.ts';

/** The combined provider stops the directory's store and the objects' informer with it. */
export async function policiesInForce(
  directory: PolicyProvider,
  config: ServeConfig,
  shell: Shell,
): Promise<PolicyProvider> {
  if (config.topology !== 'kube') return directory;
  // Loaded only here, as the live topology is: @kubernetes/client-node is large.
  const [{ createClusterPolicies }, { watchPolicyObjects }, { kubeConfig }] = await Promise.all([
    import('../../sources/policies/clusterPolicies.ts'),
    import('../../sources/policies/objects.ts'),
    import('../live.ts'),
  ]);
  const cluster = watchPolicyObjects({ config: kubeConfig(config.kubeconfig), ...shell });
  return createClusterPolicies({ directory, cluster, ...shell });
}
