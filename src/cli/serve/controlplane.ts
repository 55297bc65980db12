// The control plane measured and written (docs/controlplane.md): with --topology
// kube, serve scrapes the API server, etcd and the scheduler, reads the leader
// Leases, times its own watch heartbeat, writes ControlPlane/default from one
// replica, and serves the figures as topogate_controlplane_… metrics.

import type { ServeComponent } from './component.ts';

export const controlPlaneComponent: ServeComponent = {
  name: 'controlplane',
  async start(context) {
    if (context.config.topology !== 'kube') return undefined;
    // Loaded only here, as the topology loads the Kubernetes client: files need none of it.
    const { startControlPlane } = await import('../../controlplane/shell/serve.ts');
    return startControlPlane(context);
  },
};
