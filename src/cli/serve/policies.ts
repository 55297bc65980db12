// The policies in force: the directory's, joined in a cluster by its SchedulingPolicy objects.

import { createClusterPolicies } from '../../sources/policies/clusterPolicies.ts';
import type { PolicyProvider } from '../../ports/policies.ts';
import type { TopologyProvider } from '../../ports/topology.ts';
import type { KubeTopology } from '../../sources/topology/kube.ts';
import type { Shell } from './shell.ts';

/** The combined provider stops the directory's store with it. */
export function policiesInForce(
  directory: PolicyProvider,
  topology: TopologyProvider | KubeTopology,
  shell: Shell,
): PolicyProvider {
  return 'objects' in topology ? createClusterPolicies({ directory, cluster: topology, ...shell }) : directory;
}
