// serve's part in measuring the control plane (docs/controlplane.md): scrapes the
// API server, etcd and the scheduler, reads the leader Leases, times its own
// watch heartbeat, writes ControlPlane/default from one replica, and serves the
// figures as topogate_controlplane_… metrics.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { TopologySnapshot } from '../../topology/model.ts';
import type { Readiness } from '../../ports/readiness.ts';
import { ControlPlaneCollector, DEFAULT_COLLECTOR_TIMING } from './collector.ts';
import { podOwner, processIdentity } from './identity.ts';
import { registerControlPlaneMetrics } from './metrics.ts';
import type { ControlPlaneStatus } from '../../ports/controlplane.ts';
import { StatusWriter } from './writer.ts';
import { loadKubeConfig } from '../../kube-client/kubeconfig.ts';

/** How often the elected replica may write ControlPlane/default. */
const WRITE_INTERVAL_MS = 5_000;

export interface ControlPlaneServeOptions {
  readonly config: {
    readonly kubeconfig?: string;
    readonly etcdMetrics: readonly string[];
    readonly schedulerMetrics?: string;
    readonly schedulerSkipTlsVerify: boolean;
    readonly webhookName: string;
    readonly leaseNamespace: string;
    readonly controlPlaneIntervalMs: number;
  };
  readonly topology: { current(): TopologySnapshot };
  readonly log: Logger;
  readonly registry: Registry;
}

export function startControlPlane({ config, topology, log, registry }: ControlPlaneServeOptions): {
  readiness(): Readiness;
  controlPlaneStatus(): ControlPlaneStatus;
  stop(): Promise<void>;
} {
  const kubeConfig = loadKubeConfig(config.kubeconfig);
  if (config.schedulerSkipTlsVerify)
    log.warn(
      { url: config.schedulerMetrics },
      "control plane: the scheduler's certificate is not verified; topogate's credentials go to whatever answers",
    );
  const identity = processIdentity(Boolean(process.env.KUBERNETES_SERVICE_HOST));
  const owner = podOwner(process.env);
  const collector = new ControlPlaneCollector({
    config: kubeConfig,
    topology: () => topology.current(),
    etcdMetrics: config.etcdMetrics,
    ...(config.schedulerMetrics !== undefined && { schedulerMetrics: config.schedulerMetrics }),
    schedulerSkipTlsVerify: config.schedulerSkipTlsVerify,
    webhookName: config.webhookName,
    namespace: config.leaseNamespace,
    identity,
    ...(owner && { owner }),
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
    controlPlaneStatus: latest,
    readiness() {
      const reasons = [collector.readiness().reason, writer.readiness().reason].filter(Boolean);
      return reasons.length === 0 ? { ready: true } : { ready: true, reason: reasons.join('; ') };
    },
    async stop() {
      await writer.stop();
      await collector.stop();
    },
  };
}
