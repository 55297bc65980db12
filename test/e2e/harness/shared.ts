// One control plane for the files of a suite run that do not need their own.
// `npm run test:e2e` starts it once (global-setup.ts) and passes its state in
// an environment variable; a file run alone gets a cluster of its own instead,
// through the same call.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster, ClusterState } from './cluster.ts';
import { attachCluster, startCluster } from './cluster.ts';

/** The path of the shared cluster's state file, set by the suite's global setup. */
export const sharedClusterEnv = 'TOPOGATE_E2E_SHARED_CLUSTER';

/**
 * The suite's shared cluster (one etcd member), or a new one of its own when
 * the file runs alone. With a shared one, `dir` is this file's own scratch
 * folder and `stop()` removes only that; the control plane cannot be restarted
 * or have members stopped (use `startCluster` for that). A file using it must
 * put its namespaced objects in namespaces of its own and delete the
 * cluster-scoped ones it made (webhook configurations above all) in `after`.
 */
export async function sharedCluster(file: string): Promise<Cluster> {
  const stateFile = process.env[sharedClusterEnv];
  if (!stateFile) return startCluster();
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as ClusterState;
  const scratch = join(state.dir, 'files');
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, `${file.replace(/[^a-z0-9-]/gi, '-')}-`));
  const refuse = (what: string) => () => Promise.reject(new Error(`${what}: the shared cluster is not this file's`));
  return {
    ...attachCluster(state),
    dir,
    async stop() {
      rmSync(dir, { recursive: true, force: true });
    },
    restartApiServer: refuse('restartApiServer'),
    stopEtcdMember: refuse('stopEtcdMember'),
    startEtcdMember: refuse('startEtcdMember'),
  };
}
