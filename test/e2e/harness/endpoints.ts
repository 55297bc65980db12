// Where a running test control plane answers: the shape `npm run cluster --
// status --output json` prints (collection.md §3), so other suites and people
// find every metrics URL without reading the state file.

import type { ClusterState } from './cluster.ts';
import { runs } from './process.ts';

export interface ClusterEndpoints {
  readonly kubeconfig: string;
  /** The API server's URL; its metrics are at `${apiServer}/metrics` (admin credentials). */
  readonly apiServer: string;
  readonly kubectl: string;
  readonly dir: string;
  readonly etcd: readonly { name: string; clientURL: string; peerURL: string; metricsURL: string }[];
  /** Secure ports serving a certificate signed by the cluster CA; `/metrics` needs credentials allowed `get` on it. */
  readonly scheduler: { metricsURL: string };
  readonly controllerManager: { metricsURL: string };
  readonly components: readonly { name: string; pid: number; running: boolean; log: string }[];
}

export function clusterEndpoints(state: ClusterState): ClusterEndpoints {
  return {
    kubeconfig: state.kubeconfig,
    apiServer: state.server,
    kubectl: state.kubectl,
    dir: state.dir,
    etcd: state.etcd.map((m) => ({
      name: m.name,
      clientURL: m.clientUrl,
      peerURL: m.peerUrl,
      metricsURL: `${m.metricsUrl}/metrics`,
    })),
    scheduler: { metricsURL: `https://127.0.0.1:${state.schedulerPort}/metrics` },
    controllerManager: { metricsURL: `https://127.0.0.1:${state.controllerManagerPort}/metrics` },
    components: state.components.map((c) => ({
      name: c.name,
      pid: c.pid,
      running: runs(c.pid, c.command),
      log: c.logFile,
    })),
  };
}
