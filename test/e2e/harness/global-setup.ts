// `node --test --test-global-setup=<this file>`: starts the suite's shared
// control plane once, before any file runs, and stops it after the last. The
// test files run as child processes, which inherit the variable set here.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from './cluster.ts';
import { clusterState, startCluster } from './cluster.ts';
import { sharedClusterEnv } from './shared.ts';

let cluster: Cluster | undefined;

export async function globalSetup(): Promise<void> {
  cluster = await startCluster();
  const stateFile = join(cluster.dir, 'shared-cluster.json');
  writeFileSync(stateFile, JSON.stringify(clusterState(cluster)), { mode: 0o600 });
  process.env[sharedClusterEnv] = stateFile;
}

export async function globalTeardown(): Promise<void> {
  await cluster?.stop();
}
