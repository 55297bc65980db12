// The topology serve decides against: files, or the live cluster.

import type { TopologyProvider } from '../../ports/topology.ts';
import { createFileTopology } from '../../sources/topology/file-topology.ts';
import type { KubeTopology } from '../../sources/topology/kube.ts';
import type { ServeConfig } from './config.ts';
import type { Shell } from './shell.ts';

export async function createTopology(config: ServeConfig, shell: Shell): Promise<TopologyProvider | KubeTopology> {
  if (config.topology !== 'kube') return createFileTopology(config.topology, shell);
  // Loaded only here: @kubernetes/client-node brings every generated API model, ~80 MB of RSS that files do not need.
  const { createKubeTopology } = await import('../../sources/topology/kube.ts');
  return createKubeTopology({
    ...(config.kubeconfig !== undefined && { kubeconfig: config.kubeconfig }),
    etcdMetrics: config.etcdMetrics,
    maxAgeMs: config.maxSourceAgeMs,
    ...shell,
  });
}
