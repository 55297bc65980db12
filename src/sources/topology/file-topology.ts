// The topology from files: loaded once, current for ever (files do not go
// stale), for `serve --topology PATH…` and the demo cluster.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { buildStaticSnapshot } from '../../topology/build.ts';
import type { TopologyProvider } from '../../ports/topology.ts';
import { loadTopologyPaths } from './files.ts';
import { createTopologyMetrics } from './metrics.ts';

export interface FileTopologyOptions {
  readonly log: Logger;
  readonly registry: Registry;
}

/** Rejects, naming the file, when a path cannot be read or parsed. */
export async function createFileTopology(
  paths: readonly string[],
  options: FileTopologyOptions,
): Promise<TopologyProvider> {
  const snapshot = buildStaticSnapshot(await loadTopologyPaths(paths));
  createTopologyMetrics(options.registry).observe(snapshot);
  const counts = Object.fromEntries([...snapshot.sources.values()].map((s) => [s.name, s.objects]));
  options.log.info({ paths, objects: counts }, 'topology loaded from files');
  for (const status of snapshot.sources.values()) {
    if (status.error) options.log.warn(`topology source ${status.name}: ${status.error}`);
  }
  return {
    current: () => snapshot,
    occupancy: () => snapshot.pods,
    readiness: () => ({ ready: true }),
    subscribe: () => () => {},
    stop: async () => {},
  };
}
