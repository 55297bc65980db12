// A whole topology snapshot from a set of objects at once (files, tests,
// `mutate`): the incremental builder given every source's full list.

import type { KubeObject } from '../kube/types.ts';
import { TopologyBuilder } from './builder.ts';
import { sourcesOf, TOPOLOGY_SOURCES } from './kinds.ts';
import type { SourceName, TopologySnapshot } from './model.ts';

export interface BuildOptions {
  /** Epoch ms recorded as every source's updatedAt: the core reads no clock. */
  readonly now: number;
  /** The snapshot's version (default 1). */
  readonly version?: number;
}

/**
 * Objects of kinds the model does not read are ignored, so that a `kubectl get
 * … -o yaml` dump loads as it is; a Pod counts as usage of its node (when
 * bound and not finished) and as a control-plane Pod when it is one.
 */
export function buildSnapshot(objects: readonly KubeObject[], options: BuildOptions): TopologySnapshot {
  return build(objects, options.now, options.version);
}

/** The same, with no time recorded: for files served for ever, which do not go stale. */
export function buildStaticSnapshot(objects: readonly KubeObject[]): TopologySnapshot {
  return build(objects, undefined, undefined);
}

function build(objects: readonly KubeObject[], now: number | undefined, version: number | undefined): TopologySnapshot {
  const bySource = new Map<SourceName, KubeObject[]>(TOPOLOGY_SOURCES.map((name) => [name, []]));
  for (const object of objects) {
    for (const source of sourcesOf(object)) bySource.get(source)?.push(object);
  }
  const builder = new TopologyBuilder({ sources: TOPOLOGY_SOURCES, firstVersion: version ?? 1 });
  for (const [source, list] of bySource) builder.replace(source, list, now);
  return builder.publish();
}
