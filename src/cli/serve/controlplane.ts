// The control plane measured and written (collection.md §2): with --topology
// kube, serve scrapes the API server, etcd and the scheduler, reads the leader
// Leases, times its own watch heartbeat, writes ControlPlane/default from one
// replica, and serves the figures as topogate_controlplane_… metrics.

import { KubeConfig } from '@kubernetes/client-node';
import { ControlPlaneCollector, DEFAULT_COLLECTOR_TIMING } from '../../controlplane/collector.ts';
import { processIdentity } from '../../controlplane/identity.ts';
import { registerControlPlaneMetrics } from '../../controlplane/metrics.ts';
import type { ControlPlaneStatus } from '../../controlplane/status.ts';
import { StatusWriter } from '../../controlplane/writer.ts';
import type { ServeComponent } from './components.ts';

/** How often the elected replica may write ControlPlane/default. */
const WRITE_INTERVAL_MS = 5_000;

export const controlPlaneComponent: ServeComponent = {
  name: 'controlplane',
  async start({ config, topology, log, registry }) {
    if (config.topology !== 'kube') return undefined;
    const kubeConfig = new KubeConfig();
    if (config.kubeconfig) kubeConfig.loadFromFile(config.kubeconfig);
    else kubeConfig.loadFromDefault();
    const identity = processIdentity(Boolean(process.env.KUBERNETES_SERVICE_HOST));
    const collector = new ControlPlaneCollector({
      config: kubeConfig,
      topology: () => topology.current(),
      etcdMetrics: config.etcdMetrics,
      ...(config.schedulerMetrics !== undefined && { schedulerMetrics: config.schedulerMetrics }),
      webhookName: config.webhookName,
      namespace: config.leaseNamespace,
      identity,
      timing: { ...DEFAULT_COLLECTOR_TIMING, intervalMs: config.controlPlaneIntervalMs },
      log,
    });
    // One status a second at most, however often metrics and the writer ask.
    let cached: { at: number; status: ControlPlaneStatus } | undefined;
    const latest = () => {
      const now = Date.now();
      if (!cached || now - cached.at >= 1000) cached = { at: now, status: collector.status(now) };
      return cached.status;
    };
    registerControlPlaneMetrics(registry, latest);
    const writer = new StatusWriter({
      config: kubeConfig,
      namespace: config.leaseNamespace,
      identity,
      intervalMs: WRITE_INTERVAL_MS,
      status: latest,
      log,
    });
    collector.start();
    writer.start();
    return {
      readiness() {
        const reasons = [collector.readiness().reason, writer.readiness().reason].filter(Boolean);
        return reasons.length === 0 ? { ready: true } : { ready: true, reason: reasons.join('; ') };
      },
      async stop() {
        await writer.stop();
        await collector.stop();
      },
    };
  },
};
